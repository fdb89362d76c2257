"""DRA: Dynamic Reservation Algorithm (paper §4, Algorithm 2) as a placement engine.

- Arrival of type j: placed into an Accept-Group server with an empty type-j slot (the
  smallest server number among them), else rejected; CRA reruns after an admission.
- Departure from an Accept-Group server: if migrations are on and RG_j exists (the
  highest-rank Reject-Group server holding a type-j job; ties to the smallest server number),
  its type-j job of smallest id moves into the freed slot, unless the migration budget has no
  token left. CRA reruns after every departure.
- Operator controls (``params``): GPA's input Ŷ refreshed every event, every n events or
  outside a hysteresis band; a token-bucket migration budget on event times; §8's draining
  no-migration mode (every rank-(J+1) server is in the Reject Group).
- Ŷ = Y + g(L)·1 (4.1). Parameters and g(L): ``app.policies.dra.params``.
- DRA+Preemption (§7.2, ``preemption: "rebuild"``, formerly ``true``): when an arrival of priority >= 1 is rejected,
  priority-0 jobs are preempted "the same way [DRA] finds jobs to migrate", i.e. from the
  Reject Group, smallest size first (then highest-rank server, smallest server number,
  smallest job id), until their total size reaches g(L)·s_j or none is left. The arriving job
  stays rejected: the paper preempts on a rejection to rebuild g(L) slots' worth of room for
  the arrivals that follow, not to admit this one (which would need s_j, not g(L)·s_j).
  A job's size is its largest demand as a fraction of server capacity (§7.2 sizes jobs by
  their largest requested resource). CRA then reassigns the servers that emptied.
- ``preemption: "admit"``: a rejected job of priority p >= 1 is admitted on the one server
  where preempting jobs of priority < p (smallest size first, then smallest id) makes it fit
  by resources, choosing the server that loses the least reward (then the fewest jobs,
  Reject-Group servers first, smallest server number). If the server's jobs no longer fit
  its configuration's slots, the server takes its jobs as its configuration (as at
  initialisation) until it empties and CRA reassigns it.
- Server pools: the paper's servers are identical. Pools with equal capacity vectors are one
  DRA system (servers in model order); pools of different capacities raise ValueError.
- Initialization (§4): ``from_placements`` builds the engine from running jobs; a server with
  jobs takes its placement as configuration unless one is given, and an empty server has the
  empty configuration. Within a configuration index 1 is the smallest server number.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

from app.policies.base import Placement, PlacementEngine, Preemption, Reconfiguration, Release
from app.policies.dra.configurations import Config, ConfigurationSpace
from app.policies.dra.cra import CRA
from app.policies.dra.params import DEFAULT_PARAMS, parse_options
from app.policies.model import ClusterModel
from app.policies.server_heap import ServerHeap


class DRAEngine(PlacementEngine):
    """DRA placement engine. Parameters (defaults in brackets; details in ``params``):

    - ``reservation`` [{"b": 0.5}]: g(L) = ln(L)^(1+b), or {"slots": n} / n for a fixed g;
    - ``migrations`` [true]: migrate one job from RG_j after a departure from the AG;
    - ``preemption`` [false]: DRA+Preemption (§7.2).

    Raises ValueError for bad parameters, pools of different servers, or a job type that
    demands no resource.
    """

    kind = "dra"
    default_params = DEFAULT_PARAMS

    def __init__(self, model: ClusterModel, params: dict[str, Any] | None = None,
                 rng: np.random.Generator | None = None, *, _orders: Any = None):
        super().__init__(model, params, rng)
        caps = {p.capacity for p in model.pools}
        if len(caps) > 1:
            raise ValueError("dra needs one server pool: its servers must be identical, but "
                             "pools " + ", ".join(f"{p.name}={list(p.capacity)}"
                                                  for p in model.pools)
                             + " differ in capacity")
        if not model.pools:
            raise ValueError("dra needs one server pool: the cluster declares none")
        self.opts = parse_options(self.params, model.num_servers)
        types = model.job_types
        cap = model.pools[0].capacity
        self.space = ConfigurationSpace([t.demand for t in types], cap, [t.reward for t in types])
        self.size = [max((d / c for d, c in zip(t.demand, cap) if c > 0), default=0.0)
                     for t in types]
        self._names = [t.name for t in types]
        self._ready = False
        L = model.num_servers
        # Ŷ in use (GPA's input; None: not chosen yet) and events since it was refreshed.
        self._y_used: list[float] | None = None
        self._since_refresh = 0
        self.migration_count = self.departure_count = self.skipped_for_budget = 0
        self.preemption_count = 0
        budget = self.opts.budget
        self.now = 0.0  # the last event time (used only by the migration budget)
        self.tokens = budget.burst if budget is not None else 0.0
        self._drained = [False] * L  # off_drain: rank-(J+1) servers outside the index-1 RG
        self._drained_of: dict[int, list[int]] = {}
        if _orders != "defer":
            self._setup({self.space.zero: list(range(L - 1, -1, -1))} if _orders is None
                        else _orders)

    # ---- construction -------------------------------------------------------------------

    def _setup(self, orders: dict[Config, list[int]]) -> list:
        """Build every index from per-configuration server orders, then run CRA."""
        L, J = self.model.num_servers, self.model.num_types
        self.cra = CRA(self.space, L, orders, [not self.on_server[s] for s in range(L)])
        self._free = [ServerHeap() for _ in range(J)]  # AG servers with an empty type-j slot
        self._free_total = [0] * J  # empty type-j slots on all servers
        self._rg_by_type: list[set[int]] = [set() for _ in range(J)]
        # Whole-cluster work is per configuration and per job, not per server and type: a
        # 200,000-server, 64-type cluster would otherwise loop 12.8 million times here.
        cra = self.cra
        for c, k in enumerate(cra.cfgs):
            for j, n in enumerate(k):
                self._free_total[j] += n * len(cra.members[c])
        for j, n in enumerate(self.jobs_per_type):
            self._free_total[j] -= n
        for s in self._occupied():
            k = cra.cfgs[cra.cfg_of[s]]
            for j, n in enumerate(self.counts[s]):
                if n > k[j]:
                    raise ValueError(f"server {self.model.server_ids[s]} holds more "
                                     f"{self._names[j]} jobs than its configuration has slots")
        self._ready = True
        return self._run_cra(full=True)

    def _occupied(self) -> set[int]:
        return {s for s, _ in self.jobs.values()}

    def _indexed_types(self, s: int) -> list[int]:
        """The types whose indexes can hold server s: those its configuration has slots for
        or it holds jobs of. For the others ``_refresh`` only removes s, where it is absent
        after a rebuild."""
        k = self.cra.cfgs[self.cra.cfg_of[s]]
        counts = self.counts[s]
        return [j for j in range(len(k)) if k[j] or counts[j]]

    @property
    def takes_time(self) -> bool:
        """Whether events carry a time (only the migration budget needs one)."""
        return self.opts.budget is not None

    def observe_time(self, t: float) -> None:
        """Refill the migration budget up to event time ``t`` (non-decreasing: the caller
        checks). Deterministic in the event times, so a replay spends the same tokens."""
        b = self.opts.budget
        if b is None or t <= self.now:
            return
        self.tokens = min(b.burst, self.tokens + (t - self.now) * b.rate)
        self.now = t

    @classmethod
    def from_placements(cls, model: ClusterModel, params: dict[str, Any] | None,
                        placements: Iterable[tuple[str, str, str]],
                        configurations: Mapping[str, Mapping[str, int]] | None = None
                        ) -> DRAEngine:
        """Initialize from running jobs ``(job_id, server_id, job_type)`` (paper §4)."""
        engine = cls(model, params, _orders="defer")
        for job_id, server_id, job_type in placements:
            if job_id in engine.jobs:
                raise ValueError(f"job {job_id!r} is placed twice")
            s = model.server_numbers.get(server_id)
            if s is None:
                raise ValueError(f"unknown server {server_id!r}")
            engine._add(job_id, s, model.type_index(job_type))
        given = {model.server_numbers[sid]: tuple(int(cfg.get(n, 0)) for n in engine._names)
                 for sid, cfg in (configurations or {}).items()}
        orders: dict[Config, list[int]] = {}
        for s in range(model.num_servers - 1, -1, -1):  # smallest server number newest
            k = given.get(s, tuple(engine.counts[s]))
            if not engine.space.fits(k):
                raise ValueError(f"server {model.server_ids[s]}: configuration or placement "
                                 f"{dict(zip(engine._names, k))} does not fit its capacity")
            orders.setdefault(k, []).append(s)
        engine._setup(orders)
        return engine

    @classmethod
    def from_state(cls, model: ClusterModel, params: dict[str, Any] | None,
                   state: dict[str, Any]) -> DRAEngine:
        engine = cls(model, params, _orders="defer")
        engine.rng.bit_generator.state = state["rng"]
        for jid, s, j in state["jobs"]:
            engine._add(jid, s, j)
        engine._restore_extra(state["extra"])
        return engine

    def _extra_state(self) -> Any:
        return {"orders": [[list(k), servers] for k, servers in self.cra.orders().items()],
                "y_used": self._y_used, "since_refresh": self._since_refresh,
                "counts": [self.migration_count, self.departure_count,
                           self.skipped_for_budget, self.preemption_count],
                "now": self.now, "tokens": self.tokens}

    def _restore_extra(self, extra: Any) -> None:
        # The saved state is post-CRA against the saved Ŷ and CRA is idempotent, so this
        # reassigns nothing. States saved before the controls existed lack the new keys: Ŷ
        # was then always fresh, and the counters start at the snapshot.
        self._y_used = extra.get("y_used")
        self._since_refresh = extra.get("since_refresh", 0)
        (self.migration_count, self.departure_count, self.skipped_for_budget,
         self.preemption_count) = extra.get("counts", [0, 0, 0, 0])
        self.now = extra.get("now", 0.0)
        self.tokens = extra.get("tokens", self.tokens)
        self._setup({tuple(k): list(servers) for k, servers in extra["orders"]})

    # ---- index maintenance --------------------------------------------------------------

    def _refresh(self, s: int, j: int) -> None:
        cra = self.cra
        rg = cra.rg_of[cra.cfg_of[s]] == s or self._drained[s]
        has = self.counts[s][j]
        self._free[j].set(s, s if not rg and cra.cfgs[cra.cfg_of[s]][j] > has else None)
        if rg and has:
            self._rg_by_type[j].add(s)
        else:
            self._rg_by_type[j].discard(s)

    def _on_added(self, job_id: str, s: int, j: int) -> None:
        if self._ready:
            self._free_total[j] -= 1
            if len(self.on_server[s]) == 1:
                self.cra.mark_occupied(s)
            self._refresh(s, j)

    def _on_removed(self, job_id: str, s: int, j: int) -> None:
        if self._ready:
            self._free_total[j] += 1
            if not self.on_server[s]:
                self.cra.mark_empty(s)
            self._refresh(s, j)

    def _y_hat(self, full: bool) -> list[float]:
        """GPA's input: Ŷ = Y + g(L) when due for a refresh, else the Ŷ in use."""
        g, opts = self.opts.g, self.opts
        fresh = [y + g for y in self.jobs_per_type]
        used = self._y_used
        if used is None:
            due = True
        elif full:
            due = False
        elif opts.refresh_band is not None:
            due = max(abs(a - b) for a, b in zip(fresh, used)) > opts.refresh_band * g
        else:
            due = self._since_refresh >= opts.refresh_every
        if due:
            self._y_used, self._since_refresh = fresh, 0
        return self._y_used  # type: ignore[return-value]

    def _drain(self, configs: Iterable[int]) -> set[int]:
        """off_drain: flag the rank-(J+1) servers of ``configs`` (they take no new job);
        returns the servers whose flag changed. All old flags are cleared before the new
        ones are set, since a server may have moved between two of these configurations."""
        cra, flags, before = self.cra, self._drained, {}
        configs = list(configs)
        for c in configs:
            for s in self._drained_of.pop(c, ()):
                before[s] = True
                flags[s] = False
        for c in configs:
            new = cra.excess(c)
            if new:
                self._drained_of[c] = new
            for s in new:
                before.setdefault(s, flags[s])
                flags[s] = True
        return {s for s, was in before.items() if was != flags[s]}

    def _run_cra(self, full: bool = False) -> list:
        reassigned, changed = self.cra.run(self._y_hat(full), full)
        if self.opts.migrations == "off_drain":
            changed |= self._drain(self.cra.touched)
        cfgs, J = self.cra.cfgs, self.model.num_types
        for s, old, new in reassigned:
            for j in range(J):
                self._free_total[j] += cfgs[new][j] - cfgs[old][j]
            changed.add(s)
        if full:  # after a rebuild: every index starts empty
            zero = self.cra.cid.get(self.space.zero, -1)
            for s in range(self.model.num_servers):
                if self.cra.cfg_of[s] != zero or self.on_server[s]:
                    for j in self._indexed_types(s):
                        self._refresh(s, j)
        for s in changed:
            for j in range(J):
                self._refresh(s, j)
        return [self._reconfiguration(s) for s, _, _ in reassigned]

    # ---- decisions ----------------------------------------------------------------------

    def _decide(self, j: int) -> Placement:
        s = self._free[j].best()
        if s is not None:
            return Placement("placed", self.model.server_ids[s], "placed_in_reserved_slot",
                             self._placed_details(s, j))
        details = self._rejected_details(j)
        reason = ("type_fits_no_server" if not self.space.max_reward_entry(1 << j)[1]
                  else "no_free_slot_in_accept_group")
        preempted: list[Preemption] = []
        mode = self.opts.preemption
        if mode == "admit" and self.model.job_types[j].priority >= 1:
            admitted = self._plan_admission(j)
            if admitted is not None:
                s, preempted = admitted
                details = self._placed_details(s, j)
                details["preempted_reward"] = sum(
                    self.model.job_types[self.jobs[p.job_id][1]].reward for p in preempted)
                return Placement("placed", self.model.server_ids[s], "placed_after_preemption",
                                 details, preempted)
        if mode == "rebuild" and self.model.job_types[j].priority >= 1:
            preempted = self._plan_preemption(j)
            details["preemption_target_size"] = self.opts.g * self.size[j]
            details["preempted_size"] = sum(self.size[self.jobs[p.job_id][1]] for p in preempted)
        return Placement("rejected", None, reason, details, preempted)

    def _plan_preemption(self, j: int) -> list[Preemption]:
        cra, types = self.cra, self.model.job_types
        candidates = []
        for r in cra.rg_servers():
            rank = cra.newest_rank(cra.cfg_of[r])
            for jid in self.on_server[r]:
                t = self.jobs[jid][1]
                if types[t].priority == 0:
                    candidates.append((self.size[t], -rank, r, jid, t))
        candidates.sort()
        goal, total, out = self.opts.g * self.size[j], 0.0, []
        for size, _, r, jid, t in candidates:
            if total >= goal:
                break
            out.append(Preemption(jid, self._names[t], self.model.server_ids[r]))
            total += size
        return out

    def _plan_admission(self, j: int) -> tuple[int, list[Preemption]] | None:
        """``preemption: "admit"``: the server and the lower-priority jobs to preempt there
        so that a type-j job fits, losing the least reward; None if no server can."""
        model, types = self.model, self.model.job_types
        demand, prio = types[j].demand, types[j].priority
        best: tuple[tuple[float, int, int, int], int, list[str]] | None = None
        for s in range(model.num_servers):
            lower = sorted((self.size[t], jid) for jid in self.on_server[s]
                           if types[t := self.jobs[jid][1]].priority < prio)
            if not lower:
                continue
            used, cap, victims, lost = list(self.used[s]), model.capacity(s), [], 0.0
            for _, jid in lower:
                t = self.jobs[jid][1]
                for d, x in enumerate(types[t].demand):
                    used[d] -= x
                victims.append(jid)
                lost += types[t].reward
                if model.fits(used, demand, cap):
                    key = (lost, len(victims), 0 if self.cra.in_rg(s) else 1, s)
                    if best is None or key < best[0]:
                        best = (key, s, victims)
                    break
        if best is None:
            return None
        _, s, victims = best
        sid = model.server_ids[s]
        return s, [Preemption(jid, self._names[self.jobs[jid][1]], sid) for jid in victims]

    def _on_placed(self, job_id: str, s: int, j: int, placement: Placement) -> None:
        self._since_refresh += 1
        if placement.preempted:
            self.preemption_count += len(placement.preempted)
            self._fit_configuration(s)
        placement.reconfigured = self._run_cra()

    def _fit_configuration(self, s: int) -> None:
        """After an admission by preemption: if server s holds more jobs of a type than its
        configuration has slots, its jobs become its configuration (as at initialisation)."""
        cra, J = self.cra, self.model.num_types
        old = cra.cfg_of[s]
        if all(self.counts[s][t] <= cra.cfgs[old][t] for t in range(J)):
            return
        new = cra.config_id(tuple(self.counts[s]))
        cra.reassign(s, new, empty=False)
        for t in range(J):
            self._free_total[t] += cra.cfgs[new][t] - cra.cfgs[old][t]
            self._refresh(s, t)  # the CRA pass that follows reclassifies both configurations

    def _on_rejected(self, j: int, placement: Placement) -> None:
        self._since_refresh += 1
        if placement.preempted:
            self.preemption_count += len(placement.preempted)
            placement.reconfigured = self._run_cra()
        elif self.opts.refresh_every > 1 and self._since_refresh >= self.opts.refresh_every:
            placement.reconfigured = self._run_cra()  # a periodic refresh falls due here

    def _rg_with_type(self, j: int) -> int | None:
        """RG_j: the highest-rank Reject-Group server with a type-j job."""
        cra = self.cra
        return min(self._rg_by_type[j], key=lambda r: (-cra.newest_rank(cra.cfg_of[r]), r),
                   default=None)

    def _on_departed(self, job_id: str, s: int, j: int, release: Release) -> None:
        self.departure_count += 1
        self._since_refresh += 1
        skipped = None
        if self.opts.migrations == "on" and not self.cra.in_rg(s):
            r = self._rg_with_type(j)
            if r is not None and self.opts.budget is not None and self.tokens < 1:
                skipped = "migration_budget"
                self.skipped_for_budget += 1
            elif r is not None:
                moving = min(x for x in self.on_server[r] if self.jobs[x][1] == j)
                release.migration = self._move(moving, s)
                self.migration_count += 1
                if self.opts.budget is not None:
                    self.tokens -= 1
        release.reconfigured = self._run_cra()
        release.details = {"migration_skipped": skipped, **self._migration_tally()}

    def _migration_tally(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "migrations": self.migration_count, "departures": self.departure_count,
            "migrations_per_departure": (self.migration_count / self.departure_count
                                         if self.departure_count else None)}
        if self.opts.budget is not None:
            out["migration_budget_tokens"] = self.tokens
            out["migrations_skipped_for_budget"] = self.skipped_for_budget
        return out

    # What DRA shows users: decision details, ``describe()`` and ``server_view()``.
    # Configurations are shown as {job type name: slots} with zero entries left out (the empty
    # configuration is ``{}``). Ranks follow §4: 1..J for servers counted in GPA's target of
    # their configuration, J+1 for the rest.

    def _config_dict(self, k: tuple[int, ...]) -> dict[str, int]:
        return {self._names[j]: n for j, n in enumerate(k) if n}

    def _reconfiguration(self, s: int) -> Reconfiguration:
        k = self.cra.cfgs[self.cra.cfg_of[s]]
        return Reconfiguration(self.model.server_ids[s], self._config_dict(k))

    def _rejecting(self) -> set[int]:
        """Servers that take no new job: the Reject Group (with off_drain, every rank-(J+1)
        server)."""
        out = set(self.cra.rg_servers())
        for servers in self._drained_of.values():
            out.update(servers)
        return out

    def _free_in_rg(self, j: int) -> int:
        cra = self.cra
        return sum(cra.cfgs[cra.cfg_of[r]][j] - self.counts[r][j] for r in self._rejecting())

    def free_slots_in_accept_group(self, j: int) -> int:
        return self._free_total[j] - self._free_in_rg(j)

    def _placed_details(self, s: int, j: int) -> dict[str, Any]:
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

    def _rejected_details(self, j: int) -> dict[str, Any]:
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

    def describe(self) -> dict[str, Any]:
        out = super().describe()
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
            "preemptions": self.preemption_count,
            "gpa_refresh": self._refresh_view(),
            "migration_tally": self._migration_tally(),
            "configurations": configs,
            "configuration_search": {
                "node_limit": self.space.node_limit,
                "unproved_gpa_positions": [i for i, m in enumerate(cra.gpa_masks, 1)
                                           if not self.space.proved(m)]},
            "free_slots_in_accept_group": {self._names[j]: self.free_slots_in_accept_group(j)
                                           for j in range(J)},
        })
        return out

    def _refresh_view(self) -> dict[str, Any]:
        opts = self.opts
        out: dict[str, Any] = {"y_hat_in_use": dict(zip(self._names, self._y_used or []))}
        if opts.refresh_band is not None:
            out["band"] = opts.refresh_band
        elif opts.refresh_every > 1:
            out.update({"every_events": opts.refresh_every,
                        "events_since_refresh": self._since_refresh})
        return out

    def server_view(self, server_id: str) -> dict[str, Any]:
        out = super().server_view(server_id)
        s = self.model.server_numbers[server_id]
        cra = self.cra
        out.update({
            "configuration": self._config_dict(cra.cfgs[cra.cfg_of[s]]),
            "rank": cra.rank(s),
            "index": cra.members[cra.cfg_of[s]].index(s),
            "group": "reject" if cra.in_rg(s) or self._drained[s] else "accept",
        })
        return out
