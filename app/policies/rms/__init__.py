"""Queueing schedulers: RMS (randomized multi-resource scheduling, Psychas & Ghaderi,
IEEE/ACM ToN 2018) and work-conserving greedy baselines. See ``core`` for the interface.

Policy names accepted by ``make_scheduler``:
  best_fit_queue, first_fit_queue, random_fit_queue   greedy baselines (§III)
  rms[_rf|_bf][_ad][_plus]                            Algorithm 1 and the §VI variants;
      _rf/_bf choose the server on a tick by Random-/Best-Fit, _ad makes clock rates adaptive,
      _plus is the paper's "+" (§VII-A.3): dummies replaced by arrivals (Remark 2) and clock
      rates 5x.
  rms_jsq[_plus], rms_po2[_plus]                      Algorithm 2 (§IV-B, ``distributed``): a
      queue per server and type, arrivals routed by JSQ or power-of-two choices (Remark 4);
      _plus is Remark 3's dummy replacement with clock rates 5x, as for Algorithm 1.
The parameter ``routing`` (central | jsq | po2; None = the name's) overrides the name's
queueing scheme, so ``rms`` with ``routing="jsq"`` is Algorithm 2 too. ``is_queue_policy``
says which names exist.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from app.policies.model import ClusterModel
from app.policies.rms.core import QueueScheduler
from app.policies.rms.distributed import ROUTINGS, DistributedRmsScheduler
from app.policies.rms.errors import BadParameterError
from app.policies.rms.greedy import BestFitQueue, FirstFitQueue, RandomFitQueue
from app.policies.rms.rms import RmsScheduler

GREEDY = {c.kind: c for c in (BestFitQueue, FirstFitQueue, RandomFitQueue)}
_RMS_NAME = re.compile(r"^rms(?:_(rf|bf))?(_ad)?(_plus)?$")
_DISTRIBUTED_NAME = re.compile(r"^rms_(jsq|po2)(_plus)?$")
_PLUS = {"replace_dummies": True, "clock_rate_factor": 5.0}


def rms_params(name: str) -> dict[str, Any] | None:
    """Engine parameters implied by an ``rms...`` policy name, or None if not one."""
    if not isinstance(name, str):
        return None
    m = _DISTRIBUTED_NAME.match(name)
    if m:
        return {"routing": m.group(1), **(_PLUS if m.group(2) else {})}
    m = _RMS_NAME.match(name)
    if not m:
        return None
    params: dict[str, Any] = {"sampling": m.group(1) or "uniform", "adaptive": bool(m.group(2))}
    if m.group(3):
        params.update(_PLUS)
    return params


def is_queue_policy(name: object) -> bool:
    """True exactly for the names ``make_scheduler`` accepts."""
    return isinstance(name, str) and (name in GREEDY or rms_params(name) is not None)


def make_scheduler(name: str, model: ClusterModel, params: dict[str, Any] | None = None,
                   rng: np.random.Generator | None = None) -> QueueScheduler:
    """Build the scheduler ``name``; ``params`` override what the name implies.
    ``clock_rate_factor`` multiplies ``clock_rate``: r_j, the total clock rate of type j's
    queue(s), default #servers (Algorithm 2 splits it evenly over the servers' queues)."""
    params = dict(params or {})
    if name in GREEDY:
        return GREEDY[name](model, params, rng)
    implied = rms_params(name)
    if implied is None:
        raise BadParameterError("policy", f"unknown queueing policy {name!r}")
    if params.get("routing", "") is None:  # None = not given, as for clock_rate
        del params["routing"]
    merged = {**implied, **params}
    factor = merged.pop("clock_rate_factor", 1.0)
    rate = merged.get("clock_rate")
    if rate is None:
        rate = float(model.num_servers)
    if isinstance(rate, dict):
        rate = {k: v * factor for k, v in rate.items()}
    elif isinstance(rate, (int, float)) and not isinstance(rate, bool):
        rate = rate * factor
    merged["clock_rate"] = rate
    routing = merged.pop("routing", "central")
    if routing == "central":
        eng: RmsScheduler = RmsScheduler(model, merged, rng)
    elif routing in ROUTINGS:
        # clock_rate stays the per-type total r_j; the engine splits it r_j^l = r_j / L.
        eng = DistributedRmsScheduler(model, {**merged, "routing": routing}, rng)
    else:
        raise BadParameterError("routing", f"must be one of central, {', '.join(ROUTINGS)}")
    eng.kind = name  # describe() reports the variant's name
    return eng


__all__ = ["QueueScheduler", "RmsScheduler", "DistributedRmsScheduler", "BestFitQueue",
           "FirstFitQueue", "RandomFitQueue", "make_scheduler", "rms_params", "is_queue_policy",
           "GREEDY"]
