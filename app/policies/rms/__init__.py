"""Queueing schedulers: RMS (randomized multi-resource scheduling, Psychas & Ghaderi,
IEEE/ACM ToN 2018) and work-conserving greedy baselines. See ``core`` for the interface.

Policy names accepted by ``make_scheduler``:
  best_fit_queue, first_fit_queue, random_fit_queue   greedy baselines (§III)
  rms[_rf|_bf][_ad][_plus]                            Algorithm 1 and the §VI variants;
      _rf/_bf choose the server on a tick by Random-/Best-Fit, _ad makes clock rates adaptive,
      _plus is the paper's "+" (§VII-A.3): dummies replaced by arrivals (Remark 2) and clock
      rates 5x.
Algorithm 2 (distributed queues with JSQ / power-of-two routing) is not implemented.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from app.policies.model import ClusterModel
from app.policies.rms.core import QueueScheduler
from app.policies.rms.errors import BadParameterError
from app.policies.rms.greedy import BestFitQueue, FirstFitQueue, RandomFitQueue
from app.policies.rms.rms import RmsScheduler

GREEDY = {c.kind: c for c in (BestFitQueue, FirstFitQueue, RandomFitQueue)}
_RMS_NAME = re.compile(r"^rms(?:_(rf|bf))?(_ad)?(_plus)?$")


def rms_params(name: str) -> dict[str, Any] | None:
    """Engine parameters implied by an ``rms...`` policy name, or None if not one."""
    m = _RMS_NAME.match(name)
    if not m:
        return None
    params: dict[str, Any] = {"sampling": m.group(1) or "uniform", "adaptive": bool(m.group(2))}
    if m.group(3):
        params["replace_dummies"] = True
        params["clock_rate_factor"] = 5.0
    return params


def make_scheduler(name: str, model: ClusterModel, params: dict[str, Any] | None = None,
                   rng: np.random.Generator | None = None) -> QueueScheduler:
    """Build the scheduler ``name``; ``params`` override what the name implies.
    ``clock_rate_factor`` multiplies ``clock_rate`` (default: #servers per queue)."""
    params = dict(params or {})
    if name in GREEDY:
        return GREEDY[name](model, params, rng)
    implied = rms_params(name)
    if implied is None:
        raise BadParameterError("policy", f"unknown queueing policy {name!r}")
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
    eng = RmsScheduler(model, merged, rng)
    eng.kind = name  # describe() reports the variant's name
    return eng


__all__ = ["QueueScheduler", "RmsScheduler", "BestFitQueue", "FirstFitQueue", "RandomFitQueue",
           "make_scheduler", "rms_params", "GREEDY"]
