"""A moment engine's state as JSON and back: ``from_state(to_state())`` makes bit-identical
future decisions. The totals are stored verbatim so that a restored engine subtracts the
same cached moments from the same sums; the caches are rebuilt from the inputs they were
computed from. A mixin of MomentEngine."""

from __future__ import annotations

from collections import deque
from typing import Any, Self

import numpy as np

from app.policies.moments.deployment import Deployment
from app.policies.moments.formulas import Grid
from app.policies.moments.kernel import COMPILED, ROUNDING, MomentKernel
from app.policies.moments.learning import PopulationLearner
from app.policies.moments.options import MomentOptions
from app.policies.moments.priors import Prior, Stats, posterior
from app.policies.moments.sla import GrowthLadder, SlaLoop


class Snapshots:
    """MomentEngine's to_state() and from_state()."""

    def to_state(self) -> dict[str, Any]:
        return {
            "version": 1,
            "kernel": ROUNDING,
            "config": {
                "capacity": self.capacity,
                "policy": self.policy,
                "threshold": self.threshold,
                "marginal": self.marginal,
                "horizons": list(self.grid.horizons),
                "steps": self.grid.steps,
                "population": self.population.to_dict(),
                "delta": self.delta,
                "nu": self.nu,
                "refresh_per_admit": self.refresh_per_admit,
                "arrival_size_evidence": self.arrival_size_evidence,
                "overflow_sd": self.overflow_sd,
                # Only where set: the states of clusters that never calibrated stay as they were.
                **({} if self.gate is None else {"gate": self.gate}),
            },
            **({} if self.calibration is None else {"calibration": self.calibration}),
            "loop": None if self.loop is None else self.loop.to_dict(),
            "ladder": None if self.ladder is None else self.ladder.to_dict(),
            "learner": None if self.learner is None else self.learner.to_dict(),
            "reprior": list(self._reprior),
            "now": self.now,
            "active": self.active,
            "counters": [self.requests, self.denied, self.admitted, self.rejected, self._updates],
            "deployments": [
                {
                    "id": d.id, "cores": d.cores, "born": d.born, "last": d.last, "prior": d.prior.to_dict(),
                    "stats": d.stats.to_dict(), "category": d.category, "alive": d.alive, "dirty": d.dirty,
                    # The cached prior only where a learnt one replaced it since.
                    "cached": None if d.cached_inputs is None else [
                        d.cached_inputs[0], d.cached_inputs[1].to_dict(),
                        *([] if d.cached_inputs[2] == d.prior else [d.cached_inputs[2].to_dict()])],
                    "population": d.population,
                }
                for d in self.deployments.values()
            ],
            "categories": {k: list(v) for k, v in self.categories.items()},
            "dirty": list(self._dirty),
            "rotation": list(self._rotation),
            "totals": [self._tot_e.tolist(), self._tot_v.tolist()],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any], kernel: MomentKernel = COMPILED) -> Self:
        c = state["config"]
        eng = cls(MomentOptions(
            c["capacity"], c["policy"], c["threshold"], c["marginal"],
            Grid(tuple(c["horizons"]), c["steps"]), Prior.from_dict(c["population"]),
            c["delta"], c["nu"], c["refresh_per_admit"],
            # States from before the option: arrivals were never evidence.
            arrival_size_evidence=c.get("arrival_size_evidence", False),
            # States from before the option: the line was E's.
            overflow_sd=c.get("overflow_sd", 0.0),
            # States from before calibrations: no gate.
            gate=c.get("gate")), kernel)
        eng.calibration = state.get("calibration")
        # The controllers as they stood, not as declared (states from before the ladder
        # have none).
        eng.loop = None if state.get("loop") is None else SlaLoop.from_dict(state["loop"])
        eng.learner = None if state.get("learner") is None else PopulationLearner.from_dict(
            state["learner"])
        eng.ladder = None if state.get("ladder") is None else GrowthLadder.from_dict(
            state["ladder"])
        eng._reprior = deque(state.get("reprior", ()))
        eng.now = state["now"]
        eng.active = state["active"]
        eng.requests, eng.denied, eng.admitted, eng.rejected, eng._updates = state["counters"]
        for row in state["deployments"]:
            d = Deployment(
                row["id"], row["cores"], row["born"], row["last"], Prior.from_dict(row["prior"]),
                Stats.from_dict(row["stats"]), row["category"], row["alive"], row["dirty"],
                population=row.get("population", False),
            )
            eng.deployments[d.id] = d
            if row["cached"] is not None:
                # Moments are a pure function of (cores, prior, stats): rebuild the cache from
                # the inputs it was computed from, bit for bit, without touching the totals.
                # States from before the learner hold no prior here: it was the deployment's.
                cores, stats = row["cached"][0], Stats.from_dict(row["cached"][1])
                base = Prior.from_dict(row["cached"][2]) if len(row["cached"]) > 2 else d.prior
                d.cached_inputs = (cores, stats, base)
                eng._cache[d.id] = eng.kernel.moments(cores, posterior(base, stats, eng.delta, eng.nu), eng.grid, eng._variance)
        eng.categories = {k: deque(v) for k, v in state["categories"].items()}
        eng._dirty = dict.fromkeys(state["dirty"])
        eng._rotation = deque(state["rotation"])
        eng._tot_e = np.array(state["totals"][0], dtype=float).reshape(eng.grid.shape)
        eng._tot_v = np.array(state["totals"][1], dtype=float).reshape(eng.grid.shape)
        if state.get("kernel", ROUNDING) != ROUNDING:
            # Saved by a kernel that rounds differently: the caches above are this kernel's,
            # and totals that still hold the other's would carry the difference until the
            # next re-sum. (A state without a stamp is from before it: kept verbatim, as then.)
            eng._resum()
        return eng
