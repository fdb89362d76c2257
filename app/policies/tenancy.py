"""Tenants' quotas on a cluster: nominal quota, borrowing within a cohort, lending limits,
and the order in which a quota is reclaimed by preemption.

Pure bookkeeping, the same for every family: a family's adapter asks ``shortfall`` before its
engine decides an arrival and records what the engine placed (``hold``) or let go
(``release``). Vectors are ordered like the cluster's ``resources``.

The rules (docs/tenants.md states them for users; the model is Kueue's ClusterQueue cohorts):

- A tenant's usage is what its running jobs demand. It may use its ``nominal`` quota, plus what
  it borrows from its cohort, up to ``borrowing_limit`` (no limit when none is given).
- Of a tenant's nominal quota, ``lending_limit`` (all of it when none is given) is lent to the
  cohort while unused; the rest, ``nominal - lending_limit``, is its own whatever happens.
- The cohort's pool is the sum of its tenants' lendable quota; a tenant draws on it for what
  it uses beyond its own part. An arrival is admitted by quota when, for every resource, its
  tenant stays within nominal + borrowing limit and the cohort's draws stay within the pool.
  A tenant of no cohort has its nominal quota and nothing more.
- Reclaim: an arrival that keeps its tenant within nominal may preempt the jobs of tenants of
  its cohort that borrow (use more than their nominal), and a tenant's job may preempt its own
  jobs of lower priority. Candidates are tried lowest priority first, then newest first
  (Kueue's and Borg's order: what was least important and has run least is lost first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.errors import REFUSED
from app.policies.errors import PolicyError

EPS = 1e-9  # sums of float demands against quotas, as model.FIT_TOLERANCE


class UnknownTenant(PolicyError):
    code = "unknown_tenant"
    field = "tenant"

    def __init__(self, name: object):
        super().__init__(f"tenant {name!r} is not declared by this cluster")


class TenantRefused(PolicyError):
    """No tenant where the cluster declares tenants, or one where it declares none."""

    code = "validation_error"
    title = REFUSED
    field = "tenant"

    def __init__(self, detail: str = "required: this cluster declares tenants"):
        super().__init__(f"tenant: {detail}")


class QuotaGenerationMismatch(PolicyError):
    code = "precondition_failed"
    field = "generation"

    def __init__(self, given: int, current: int):
        super().__init__(f"generation {given} is not the quotas' current generation "
                         f"({current}); read the cluster's state and send it again")


class TenantsRefused(PolicyError):
    """Tenants whose vectors do not name the cluster's resources, or whose limits contradict."""

    code = "validation_error"
    title = REFUSED


def tenant_errors(tenants: Sequence[Mapping[str, Any]], resources: Sequence[str],
                  field: str = "tenants") -> list[dict[str, str]]:
    """What is wrong with tenants as declared (the API checked each field's type and range):
    each error names its field."""
    errors: list[dict[str, str]] = []
    names = [t["name"] for t in tenants]
    if len(set(names)) != len(names):
        errors.append({"field": field, "message": "tenant names must be unique"})
    dims = set(resources)
    for i, t in enumerate(tenants):
        for label in ("nominal", "borrowing_limit", "lending_limit"):
            vec = t.get(label)
            if vec is None:
                continue
            missing, extra = dims - set(vec), set(vec) - dims
            if missing:
                errors.append({"field": f"{field}[{i}].{label}",
                               "message": f"missing dimensions {sorted(missing)}"})
            if extra:
                errors.append({"field": f"{field}[{i}].{label}",
                               "message": f"unknown dimensions {sorted(extra)}"})
        lend, nominal = t.get("lending_limit"), t["nominal"]
        if lend is not None and any(x > nominal.get(d, 0) for d, x in lend.items()):
            errors.append({"field": f"{field}[{i}].lending_limit",
                           "message": "a tenant lends at most its nominal quota"})
        if t.get("cohort") is None and (t.get("borrowing_limit") is not None or lend is not None):
            errors.append({"field": f"{field}[{i}].cohort", "message":
                           "borrowing and lending limits need a cohort to borrow from"})
    return errors


@dataclass(frozen=True)
class Tenant:
    name: str
    nominal: tuple[float, ...]
    borrowing_limit: tuple[float, ...] | None
    lending_limit: tuple[float, ...] | None
    weight: float
    cohort: str | None
    reclaim: bool
    within_tenant: bool
    own: tuple[float, ...]  # what it never lends: nominal less its lending limit


@dataclass(frozen=True)
class Holding:
    """A running job's claim on its tenant's quota."""

    tenant: str
    priority: int
    seq: int  # arrival order: a larger seq is newer
    demand: tuple[float, ...]


def _vec(d: Mapping[str, float] | None, resources: Sequence[str]) -> tuple[float, ...] | None:
    return None if d is None else tuple(float(d[r]) for r in resources)


def tenant_of(d: Mapping[str, Any], resources: Sequence[str]) -> Tenant:
    """A tenant as a declaration or a quota change gives it (the API checked its fields)."""
    preemption = d.get("preemption") or {}
    nominal = _vec(d["nominal"], resources)
    assert nominal is not None
    lending = _vec(d.get("lending_limit"), resources)
    own = (0.0,) * len(nominal) if lending is None else \
        tuple(max(0.0, n - lend) for n, lend in zip(nominal, lending))
    return Tenant(d["name"], nominal, _vec(d.get("borrowing_limit"), resources), lending,
                  float(d.get("weight", 1.0)), d.get("cohort"),
                  bool(preemption.get("reclaim", True)),
                  bool(preemption.get("within_tenant", True)), own)


def _round(v: Iterable[float]) -> list[float]:
    return [round(x, 9) + 0.0 for x in v]


class Quotas:
    """The tenants of one cluster, what each uses, and which job holds what."""

    def __init__(self, resources: Sequence[str], tenants: Iterable[Mapping[str, Any]],
                 generation: int = 1):
        self.resources = tuple(resources)
        self.generation = generation
        self.tenants: dict[str, Tenant] = {}
        self.usage: dict[str, list[float]] = {}
        self.holders: dict[str, Holding] = {}
        self.preempted: dict[str, int] = {}
        self.refused: dict[str, int] = {}
        self.seq = 0
        self._set(tenants)

    def _set(self, tenants: Iterable[Mapping[str, Any]]) -> None:
        self.tenants = {t["name"]: tenant_of(t, self.resources) for t in tenants}
        zero = [0.0] * len(self.resources)
        held = {h.tenant for h in self.holders.values()}  # a removed tenant's jobs still run
        self.usage = {name: list(self.usage.get(name, zero))
                      for name in sorted(set(self.tenants) | held)}
        self._cohorts: dict[str, list[str]] = {}
        for t in self.tenants.values():
            if t.cohort is not None:
                self._cohorts.setdefault(t.cohort, []).append(t.name)
        # Each cohort's pool (what its tenants lend), and what its tenants draw on it, kept
        # up to date by hold and release rather than summed over the tenants per arrival.
        R = len(self.resources)
        self._pool_of: dict[str, list[float]] = {}
        self._drawn: dict[str, list[float]] = {}
        for cohort, names in self._cohorts.items():
            pool, drawn = [0.0] * R, [0.0] * R
            for name in names:
                t, u = self.tenants[name], self.usage[name]
                for r in range(R):
                    pool[r] += t.nominal[r] - t.own[r]
                    drawn[r] += max(0.0, u[r] - t.own[r])
            self._pool_of[cohort], self._drawn[cohort] = pool, drawn

    def replace(self, tenants: Iterable[Mapping[str, Any]], generation: int) -> None:
        """An admin's quota change: the tenants as given, from the next decision on. Running
        jobs keep running (a tenant over its new quota takes nothing more until under it)."""
        tenants = list(tenants)
        errors = tenant_errors(tenants, self.resources)
        if errors:
            raise TenantsRefused("; ".join(f"{e['field']}: {e['message']}" for e in errors),
                                 errors=errors)
        if generation != self.generation:
            raise QuotaGenerationMismatch(generation, self.generation)
        self._set(tenants)
        self.generation += 1

    # ---- what a tenant may take ----------------------------------------------------------

    def tenant(self, name: str | None) -> Tenant:
        if name is None:
            raise TenantRefused()
        t = self.tenants.get(name)
        if t is None:
            raise UnknownTenant(name)
        return t

    def _pool(self, cohort: str) -> tuple[list[float], list[float]]:
        """The cohort's pool (its tenants' lendable quota) and what its tenants draw on it."""
        return self._pool_of[cohort], self._drawn[cohort]

    def _use(self, name: str, demand: Sequence[float], sign: float) -> None:
        """Add (sign 1) or take away (-1) ``demand`` to the tenant's usage and its cohort's
        draw on the pool."""
        u = self.usage[name]
        t = self.tenants.get(name)
        drawn = self._drawn.get(t.cohort) if t is not None and t.cohort is not None else None
        for r, x in enumerate(demand):
            before = u[r]
            u[r] += sign * x
            if sign < 0 and abs(u[r]) < EPS:
                u[r] = 0.0
            if drawn is not None:
                own = t.own[r]  # type: ignore[union-attr]
                drawn[r] += max(0.0, u[r] - own) - max(0.0, before - own)

    def shortfall(self, name: str, demand: Sequence[float]) -> dict[str, Any] | None:
        """None if ``demand`` more fits the tenant's quota; else what is short, per resource,
        and which limit is reached (``undeclared``: a quota change removed the tenant, whose
        running jobs keep what they hold and take nothing more)."""
        if name not in self.tenants:
            return {"tenant": name, "limit": "undeclared",
                    "short": {r: round(x, 9) for r, x in zip(self.resources, demand) if x > 0},
                    **self.view(name), "borrowers": []}
        t, u = self.tenants[name], self.usage[name]
        R = len(self.resources)
        after = [u[r] + demand[r] for r in range(R)]
        short: dict[str, float] = {}
        limit = "nominal"
        if t.cohort is None:
            for r in range(R):
                if after[r] > t.nominal[r] + EPS:
                    short[self.resources[r]] = after[r] - t.nominal[r]
        else:
            if t.borrowing_limit is not None:
                for r in range(R):
                    over = after[r] - t.nominal[r] - t.borrowing_limit[r]
                    if over > EPS:
                        short[self.resources[r]] = over
                        limit = "borrowing_limit"
            if not short:
                pool, drawn = self._pool(t.cohort)
                own = t.own
                for r in range(R):
                    more = max(0.0, after[r] - own[r]) - max(0.0, u[r] - own[r])
                    over = drawn[r] + more - pool[r]
                    if over > EPS:
                        short[self.resources[r]] = over
                        limit = "cohort"
        if not short:
            return None
        return {"tenant": name, "limit": limit, "short": {k: round(v, 9) for k, v in short.items()},
                **self.view(name), "borrowers": self.borrowers(t.cohort, but=name)}

    def fits_pool(self, name: str, demand: Sequence[float]) -> bool:
        """Whether ``demand`` more would fit the tenant's cohort pool if no other tenant drew
        on it: what quota frees in the cohort can, in the end, admit it."""
        t, u = self.tenants[name], self.usage[name]
        if t.cohort is None:
            return False
        pool = self._pool_of[t.cohort]
        return all(max(0.0, u[r] + demand[r] - t.own[r]) <= pool[r] + EPS
                   for r in range(len(self.resources)))

    def within_nominal(self, name: str, demand: Sequence[float]) -> bool:
        t, u = self.tenants[name], self.usage[name]
        return all(u[r] + demand[r] <= t.nominal[r] + EPS for r in range(len(self.resources)))

    def borrowing(self, name: str) -> bool:
        t = self.tenants.get(name)
        u = self.usage[name]
        nominal = t.nominal if t is not None else (0.0,) * len(self.resources)
        return any(u[r] > nominal[r] + EPS for r in range(len(self.resources)))

    def borrowers(self, cohort: str | None, but: str | None = None) -> list[dict[str, Any]]:
        """Who holds the cohort's borrowed share, and how much of each resource."""
        if cohort is None:
            return []
        out = []
        for name in self._cohorts.get(cohort, ()):
            if name == but:
                continue
            b = self._borrowed(name)
            if any(x > EPS for x in b):
                out.append({"tenant": name, "borrowed": dict(zip(self.resources, _round(b)))})
        return out

    def _borrowed(self, name: str) -> list[float]:
        t, u = self.tenants.get(name), self._usage_of(name)
        nominal = t.nominal if t is not None else (0.0,) * len(self.resources)
        return [max(0.0, x - n) for x, n in zip(u, nominal)]

    def candidates(self, name: str, priority: int, demand: Sequence[float]) -> list[str]:
        """Jobs an arrival of ``name`` at ``priority`` may preempt, in the order they are
        tried: lowest priority first, then newest first. Borrowers' jobs only when the arrival
        keeps its tenant within nominal (reclaim); its own only when of lower priority."""
        t = self.tenants[name]
        reclaim = (t.reclaim and t.cohort is not None and self.within_nominal(name, demand))
        lenders_of = set(self._cohorts.get(t.cohort, ())) - {name} if reclaim else set()
        borrowing = {n for n in lenders_of if self.borrowing(n)}
        out = [(h.priority, -h.seq, jid) for jid, h in self.holders.items()
               if h.tenant in borrowing or (t.within_tenant and h.tenant == name
                                            and h.priority < priority)]
        out.sort()
        return [jid for _, _, jid in out]

    def still_candidate(self, job_id: str, name: str) -> bool:
        """Whether a borrower's job is still worth preempting: its tenant still borrows (a
        tenant's own lower job always is)."""
        h = self.holders[job_id]
        return h.tenant == name or self.borrowing(h.tenant)

    # ---- bookkeeping ---------------------------------------------------------------------

    def hold(self, job_id: str, name: str, priority: int, demand: Sequence[float]) -> None:
        self.seq += 1
        self.holders[job_id] = Holding(name, priority, self.seq, tuple(demand))
        self._use(name, demand, 1.0)

    def resize(self, job_id: str, demand: Sequence[float]) -> None:
        """A running job's demand changed (a moment cluster's deployment scaled out or in):
        it holds ``demand`` from now on, keeping its place in the preemption order."""
        h = self.holders[job_id]
        self._use(h.tenant, h.demand, -1.0)
        self.holders[job_id] = Holding(h.tenant, h.priority, h.seq, tuple(demand))
        self._use(h.tenant, demand, 1.0)

    def release(self, job_id: str, preempted: bool = False) -> Holding | None:
        h = self.holders.pop(job_id, None)
        if h is None:
            return None
        self._use(h.tenant, h.demand, -1.0)
        if preempted:
            self.preempted[h.tenant] = self.preempted.get(h.tenant, 0) + 1
        if h.tenant not in self.tenants and not any(
                o.tenant == h.tenant for o in self.holders.values()):
            del self.usage[h.tenant]  # a removed tenant's last job left
        return h

    def mark(self) -> tuple[Any, ...]:
        """What ``undo`` puts back after a trial's releases (app/policies/gangs.py)."""
        return ({n: list(u) for n, u in self.usage.items()}, dict(self.preempted),
                dict(self.refused), self.seq, {c: list(d) for c, d in self._drawn.items()})

    def undo(self, mark: tuple[Any, ...], order: list[str], released: dict[str, Holding]
             ) -> None:
        """Back to ``mark``: the holders in ``order`` again, ``released`` among them."""
        usage, self.preempted, self.refused, self.seq, drawn = mark
        self.usage = {n: list(u) for n, u in usage.items()}
        self._drawn = {c: list(d) for c, d in drawn.items()}
        holders = self.holders
        self.holders = {jid: holders[jid] if jid in holders else released[jid] for jid in order}

    def refuse(self, name: str) -> None:
        self.refused[name] = self.refused.get(name, 0) + 1

    # ---- views and persistence -----------------------------------------------------------

    def _usage_of(self, name: str) -> list[float]:
        """What it uses; nothing for a removed tenant none of whose jobs runs (its jobs may
        still wait for quota on a queued cluster)."""
        return self.usage.get(name) or [0.0] * len(self.resources)

    def view(self, name: str) -> dict[str, Any]:
        t = self.tenants.get(name)
        u = self._usage_of(name)
        nominal = t.nominal if t is not None else (0.0,) * len(self.resources)
        return {"usage": dict(zip(self.resources, _round(u))),
                "nominal": dict(zip(self.resources, _round(nominal))),
                "borrowed": dict(zip(self.resources, _round(self._borrowed(name))))}

    def describe(self, waiting: Mapping[str, int] | None = None) -> dict[str, Any]:
        """Per tenant, what it holds; ``waiting``: its jobs waiting for quota (queued
        clusters; None where arrivals are refused instead)."""
        jobs: dict[str, int] = {}
        for h in self.holders.values():
            jobs[h.tenant] = jobs.get(h.tenant, 0) + 1
        names = sorted(set(self.usage) | set(waiting or ()))
        return {"generation": self.generation, "tenants": [
            {"name": name, "cohort": t.cohort if t else None, "weight": t.weight if t else None,
             "declared": t is not None, **self.view(name),
             "dominant_share": round(self.dominant_share(name), 9),
             "jobs": jobs.get(name, 0), "preempted": self.preempted.get(name, 0),
             "refused": self.refused.get(name, 0),
             **({} if waiting is None else {"waiting": waiting.get(name, 0)})}
            for name, t in ((n, self.tenants.get(n)) for n in names)]}

    def gauges(self) -> dict[str, dict[str, float]]:
        """Per-tenant gauges: at most MAX_TENANTS series per cluster, and those a change
        removed while their jobs run."""
        return {"tenant_dominant_share": {n: self.dominant_share(n) for n in self.usage},
                "tenant_preempted": {n: self.preempted.get(n, 0) for n in self.usage},
                "tenant_refused": {n: self.refused.get(n, 0) for n in self.usage}}

    def dominant_share(self, name: str) -> float:
        """The tenant's fair-sharing value: what it borrows of its cohort's lendable quota, on
        the resource where that is most, over its weight (DRF's dominant share, Ghodsi et al.
        2011, taken over borrowed quota as Kueue's fair sharing does). Zero for a tenant within
        its nominal quota and for one of no cohort: nominal quota is guaranteed, so only what
        is shared is shared fairly."""
        t = self.tenants.get(name)
        if t is None or t.cohort is None:
            return 0.0
        pool = self._pool_of[t.cohort]
        shares = [b / p for b, p in zip(self._borrowed(name), pool) if p > 0]
        return (max(shares) if shares else 0.0) / t.weight

    def declared(self) -> list[dict[str, Any]]:
        def d(v: tuple[float, ...] | None) -> dict[str, float] | None:
            return None if v is None else dict(zip(self.resources, v))
        return [{"name": t.name, "nominal": d(t.nominal), "borrowing_limit": d(t.borrowing_limit),
                 "lending_limit": d(t.lending_limit), "weight": t.weight, "cohort": t.cohort,
                 "preemption": {"reclaim": t.reclaim, "within_tenant": t.within_tenant}}
                for t in self.tenants.values()]

    def to_state(self) -> dict[str, Any]:
        return {"generation": self.generation, "seq": self.seq, "tenants": self.declared(),
                "usage": {name: list(u) for name, u in self.usage.items()},
                "drawn": {c: list(d) for c, d in self._drawn.items()},
                "holders": [[jid, h.tenant, h.priority, h.seq, list(h.demand)]
                            for jid, h in self.holders.items()],
                "preempted": dict(self.preempted), "refused": dict(self.refused)}

    @classmethod
    def from_state(cls, resources: Sequence[str], state: Mapping[str, Any]) -> Quotas:
        q = cls(resources, state["tenants"], state["generation"])
        q.seq = state["seq"]
        for jid, name, priority, seq, demand in state["holders"]:
            q.holders[jid] = Holding(name, priority, seq, tuple(demand))
        # Kept as summed, not summed again: another order of float additions could move a
        # decision at a quota's edge.
        q.usage = {name: list(u) for name, u in state["usage"].items()}
        q._drawn = {c: list(d) for c, d in state["drawn"].items()}
        q.preempted, q.refused = dict(state["preempted"]), dict(state["refused"])
        return q
