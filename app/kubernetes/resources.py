"""Resource quantities and the requests of a pod (or of a Deployment's pod template).

A quantity is Kubernetes' ``resource.Quantity`` string: a decimal number with an optional
binary (Ki, Mi, Gi, Ti, Pi, Ei), decimal (n, u, m, k, M, G, T, P, E) or exponent (e3) suffix.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
            "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
            "P": Decimal("1e15"), "E": Decimal("1e18")}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$")

# Resources counted in GiB rather than bytes: a dimension "memory": 640 means 640 GiB.
BYTE_RESOURCES = ("memory", "ephemeral-storage")
GIB = Decimal(2**30)


class BadQuantity(ValueError):
    """A request that is not a Kubernetes quantity, or a pod spec whose shape is not a pod
    spec's; the message names the field."""


def parse_quantity(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise BadQuantity(f"{value!r} is not a quantity")
    m = _QUANTITY.match(str(value).strip())
    if m is None:
        raise BadQuantity(f"{value!r} is not a quantity")
    number, suffix = Decimal(m.group(1)), m.group(2) or ""
    try:
        if suffix in _BINARY:
            out = number * _BINARY[suffix]
        elif suffix[:1] in ("e", "E"):
            out = number.scaleb(int(suffix[1:]))
        else:
            out = number * _DECIMAL[suffix]
    except (InvalidOperation, OverflowError) as exc:
        raise BadQuantity(f"{value!r} is out of range") from exc
    if out < 0:
        raise BadQuantity(f"{value!r} is negative")
    return out


def in_headroom_units(resource: str, amount: Decimal) -> float:
    """cpu in cores, memory and ephemeral storage (and hugepages) in GiB, the rest as counts."""
    if resource in BYTE_RESOURCES or resource.startswith("hugepages-"):
        amount = amount / GIB
    return float(amount)


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadQuantity(f"{where} is not an object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadQuantity(f"{where} is not a list")
    return value


def _container_requests(container: Any, where: str) -> dict[str, Decimal]:
    resources = _mapping(_mapping(container, where).get("resources"), f"{where}.resources")
    # A container with limits and no requests is given requests = limits by the API server's
    # defaulting; a template read before defaulting may still lack them.
    raw = {**_mapping(resources.get("limits"), f"{where}.resources.limits"),
           **_mapping(resources.get("requests"), f"{where}.resources.requests")}
    out: dict[str, Decimal] = {}
    for name, value in raw.items():
        try:
            out[name] = parse_quantity(value)
        except BadQuantity as exc:
            raise BadQuantity(f"{where}.resources.requests[{name!r}]: {exc}") from None
    return out


def pod_requests(spec: Any) -> dict[str, float]:
    """The effective requests of a pod spec, as the scheduler computes them: the sum over
    containers, at least each init container's own (they run one at a time, before), plus
    the pod's overhead. In Headroom units (see ``in_headroom_units``)."""
    spec = _mapping(spec, "spec")
    total: dict[str, Decimal] = {}
    for i, c in enumerate(_list(spec.get("containers"), "containers")):
        for name, v in _container_requests(c, f"containers[{i}]").items():
            total[name] = total.get(name, Decimal(0)) + v
    for i, c in enumerate(_list(spec.get("initContainers"), "initContainers")):
        for name, v in _container_requests(c, f"initContainers[{i}]").items():
            total[name] = max(total.get(name, Decimal(0)), v)
    for name, value in _mapping(spec.get("overhead"), "overhead").items():
        total[name] = total.get(name, Decimal(0)) + parse_quantity(value)
    return {name: in_headroom_units(name, v) for name, v in total.items()}


def cores_of(requests: Mapping[str, float], replicas: int) -> int:
    """Whole cores for ``replicas`` pods: moment clusters count integer cores, so a fraction
    is rounded up (three pods of 500m are 2 cores)."""
    return math.ceil(round(requests.get("cpu", 0.0) * replicas, 9))
