"""How the service calibrates a declaration's threshold: the one recipe the background job,
`headroom calibrate moment` and `headroom simulate moment --sla` share, and the key that names
a calibration's inputs, so that a finished one answers every later declaration like it.

A calibration is calibrate.py's binary search on lives of the §2.1 model (common random
numbers: the same seeds for every candidate) at the service's grid, for the declaration's
capacity, τ, kind, population prior, arrival-size evidence and arrival rate, and then a check
of the search's answer on held-out lives: the search picks the largest candidate whose own
lives met τ, which flatters it (scale-out failures come from a few bad lives, and the search
keeps the candidate whose sample happened to hold few), so the answer is run again on lives
the search never saw and stepped down until those lives hold τ at the stated confidence.
The held-out lives are importance-sampled (App. D): spread evenly over buckets of a cheap
badness measure and weighted back, so that the rare lives whose deployments outgrow the
cluster, which hold nearly all of a threshold's failures, are in the sample at all.
Its lives are seeded from ``seed`` and ``held_out_seed`` on, so two processes that run the
same inputs find the same threshold.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from app.policies.moments.formulas import DEFAULT_STEPS

# The paper's load: 1 arrival per hour on 20,000 cores fills ~92% of them under accept-all.
# A cluster that declares no arrival rate is assumed to be loaded like the paper's.
PAPER_CORES_PER_ARRIVAL = 20000.0
# Lives per candidate threshold. 32 three-year lives hold 10^5 to 10^6 scale-outs from 750
# to 5,000 cores, enough for a Jeffreys confidence near 0.99 at τ = 1e-5 when none fails;
# an operator with more cores (a Dask cluster) may ask for more (HEADROOM_CALIBRATION_LIVES).
DEFAULT_LIVES = 32


def default_arrival_rate(capacity: int) -> float:
    return capacity / PAPER_CORES_PER_ARRIVAL


@dataclass(frozen=True)
class Recipe:
    """The simulated lives behind a calibration: `lives` per candidate, `iterations` halvings
    of the search (ρ in log space on [1e-4, 1], t on [0, 1.5c]), `years` per life, the first
    life's `seed`, the grid's `steps`; then `held_out` lives (None: as many as `lives`) from
    `held_out_seed` on, importance-sampled over the badness buckets cut at the `pilot` seeds'
    `held_out_quantiles` (importance.evaluate_is), on which the answer must hold τ at
    `confidence` (importance.confidence_is), else it is multiplied by `step_down`, at most
    `step_downs` times, before the calibration says that no threshold it tried meets τ."""

    lives: int = DEFAULT_LIVES
    iterations: int = 8
    years: float = 3.0
    seed: int = 1000
    steps: int = DEFAULT_STEPS
    held_out: int | None = None
    # Far from `seed` and from the reproduction's fresh seeds (700,000 on).
    held_out_seed: int = 500000
    confidence: float = 0.95
    step_down: float = 0.5
    step_downs: int = 4
    # The top bucket holds the worst 1% of lives by the badness measure: the lives a plain
    # sample of 32 misses more often than not.
    held_out_quantiles: tuple[float, ...] = (0.5, 0.9, 0.99)
    pilot: int = 2000

    @property
    def held_out_lives(self) -> int:
        return self.lives if self.held_out is None else self.held_out

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "held_out": self.held_out_lives,
                "held_out_quantiles": list(self.held_out_quantiles)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Recipe":
        """A stored recipe. One stored before held-out lives were part of it names none: its
        calibration ran (and is run again, for the same key) without them."""
        out = {"held_out": 0, **d}
        if "held_out_quantiles" in out:
            out["held_out_quantiles"] = tuple(out["held_out_quantiles"])
        return cls(**out)


def calibration_inputs(kind: str, capacity: int, sla: float, *, arrival_rate: float | None = None,
                       population_prior: dict[str, Any] | None = None,
                       arrival_size_evidence: bool = False,
                       recipe: Recipe = Recipe()) -> dict[str, Any]:
    """Everything a calibration's result depends on, as JSON: what is hashed into its key."""
    return {
        "kind": kind, "capacity": int(capacity), "sla": float(sla),
        "arrival_rate": float(arrival_rate or default_arrival_rate(capacity)),
        "population_prior": population_prior,
        "arrival_size_evidence": bool(arrival_size_evidence and kind != "threshold"),
        "recipe": recipe.to_dict(),
    }


def calibration_key(inputs: dict[str, Any]) -> str:
    """A calibration's name: the SHA-256 of its inputs' canonical JSON."""
    text = json.dumps(inputs, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
