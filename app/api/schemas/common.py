"""Constrained types shared by every schema."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_serializer

# The id rules, re-exported for the schemas that name them.
from app.ids import (  # noqa: F401
    CLIENT_ID_PATTERN,
    NAME_PATTERN,
    SEGMENT_ID_PATTERN,
    ClientId,
    Name,
    SegmentId,
)

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


class PreemptionOut(BaseModel):
    job_id: str
    job_type: str
    server_id: str
    tenant: str | None = Field(None, description="Where tenants' quotas preempted it: whose.")
    reason: str | None = Field(None, description=(
        "Where tenants' quotas preempted it: reclaim (a lender took back its quota) or "
        "priority (its tenant's higher job)."))
