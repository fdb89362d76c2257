"""The id rules: what a name or a client-chosen id may be, wherever it enters (the REST
schemas, the Kubernetes objects read by the extender and the webhook), so that an id one route
accepts is one every other route takes."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

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
# Every API key starts with this (app/service/auth.py mints them); app/redact.py finds keys by
# it wherever a client put one by mistake.
KEY_PREFIX = "hr_"
