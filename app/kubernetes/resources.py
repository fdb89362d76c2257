"""Resource quantities and resource names, as Kubernetes writes them.

A quantity is Kubernetes' ``resource.Quantity`` (k8s.io/apimachinery pkg/api/resource,
quantity.go): ``<signedNumber><suffix>``, where the number is ``<digits>``, ``<digits>.``,
``<digits>.<digits>`` or ``.<digits>`` and the suffix a binary SI one (Ki, Mi, Gi, Ti, Pi, Ei),
a decimal SI one (n, u, m, none, k, M, G, T, P, E) or a decimal exponent (``e3``, ``E-2``).
Kubernetes also takes a JSON number. Headroom reads that grammar and no wider (ASCII digits
only, no whitespace) and bounds it more tightly than Kubernetes does, refusing instead of
guessing:

- at most 64 characters, checked before anything is parsed;
- not negative (the API server refuses negative requests, limits and overheads);
- at most 2^63-1 in the unit written (cores, bytes, a count): Kubernetes' int64 accessors
  hold no more, and it silently caps a binary quantity there (``8Ei``); Headroom refuses it;
- kept, as Kubernetes keeps it, to nano precision, a finer value rounded up (``0.5n`` is 1n).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_UP, Context, Decimal
from typing import Annotated, Any

from pydantic import Field, PlainValidator, StringConstraints, WithJsonSchema
from pydantic_core import PydanticCustomError

QUANTITY_MAX_CHARS = 64
MAX_QUANTITY = 2**63 - 1
# A JSON number is read as a double by most clients and by JSON Schema tools, and the double
# nearest 2^63-1 is 2^63: a number may be at most the largest double below it, so that the
# schema's maximum and this check agree.
MAX_QUANTITY_NUMBER = 2**63 - 1024
# No sign but "+": a negative quantity is refused with its own message before the grammar.
QUANTITY_PATTERN = (r"^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
                    r"(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE])?$")
_QUANTITY = re.compile(QUANTITY_PATTERN)
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_NANO = Decimal("1e-9")
# Exact for any number of 64 characters times 2^60 (83 digits), and for a sum of a thousand
# containers' quantities.
_EXACT = Context(prec=100)
_LIMIT = Decimal(MAX_QUANTITY)

# Resources counted in GiB rather than bytes: a dimension "memory": 640 means 640 GiB.
BYTE_RESOURCES = ("memory", "ephemeral-storage")
GIB = Decimal(2**30)

# A resource name is a qualified name (an optional DNS-subdomain prefix and "/", then a name
# of at most 63 characters), as the API server requires of every key of a ResourceList.
RESOURCE_NAME_PATTERN = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                         r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
ResourceName = Annotated[str, StringConstraints(max_length=253 + 1 + 63,
                                                pattern=RESOURCE_NAME_PATTERN)]
# Kubernetes sets no limit on a ResourceList's entries; real ones hold a handful.
MAX_RESOURCES = 128


class BadQuantity(ValueError):
    """Not a quantity Headroom takes; the message says why, without echoing the input."""


def parse_quantity(value: Any) -> Decimal:
    """The quantity's value in the unit it is written in (cores, bytes, a count)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise BadQuantity("a quantity is a string such as \"500m\" or \"2Gi\", or a number")
    if isinstance(value, str):
        amount = _parse_text(value)
    elif isinstance(value, float) and not math.isfinite(value):
        raise BadQuantity("a quantity must be finite")
    elif value > MAX_QUANTITY_NUMBER:
        raise BadQuantity(f"a quantity given as a number must be at most {MAX_QUANTITY_NUMBER} "
                          "(the largest double below 2^63); write a larger one as a string")
    else:  # a float's shortest repr, not its binary expansion: 0.1 is 0.1
        amount = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    if amount < 0:
        raise BadQuantity("a quantity must not be negative")
    if amount > _LIMIT:
        raise BadQuantity(f"a quantity must be at most 2^63-1 ({MAX_QUANTITY})")
    if amount.as_tuple().exponent >= -9:  # nano or coarser already: the common case
        return amount
    return amount.quantize(_NANO, rounding=ROUND_UP, context=_EXACT)


def _parse_text(text: str) -> Decimal:
    if len(text) > QUANTITY_MAX_CHARS:
        raise BadQuantity(f"a quantity has at most {QUANTITY_MAX_CHARS} characters")
    if text.startswith("-"):
        raise BadQuantity("a quantity must not be negative")
    m = _QUANTITY.fullmatch(text)  # not match: "$" would let a trailing newline through
    if m is None:
        raise BadQuantity("not a Kubernetes quantity: <number><suffix>, the suffix one of Ki, "
                          "Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E or an exponent such "
                          "as e3 (for example 500m, 2Gi, 1.5)")
    number, suffix = Decimal(m.group(1)), m.group(3) or ""
    if not number:
        return number
    if suffix in _BINARY:
        return _EXACT.multiply(number, Decimal(2 ** _BINARY[suffix]))
    exponent = _DECIMAL[suffix] if suffix in _DECIMAL else int(suffix[1:])
    # Decided on the exponent alone where it settles it, so "1e999999999" costs no big
    # number: at 10^19 and beyond a value is past 2^63-1, below 10^-10 it rounds up to 1n.
    magnitude = number.adjusted() + exponent
    if magnitude > 18:
        raise BadQuantity(f"a quantity must be at most 2^63-1 ({MAX_QUANTITY})")
    if magnitude < -10:
        return _NANO
    return number.scaleb(exponent, context=_EXACT)


def _validated(value: Any) -> Decimal:
    try:
        return parse_quantity(value)
    except BadQuantity as exc:
        raise PydanticCustomError("quantity", "{reason}", {"reason": str(exc)}) from None


QUANTITY_SCHEMA = {
    "anyOf": [{"type": "string", "maxLength": QUANTITY_MAX_CHARS, "pattern": QUANTITY_PATTERN},
              {"type": "number", "minimum": 0, "maximum": MAX_QUANTITY_NUMBER}],
    "description": "A Kubernetes quantity (500m, 2Gi, 1e3, or a number): not negative, at most "
                   "2^63-1, at most 64 characters."}
Quantity = Annotated[Decimal, PlainValidator(_validated), WithJsonSchema(QUANTITY_SCHEMA)]
# Stated whole: pydantic would describe the keys' pattern as patternProperties, which lets a
# key of any other form through.
ResourceList = Annotated[dict[ResourceName, Quantity], Field(max_length=MAX_RESOURCES),
                         WithJsonSchema({"type": "object", "maxProperties": MAX_RESOURCES,
                                         "propertyNames": {"maxLength": 253 + 1 + 63,
                                                           "pattern": RESOURCE_NAME_PATTERN},
                                         "additionalProperties": QUANTITY_SCHEMA})]


def in_headroom_units(resource: str, amount: Decimal) -> float:
    """cpu in cores, memory and ephemeral storage (and hugepages) in GiB, the rest as counts."""
    if resource in BYTE_RESOURCES or resource.startswith("hugepages-"):
        amount = amount / GIB
    return float(amount)


def cores_of(cpu: Decimal, replicas: int) -> int:
    """Whole cores for ``replicas`` pods of ``cpu`` cores each, exactly: moment clusters count
    integer cores, so a fraction is rounded up (three pods of 500m are 2 cores)."""
    return math.ceil(_EXACT.multiply(cpu, Decimal(replicas)))
