"""Classification and Reassignment Algorithm (paper §4, Algorithm 2's CRA, Figure 1).

The text is followed, not the pseudo-code's loop (which decrements c before using it):
after GPA returns (k[i], X̂_i), i = 1..J, every server starts at rank J+1 and, in order,
- if X_{k[i]} < X̂_i, empty rank-(J+1) servers ℓ_e are reassigned to k[i] (each becomes its
  index 1) until X = X̂ or none is left, and all servers of k[i] get rank i;
- otherwise the servers of k[i] with index > X − X̂ (the X̂ oldest) get rank i.
I* is the first i whose deficit could not be filled (J if none). The Reject Group is the set
of index-1 servers whose rank exceeds I*; everything else is the Accept Group. By the letter
of the text this includes the index-1 server of the empty configuration (never in GPA's
output, so rank J+1); it has neither jobs nor slots, so its group changes no decision.

Nothing here stores a rank per server. A server's rank follows from its configuration's GPA
position and X − X̂ boundary, and only an index-1 server can be in the Reject Group, so an
event costs O(J) configuration updates plus O(log X) per reassignment, whatever L is.

"Any ℓ_e" is made deterministic. Candidates are, per configuration other than k[i], its most
recently assigned empty server provided it has rank J+1 at that moment: any such server of a
configuration not in GPA's output or not yet processed, and for an already processed
configuration only one in its excess (index <= X − X̂). Among them the pick is, in order:
configurations outside GPA's output (smallest server number), then processed ones, then
unprocessed ones (both from the lowest GPA priority up). Once a deficit cannot be filled no
later one can (the candidate set only shrinks during a pass), so the search stops there.
"""

from __future__ import annotations

from typing import Sequence

from app.policies.dra.configurations import Config, ConfigurationSpace
from app.policies.dra.gpa import gpa
from app.policies.dra.recency import RecencyList
from app.policies.server_heap import ServerHeap


class CRA:
    def __init__(self, space: ConfigurationSpace, num_servers: int,
                 orders: dict[Config, list[int]], empty: Sequence[bool]):
        self.space = space
        self.L = num_servers
        self.J = space.J
        self.cfgs: list[Config] = []
        self.cid: dict[Config, int] = {}
        self.members: list[RecencyList] = []
        self.empties: list[ServerHeap] = []  # key -stamp: best() is the most recent empty
        self.pos: list[int] = []  # GPA position i (1-based) or 0 when not in GPA's output
        self.target: list[int] = []  # X̂ (0 when not in GPA's output)
        self.rg_of: list[int] = []  # the configuration's Reject-Group server, or -1
        self.with_empty: set[int] = set()
        self.cfg_of = [-1] * num_servers
        self.stamp = [0] * num_servers
        self.clock = 0
        self.gpa_cids: list[int] = []
        self.gpa_masks: list[int] = []
        self.istar = self.J
        self.dirty: set[int] = set()  # configurations changed outside a pass (see reassign)
        for k in sorted(orders, key=space.order_key, reverse=True):
            c = self.config_id(k)
            for s in orders[k]:
                self.clock += 1
                self.stamp[s] = self.clock
                self.cfg_of[s] = c
                if empty[s]:
                    self.empties[c].set(s, -self.clock)
            self.members[c] = RecencyList(list(orders[k]))
            if len(self.empties[c]):
                self.with_empty.add(c)
        if -1 in self.cfg_of:
            raise ValueError("every server needs a configuration")

    def config_id(self, k: Config) -> int:
        c = self.cid.get(k)
        if c is None:
            c = len(self.cfgs)
            self.cid[k] = c
            self.cfgs.append(k)
            self.members.append(RecencyList())
            self.empties.append(ServerHeap())
            self.pos.append(0)
            self.target.append(0)
            self.rg_of.append(-1)
        return c

    # ---- emptiness, reported by the engine ----------------------------------------------

    def mark_empty(self, s: int) -> None:
        c = self.cfg_of[s]
        self.empties[c].set(s, -self.stamp[s])
        self.with_empty.add(c)

    def mark_occupied(self, s: int) -> None:
        c = self.cfg_of[s]
        heap = self.empties[c]
        heap.set(s, None)
        if not len(heap):
            self.with_empty.discard(c)

    # ---- ranks and groups ---------------------------------------------------------------

    def in_rg(self, s: int) -> bool:
        return self.rg_of[self.cfg_of[s]] == s

    def rank(self, s: int) -> int:
        c = self.cfg_of[s]
        p = self.pos[c]
        if not p:
            return self.J + 1
        mem = self.members[c]
        return p if mem.index(s) > len(mem) - self.target[c] else self.J + 1

    def newest_rank(self, c: int) -> int:
        """Rank of configuration c's index-1 server: i only if X <= X̂ (no excess)."""
        p = self.pos[c]
        return p if p and len(self.members[c]) <= self.target[c] else self.J + 1

    def rg_servers(self) -> list[int]:
        return [s for s in self.rg_of if s >= 0]

    # ---- the CRA pass -------------------------------------------------------------------

    def run(self, y_hat: Sequence[float], full: bool = False
            ) -> tuple[list[tuple[int, int, int]], set[int]]:
        """One CRA pass. Returns the reassignments (server, old cid, new cid) and every server
        whose Reject-Group membership may have changed. Only configurations whose group can
        change are reclassified (those in GPA's old or new output, and those that lost a
        server), unless ``full`` (after a rebuild)."""
        masks: list[int] = []
        plan = gpa(self.space, y_hat, self.L, masks)
        self.gpa_masks = masks  # the type subset behind each GPA configuration
        pos, target = self.pos, self.target
        touched = set(self.gpa_cids) | self.dirty
        self.dirty = set()
        for c in self.gpa_cids:
            pos[c] = target[c] = 0
        order = [self.config_id(k) for k, _ in plan]
        for i, (c, (_, x)) in enumerate(zip(order, plan), 1):
            pos[c] = i
            target[c] = x
        touched.update(order)
        self.gpa_cids = order
        istar = self.J
        reassigned: list[tuple[int, int, int]] = []
        for i, c in enumerate(order, 1):
            deficit = target[c] - len(self.members[c])
            while deficit > 0:
                s = self._pick_empty(i, c) if istar == self.J else -1
                if s < 0:
                    istar = min(istar, i)
                    break
                old = self.cfg_of[s]
                self.reassign(s, c)
                reassigned.append((s, old, c))
                touched.add(old)
                deficit -= 1
        self.istar = istar
        self.touched = touched  # configurations whose ranks may have changed (see engine)
        if full:
            touched.update(range(len(self.cfgs)))
        changed: set[int] = set()
        for c in touched:
            before = self.rg_of[c]
            self._classify(c)
            if self.rg_of[c] != before:
                changed.add(before)
                changed.add(self.rg_of[c])
        changed.discard(-1)
        return reassigned, changed

    def _pick_empty(self, i: int, current: int) -> int:
        best_key: tuple[int, int, int] | None = None
        for c in self.with_empty:
            if c == current:
                continue
            s = self.empties[c].best()
            p = self.pos[c]
            if not p:
                key = (0, 0, s)
            elif p < i:
                mem = self.members[c]
                excess = len(mem) - self.target[c]
                if excess <= 0 or mem.index(s) > excess:
                    continue
                key = (1, -p, s)
            else:
                key = (2, -p, s)
            if best_key is None or key < best_key:
                best_key = key
        return -1 if best_key is None else best_key[2]

    def reassign(self, s: int, c: int, empty: bool = True) -> None:
        """Move server s (empty, unless preemption admitted a job there) to configuration c
        as its index 1."""
        old = self.cfg_of[s]
        self.members[old].remove(s)
        self.mark_occupied(s)  # leaves old's empty heap
        self.clock += 1
        self.stamp[s] = self.clock
        self.cfg_of[s] = c
        self.members[c].push(s)
        if empty:
            self.mark_empty(s)
        else:  # outside a pass: the next pass must reclassify both configurations
            self.dirty.update((old, c))

    def excess(self, c: int) -> list[int]:
        """Configuration c's rank-(J+1) servers: all of them outside GPA's output, else its
        X − X̂ most recent (§4)."""
        mem = self.members[c]
        n = len(mem) if not self.pos[c] else len(mem) - self.target[c]
        return mem.newest_n(n) if n > 0 else []

    def _classify(self, c: int) -> None:
        s = self.members[c].newest()
        self.rg_of[c] = s if s is not None and self.newest_rank(c) > self.istar else -1

    def orders(self) -> dict[Config, list[int]]:
        """Servers per configuration, oldest first, in Definition 2 order (the persistent state)."""
        live = [c for c, m in enumerate(self.members) if len(m)]
        live.sort(key=lambda c: self.space.order_key(self.cfgs[c]), reverse=True)
        return {self.cfgs[c]: self.members[c].oldest_first() for c in live}
