"""Best-fit baseline: place an arrival on the tightest server it fits, else reject.

"Best-Fit places the job in the tightest server among the servers that can accommodate it"
(RMS paper §I-A); with several resources "the Best-Fit score for a server can be computed as
... the inner product of the vector of the job's resource requirement and the vector of
server's occupied resource" (RMS paper §VI, RMS-BF). Here both vectors are first divided by
the server's capacity per dimension, so a vCPU and a GB weigh by how much of the server they
are, and heterogeneous pools are scored on the same scale:

    score(s, j) = sum_d  (demand_j[d] / cap_s[d]) * (used_s[d] / cap_s[d])

The feasible server with the highest score wins; ties go to the lowest server number. Scores
are rounded to ``SCORE_DIGITS`` decimals before comparison so that ties are decided by server
number and not by float noise (see ``app.policies.occupancy``). Work-conserving, never
migrates, never reserves.
"""

from __future__ import annotations

from typing import Any

from app.policies.base import Placement
from app.policies.first_fit import FitIndexedEngine
from app.policies.model import ClusterModel
from app.policies.occupancy import SCORE_DIGITS, normalised_demands, occupancy


class BestFit(FitIndexedEngine):
    kind = "best_fit"

    def __init__(self, model: ClusterModel, *args: Any, **kwargs: Any) -> None:
        # Needed by _refresh, which FitIndexedEngine.__init__ already calls for every server.
        self._norm = normalised_demands(model)
        super().__init__(model, *args, **kwargs)

    def score(self, s: int, j: int) -> float:
        """The best-fit score of server s for a type-j job (higher is tighter)."""
        norm = self._norm[self.model.server_pool[s]]
        return self._score(occupancy(self.counts[s], norm), norm[j])

    @staticmethod
    def _score(occ: list[float], norm_demand: tuple[float, ...]) -> float:
        return round(sum(x * u for x, u in zip(norm_demand, occ)), SCORE_DIGITS)

    def _key(self, s: int, j: int) -> float:
        # The heap keeps the smallest key; the tightest server has the largest score.
        return -self.score(s, j)

    def _refresh(self, s: int) -> None:
        # Same as FitIndexedEngine._refresh, but the occupancy is computed once for all types.
        norm = self._norm[self.model.server_pool[s]]
        occ = occupancy(self.counts[s], norm)
        for j, heap in enumerate(self._feasible):
            heap.set(s, -self._score(occ, norm[j]) if self._fits(s, j) else None)

    def _decide(self, j: int) -> Placement:
        placement = super()._decide(j)
        if placement.decision == "placed":
            placement.reason = "tightest_server_that_fits"
            placement.details["score"] = -placement.details["score"] + 0.0  # no "-0.0"
        return placement
