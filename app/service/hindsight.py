"""A reservation stream against the static hindsight oracle so far (THOR paper §II, x*).

The oracle holds one fixed reservation per resource for every period observed so far: the
smallest that would have kept that resource's violations within ε over those periods
(``feasible_quantile``). It needs the whole past, so it is computed from the stream's log on
request — a read of the ``events`` table, never of the engine or under the stream's lock.
Its cost is a lower bound no online policy is expected to reach; the ratio says how far the
stream's own reservations are from it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.errors import ClusterNotFound
from app.policies.thor import feasible_quantile
from app.service.context import ServiceContext
from app.store.models import Cluster, Event


def hindsight(ctx: ServiceContext, stream_id: str) -> dict[str, Any]:
    with ctx.sessions() as session:
        stream = session.get(Cluster, stream_id)
        if stream is None:
            raise ClusterNotFound(f"reservation stream {stream_id!r} does not exist")
        resources = stream.spec["resources"]
        answers = session.scalars(select(Event.response).where(Event.cluster_id == stream_id)
                                  .order_by(Event.seq)).all()
    out = []
    for r in resources:
        name, eps, cost = r["name"], float(r["epsilon"]), float(r["cost"])
        demand = [float(a["demand"][name]) for a in answers]
        reserved = [float(a["reserved"][name]) for a in answers]
        n = len(demand)
        if not n:
            out.append({"name": name, "epsilon": eps, "periods": 0, "oracle_reservation": None,
                        "oracle_cost": None, "policy_cost": 0.0, "cost_ratio": None,
                        "oracle_violation_rate": None, "policy_violation_rate": None})
            continue
        x_star = feasible_quantile(sorted(demand), eps)
        oracle_cost, policy_cost = cost * x_star * n, cost * sum(reserved)
        out.append({
            "name": name, "epsilon": eps, "periods": n, "oracle_reservation": x_star,
            "oracle_cost": oracle_cost, "policy_cost": policy_cost,
            "cost_ratio": policy_cost / oracle_cost if oracle_cost > 0 else None,
            "oracle_violation_rate": sum(d > x_star for d in demand) / n,
            "policy_violation_rate": sum(d > x for d, x in zip(demand, reserved)) / n,
        })
    return {"reservation_id": stream_id, "resources": out}
