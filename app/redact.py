"""API keys out of everything the service writes down: log lines, span attributes, problem
documents.

Two request shapes carry a key where it would otherwise be recorded. The Kubernetes routes
take one as a path segment (``/v1/kubernetes/{api_key}/clusters/...``: kube-scheduler and
webhooks cannot send headers), and a key pasted by mistake can land anywhere (``/v1/clusters/
hr_...``). A request refused before routing (413, a control character), unmatched (404, 405,
a ``..`` segment) or answered by a route has the same raw path, so the path is redacted by
its shape, never by the route that matched: every place that records a path takes it from
:func:`path`, and free text (a problem's detail, a log line, a query string) from :func:`text`.

Both cost a substring test on the paths that hold nothing to redact (all but the Kubernetes
ones), so the access log can call them on every request.
"""

from __future__ import annotations

import re

from app.ids import KEY_PREFIX

REDACTED = "{api_key}"

# The segment after a `kubernetes` segment is a key unless it is one of the header routes'
# own (`/v1/clusters/{id}/kubernetes/extender/...`). Matched anywhere and in any case, so that
# `/v1/Kubernetes/<key>` or `/v1/x/../kubernetes/<key>` (unmatched, 404) is redacted too.
_KEYED = re.compile(r"(?i)(/kubernetes/+)(?!(?:extender|admission)(?:/|$))[^/]+")
# A path segment shaped like a key, wherever it is.
_KEY_SEGMENT = re.compile(rf"(?<=/){KEY_PREFIX}[^/]*")
# A key inside free text: the prefix not glued to a preceding word, then the key alphabet
# (secrets.token_urlsafe's).
_KEY_TEXT = re.compile(rf"(?<![A-Za-z0-9_-]){KEY_PREFIX}[A-Za-z0-9_-]*")


def path(raw: str) -> str:
    """``raw`` (a request path) with every segment that may hold a key written ``{api_key}``."""
    if "kubernetes/" in raw.lower():
        raw = _KEYED.sub(rf"\g<1>{REDACTED}", raw)
    if KEY_PREFIX in raw:
        raw = _KEY_SEGMENT.sub(REDACTED, raw)
    return raw


def text(raw: str) -> str:
    """``raw`` with every key-shaped token (``hr_`` and the key alphabet) written
    ``{api_key}``: for text that may quote a path, an id or a header a client sent."""
    return _KEY_TEXT.sub(REDACTED, raw) if KEY_PREFIX in raw else raw
