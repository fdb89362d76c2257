"""What DRA shows users: decision details, ``describe()`` and ``server_view()``.

Configurations are shown as {job type name: slots} with zero entries left out (the empty
configuration is ``{}``). Ranks follow §4: 1..J for servers counted in GPA's target of their
configuration, J+1 for the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.policies.base import Reconfiguration

if TYPE_CHECKING:
    from app.policies.dra.engine import DRAEngine


class DRAViews:
    """Mixin for ``DRAEngine``: read-only reports, no decisions."""

    def _config_dict(self: DRAEngine, k: tuple[int, ...]) -> dict[str, int]:
        return {self._names[j]: n for j, n in enumerate(k) if n}

    def _reconfiguration(self: DRAEngine, s: int) -> Reconfiguration:
        k = self.cra.cfgs[self.cra.cfg_of[s]]
        return Reconfiguration(self.model.server_ids[s], self._config_dict(k))

    def _free_in_rg(self: DRAEngine, j: int) -> int:
        cra = self.cra
        return sum(cra.cfgs[cra.cfg_of[r]][j] - self.counts[r][j] for r in cra.rg_servers())

    def free_slots_in_accept_group(self: DRAEngine, j: int) -> int:
        return self._free_total[j] - self._free_in_rg(j)

    def _placed_details(self: DRAEngine, s: int, j: int) -> dict[str, Any]:
        cra = self.cra
        c = cra.cfg_of[s]
        return {
            "configuration": self._config_dict(cra.cfgs[c]),
            "rank": cra.rank(s),
            "free_slots_in_accept_group": self.free_slots_in_accept_group(j),
            "gpa_target_servers": cra.target[c],
            "servers_in_configuration": len(cra.members[c]),
            "g": self.opts.g,
            "jobs_of_type": self.jobs_per_type[j],
        }

    def _rejected_details(self: DRAEngine, j: int) -> dict[str, Any]:
        cra = self.cra
        with_j = [{"configuration": self._config_dict(cra.cfgs[c]), "rank": cra.pos[c],
                   "gpa_target_servers": cra.target[c],
                   "servers_in_configuration": len(cra.members[c])}
                  for c in cra.gpa_cids if cra.cfgs[c][j]]
        return {
            "free_slots_in_accept_group": self.free_slots_in_accept_group(j),
            "free_slots_in_reject_group": self._free_in_rg(j),
            "g": self.opts.g,
            "jobs_of_type": self.jobs_per_type[j],
            "istar": cra.istar,
            "gpa_configurations_with_type": with_j,
        }

    def describe(self: DRAEngine) -> dict[str, Any]:
        out = super().describe()  # type: ignore[misc]
        cra, J = self.cra, self.model.num_types
        shown = [c for c in range(len(cra.cfgs)) if len(cra.members[c]) or cra.pos[c]]
        shown.sort(key=lambda c: self.space.order_key(cra.cfgs[c]), reverse=True)
        configs = []
        for c in shown:
            rg = 1 if cra.rg_of[c] >= 0 else 0
            configs.append({
                "configuration": self._config_dict(cra.cfgs[c]),
                "reward": self.space.reward(cra.cfgs[c]),
                "gpa_position": cra.pos[c] or None,
                "rank": cra.pos[c] or J + 1,
                "gpa_target_servers": cra.target[c],
                "servers": len(cra.members[c]),
                "accept_group": len(cra.members[c]) - rg,
                "reject_group": rg,
            })
        out.update({
            "g": self.opts.g,
            "istar": cra.istar,
            "migrations": self.opts.migrations,
            "preemption": self.opts.preemption,
            "configurations": configs,
            "free_slots_in_accept_group": {self._names[j]: self.free_slots_in_accept_group(j)
                                           for j in range(J)},
        })
        return out

    def server_view(self: DRAEngine, server_id: str) -> dict[str, Any]:
        out = super().server_view(server_id)  # type: ignore[misc]
        s = self.model.server_numbers[server_id]
        cra = self.cra
        out.update({
            "configuration": self._config_dict(cra.cfgs[cra.cfg_of[s]]),
            "rank": cra.rank(s),
            "index": cra.members[cra.cfg_of[s]].index(s),
            "group": "reject" if cra.in_rg(s) else "accept",
        })
        return out
