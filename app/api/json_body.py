"""The strict reading of JSON request bodies that every route shares.

JSON (RFC 8259) and Python's parser let through things no request to this service can mean,
each of which would do damage further in:

- a lone UTF-16 surrogate (``"\\ud800"``, or its raw bytes, which Python's parser passes
  through) is no character: a request holding one would be decided and committed, and then
  its answer could not be encoded as UTF-8 (a 500 after the commit);
- a key given twice (``{"dry_run": false, "dry_run": true}``): the parser keeps the last, so
  what the client meant and what is decided could differ silently;
- ``NaN``, ``Infinity``, ``-Infinity`` and numbers beyond a double (``1e999`` reads as
  infinity) are no JSON numbers; inside a free-form object NaN would become null on the way
  out;
- nesting beyond ``MAX_DEPTH``: 800 levels fail in serialisation (a 500), and about 1,000
  exhaust the parser's recursion;
- NUL (``\\u0000``) anywhere: Postgres text and JSON cannot hold it (psycopg raises: a 500);
- integers of more than 4,300 digits, which Python refuses to convert.

Each is refused with 422 ``validation_error`` naming the field, before routing. Other control
characters are left to the schemas' patterns (ids and names refuse them).

Cost. A clean body pays one parse, through a decoder built once (json.loads with hooks
builds one per call, which cost more than parsing a small body), with a Python hook per
object and per float (duplicate keys and non-finite numbers are caught there), plus three
substring scans and two byte counts in C; its strings are walked only when those scans say a
string may hold a surrogate or a NUL, its nesting only when the body has more than
``MAX_DEPTH`` brackets at all. Measured with timeit (best of 9, the development machine
shared with other work, so the ratios are the figures to keep): a 150-byte arrival 5.7 µs,
as much as one plain json.loads of it (5.8 µs); a 1 MB ``events:batch`` body of 1,000 events
6.1 ms against json.loads' 2.2 ms (the hooks on 1,001 objects and 1,000 floats, and the walk
for the nesting, which 1,001 brackets call for).
A hostile body is parsed a second time, with hooks that mark what they find instead of
raising, to name the field.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

# Kubernetes objects, the deepest documents this service takes (AdmissionReview, the
# extender's pods), nest about 10-20 levels (a container's env valueFrom secretKeyRef inside
# a pod template inside a Deployment inside the review); 64 leaves room for custom resources
# and stays far below the parser's recursion limit (about 1,000 levels).
MAX_DEPTH = 64

_SURROGATE = re.compile("[\ud800-\udfff]")
# Control characters and lone surrogates, written as JSON escapes when a key is echoed in a
# field name (a surrogate would make the problem document itself unencodable).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused: the field (as ``field_path`` writes it), a type, a message."""

    field: str
    type: str
    message: str


MESSAGES = {
    "control_character": "control characters (such as NUL) are not allowed",
    "lone_surrogate": "a lone UTF-16 surrogate (\\ud800-\\udfff without its pair) is not a "
                      "character",
    "duplicate_key": "this key appears more than once in its object",
    "non_finite_number": "NaN, Infinity and numbers beyond a 64-bit float (such as 1e999) "
                         "are not allowed",
    "number_too_long": f"integers have at most {sys.get_int_max_str_digits():,} digits",
    "nesting_too_deep": f"objects and arrays nest at most {MAX_DEPTH} levels deep",
}


# Where a clean body's document is kept in the ASGI scope (app/api/middleware.py), so that
# the lean path (app/api/lean.py) validates it without parsing it again.
PARSED = "headroom.json"


def refusal(body: bytes, scope: dict[str, Any] | None = None) -> Refusal | None:
    """The first thing in ``body`` no request may hold, or None (clean, empty, or no JSON at
    all: the route answers malformed JSON itself). A clean document is kept in ``scope``
    under ``PARSED``."""
    if not body:
        return None
    try:
        document = _STRICT.decode(_text(body))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    except (ValueError, RecursionError):  # _Refused, an over-long integer, too deep
        return _diagnose(body)
    # Whether a string may hold a surrogate or a NUL: an escape, the first byte of a UTF-8
    # surrogate (or of other characters from U+D000), a NUL byte (UTF-16 or -32 text). Three
    # substring scans: one regular expression for the three was 20 times slower on 1 MB.
    strings = b"\\u" in body or b"\xed" in body or b"\x00" in body
    if strings or body.count(b"{") + body.count(b"[") > MAX_DEPTH:
        found = next(_refusals(document, "", 1, strings), None)
        if found is not None:
            return found
    if scope is not None:
        scope[PARSED] = document
    return None


class _Refused(ValueError):
    """Raised by the first parse's hooks; ``_diagnose`` finds out where."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Refused
    return obj


def _refuse_constant(_name: str) -> Any:
    raise _Refused


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused
    return value


class _Marked:
    """What the second parse puts where a value was refused."""

    __slots__ = ("type",)

    def __init__(self, kind: str):
        self.type = kind


class _Object(dict):  # type: ignore[type-arg]
    """An object of the second parse that repeated some keys."""

    duplicates: list[str]


def _marking_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Object(pairs)
    marked.duplicates, seen = [], set()
    for key, _ in pairs:
        if key in seen:
            marked.duplicates.append(key)
        seen.add(key)
    return marked


def _marking_float(text: str) -> Any:
    value = float(text)
    return _Marked("non_finite_number") if math.isinf(value) else value


def _marking_int(text: str) -> Any:
    return _Marked("number_too_long") if len(text.lstrip("-")) > \
        sys.get_int_max_str_digits() else int(text)


_STRICT = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_refuse_constant,
                           parse_float=_finite_float)
_MARKING = json.JSONDecoder(object_pairs_hook=_marking_pairs,
                            parse_constant=lambda _name: _Marked("non_finite_number"),
                            parse_float=_marking_float, parse_int=_marking_int)


def _text(body: bytes) -> str:
    """The body as json.loads (and so the routes) reads it: UTF-8, -16 or -32 by its first
    bytes, surrogates passed through. A decoder built once: json.loads with hooks builds
    one per call, which cost more than the parse of a small body."""
    if b"\x00" in body or body.startswith(b"\xef\xbb\xbf"):  # UTF-16/32, or a BOM
        return body.decode(json.detect_encoding(body), "surrogatepass")
    return body.decode("utf-8", "surrogatepass")


def _diagnose(body: bytes) -> Refusal | None:
    try:
        document = _MARKING.decode(_text(body))
    except RecursionError:  # too deep to parse, so too deep to say where
        return Refusal("body", "nesting_too_deep", MESSAGES["nesting_too_deep"])
    except ValueError:
        return None
    return next(_refusals(document, "", 1, True), None)


def _refusals(value: Any, at: str, depth: int, strings: bool) -> Iterator[Refusal]:
    """Everything refused in ``value`` (at path ``at``, nested ``depth`` deep), in document
    order. ``strings``: look into strings and keys too."""
    if isinstance(value, str):
        if strings and (kind := _string_fault(value)) is not None:
            yield _at(at, kind)
    elif isinstance(value, dict):
        if depth > MAX_DEPTH:
            yield _at(at, "nesting_too_deep")
            return
        if isinstance(value, _Object):
            for key in value.duplicates:
                yield _at(_key_path(at, key), "duplicate_key")
        for key, item in value.items():
            if strings:
                here = _key_path(at, key)
                if (kind := _string_fault(key)) is not None:
                    yield _at(here, kind)
                yield from _refusals(item, here, depth + 1, strings)
            elif isinstance(item, (dict, list)):  # only the nesting to check
                yield from _refusals(item, _key_path(at, key), depth + 1, strings)
    elif isinstance(value, list):
        if depth > MAX_DEPTH:
            yield _at(at, "nesting_too_deep")
            return
        for i, item in enumerate(value):
            if strings or isinstance(item, (dict, list, _Marked)):
                yield from _refusals(item, f"{at}[{i}]", depth + 1, strings)
    elif isinstance(value, _Marked):
        yield _at(at, value.type)


def _string_fault(text: str) -> str | None:
    if text.isascii():
        return "control_character" if "\x00" in text else None
    if "\x00" in text:
        return "control_character"
    return "lone_surrogate" if _SURROGATE.search(text) else None


def _key_path(at: str, key: str) -> str:
    name = key if key.isprintable() else \
        _UNPRINTABLE.sub(lambda m: f"\\u{ord(m[0]):04x}", key)
    return f"{at}.{name}" if at else name


def _at(field: str, kind: str) -> Refusal:
    return Refusal(field or "body", kind, MESSAGES[kind])


async def sent_body(request: Request) -> Any:
    """The JSON body exactly as the client wrote it (Starlette keeps the bytes, so this reads
    them a second time without touching the socket). An idempotency key hashes this, not the
    validated model: a default or a derived field (a moment cluster's threshold from the
    calibrated table) that a later release changes must not make a retry a 409. A body that
    is no JSON gives None: FastAPI's own validation of it answers the request."""
    try:
        return await request.json()
    except ValueError:  # JSONDecodeError and UnicodeDecodeError both are
        return None
