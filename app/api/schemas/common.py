"""Constrained types shared by every schema."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_serializer

# Names appear in URLs, logs and metrics labels: keep them to a safe alphabet.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
# Client-chosen ids (events, and the Idempotency-Key header): printable ASCII, no whitespace,
# bounded.
CLIENT_ID_PATTERN = r"^[!-~]{1,200}$"
ClientId = Annotated[str, StringConstraints(pattern=CLIENT_ID_PATTERN)]
# Client-chosen ids that a later route takes as a path segment (jobs, deployments): a ClientId
# without "/" (a router never matches it again: a deployment "team/web" held its cores for
# good) and not starting with "." (".." and "." are dot-segments that clients and proxies
# resolve away). Other reserved characters such as "?" and "#" reach the route percent-encoded.
SEGMENT_ID_PATTERN = r"^[!-\-0-~][!-.0-~]{0,199}$"
SegmentId = Annotated[str, StringConstraints(pattern=SEGMENT_ID_PATTERN), Field(
    description="Printable ASCII without spaces or \"/\", not starting with \".\", at most 200 "
                "characters: it is a path segment of later requests.")]
# Resource amounts: finite, and bounded so sums of many of them stay exact enough in floats.
Amount = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]
PositiveAmount = Annotated[float, Field(gt=0, le=1e12, allow_inf_nan=False)]


class StrictModel(BaseModel):
    """Unknown fields are errors, NaN/Infinity are refused, and no type is coerced
    ("yes" is not a boolean, "5" is not a number): a typo should fail, not guess."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class AsGiven(StrictModel):
    """A StrictModel stored and shown with only the fields the client gave (or a validator
    set): the engine behind it fills in its own defaults, which the field defaults here
    document, so a declaration is stored as it was written."""

    @model_serializer(mode="wrap")
    def _as_given(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if k in self.model_fields_set}


# At most 1e12 time units: far beyond any cluster's life, and exact enough in a float.
Instant = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]


class Delivery(BaseModel):
    event_seq: int | None = Field(
        description="Position in the cluster's log; null on a dry run or an idle tick.")
    replayed: bool = Field(description="True when this answers a retry of a logged event.")
    dry_run: bool = False
