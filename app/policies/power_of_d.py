"""Power-of-d-choices baseline (DRA paper §7.2, after Xie et al. 2015).

"Upon an arrival, it picks d servers and attempts to schedule the job arrived in the least
loaded server if it fits." Choices made here:

- *Sampling*: ``min(d, L)`` distinct servers, uniformly at random without replacement from
  ``self.rng``. Without replacement so that no choice is wasted on a repeat and ``d >= L``
  means "look at every server"; in that case the whole cluster is taken without drawing.
- *Load*: the largest fraction of capacity used over the dimensions (the dominant share),
  so that servers of different sizes compare and a server full in any one resource counts as
  full. In one dimension this is plain utilisation, the load of Xie et al.
- *Least loaded*: smallest load among the sampled servers, ties to the lowest server number.
  Loads are recomputed from job counts and rounded (``app.policies.occupancy``).
- *If it fits*: read literally, the job goes to the least loaded sampled server or is
  rejected, even when another sampled server has room. In Xie et al.'s single-resource model
  with equal servers this is the same as "the least loaded sampled server where it fits",
  because the least loaded server has the most room; the two only differ with several
  resources or unequal capacities. That alternative reading is available as
  ``params["only_feasible"] = True``.

O(d) work per arrival (plus O(J*D) per sampled server to compute its load); no index.
Never migrates, never reserves.
"""

from __future__ import annotations

from typing import Any

from app.policies.base import Placement, PlacementEngine
from app.policies.model import ClusterModel
from app.policies.occupancy import SCORE_DIGITS, normalised_demands, occupancy


class PowerOfD(PlacementEngine):
    kind = "power_of_d"
    undoes_removal = True  # no index: its choices are rng draws over the bookkeeping
    default_params = {"d": 5, "only_feasible": False}

    def __init__(self, model: ClusterModel, *args: Any, **kwargs: Any) -> None:
        super().__init__(model, *args, **kwargs)
        d = self.params["d"]
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            raise ValueError(f"power_of_d needs an integer d >= 1, got {d!r}")
        self._norm = normalised_demands(model)

    def load(self, s: int) -> float:
        """Dominant share of server s: max over dimensions of used / capacity."""
        occ = occupancy(self.counts[s], self._norm[self.model.server_pool[s]])
        return round(max(occ, default=0.0), SCORE_DIGITS)

    def _sample(self) -> list[int]:
        L, d = self.model.num_servers, self.params["d"]
        if d >= L:
            return list(range(L))
        return [int(s) for s in self.rng.choice(L, size=d, replace=False)]

    def _decide(self, j: int) -> Placement:
        ids = self.model.server_ids
        loads = {s: self.load(s) for s in self._sample()}
        details: dict[str, Any] = {
            "d": self.params["d"],
            "sampled": [{"server_id": ids[s], "load": x} for s, x in loads.items()],
        }
        candidates = sorted(loads, key=lambda s: (loads[s], s))
        if self.params["only_feasible"]:
            chosen = next((s for s in candidates if self._fits(s, j)), None)
            if chosen is None:
                return Placement("rejected", None, "no_sampled_server_fits", details)
            return Placement("placed", ids[chosen], "least_loaded_sampled_server_that_fits",
                             details)
        if not candidates:  # a cluster with no servers
            return Placement("rejected", None, "no_servers", details)
        chosen = candidates[0]
        details["least_loaded"] = ids[chosen]
        if not self._fits(chosen, j):
            return Placement("rejected", None, "least_loaded_sampled_server_full", details)
        return Placement("placed", ids[chosen], "least_loaded_sampled_server", details)

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["d"] = self.params["d"]
        return out
