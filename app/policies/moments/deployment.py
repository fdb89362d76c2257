"""One deployment's state inside the engine: cores, base prior, observed statistics."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.policies.moments.priors import Prior, Stats


@dataclass
class Deployment:
    id: str
    cores: int
    born: float
    last: float  # time its statistics were last brought up to date
    prior: Prior
    stats: Stats = field(default_factory=Stats)
    category: str | None = None
    alive: bool = True
    dirty: bool = True
    # (cores, stats, prior) the cached moments were computed from, so from_state can rebuild
    # the cache (the prior too: a learnt population prior replaces it before the recompute).
    cached_inputs: tuple[int, Stats, Prior] | None = None
    # Its base prior is the cluster's population prior (no declared Gamma, no category prior):
    # it follows the learnt one (learning.py) and is evidence for it.
    population: bool = False
    # The largest expected cores over the grid in its cached moments, taken when a scale-out
    # first asks after they were stored (None: not yet); never persisted.
    peak: float | None = None

    def advance(self, at: float) -> None:
        """Add exposure since `last`: core-hours, hours alive, hours of scale-out counting."""
        dt = at - self.last
        if dt > 0 and self.alive:
            self.stats.core_time += self.cores * dt
            self.stats.age_time += dt
            self.stats.scaleout_time += dt
        self.last = at
