from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..models.rms_policy_clock import RmsPolicyClock
from ..models.rms_policy_max_jobs_rule import RmsPolicyMaxJobsRule
from ..models.rms_policy_routing import RmsPolicyRouting
from ..models.rms_policy_sampling import RmsPolicySampling
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rms_policy_clock_rate_type_1 import RmsPolicyClockRateType1
    from ..models.rms_policy_mu_type_1 import RmsPolicyMuType1


T = TypeVar("T", bound="RmsPolicy")


@_attrs_define
class RmsPolicy:
    """Randomized Multi-resource Scheduling, Algorithm 1 (centralized queues) with the §VI
    variants; ``routing`` switches to Algorithm 2 (a queue per server and type).

        Attributes:
            kind (Literal['rms']):
            adaptive (bool | Unset): RMS-AD: one clock of the total rate; a tick picks queue j with probability proportional
                to exp(w_j). Default: False.
            b (float | Unset): f(x) = log(1+x)^(1-b). Default: 0.0.
            clock (RmsPolicyClock | Unset): wall: the service stamps each event with the time since the cluster was created
                (in time units) and a background loop fires the scheduler's clocks; events must not carry `at`. client: every
                event carries `at` (and ticks `until`), which never decreases; nothing happens between events unless a client
                ticks. Default: RmsPolicyClock.WALL.
            clock_rate (float | None | RmsPolicyClockRateType1 | Unset): Poisson clock rate r_j per time unit: one number,
                or one per job type. Default: the number of servers. On the wall clock the clocks together may fire at most
                1,000 times per second (sum of r_j / time_unit_seconds): raise time_unit_seconds or lower the rates beyond that.
            epsilon (float | Unset): ε in the weight floor ε/(8M)·f(Q_max). Default: 0.5.
            finished_history (int | Unset): Finished jobs kept for GET .../jobs/{job_id} (oldest forgotten first). Default:
                1000.
            max_jobs_rule (RmsPolicyMaxJobsRule | Unset): M in the weight floor: configurations = the most jobs of all types
                together a server holds (the paper's M, §II; computed exactly, or a safe upper bound when there are too many
                configurations to enumerate); one_type = the most jobs of a single type, the rule of clusters created before it
                was corrected (stored clusters without this field keep it). Default: RmsPolicyMaxJobsRule.CONFIGURATIONS.
            mu (float | RmsPolicyMuType1 | Unset): Service rate of the real jobs per time unit (1 / mean duration): dummy
                jobs hold their slot for an exponential time of this rate. Default: 1.0.
            replace_dummies (bool | Unset): Remark 2: an arriving job takes the slot of a dummy job of its type instead of
                queueing. Default: False.
            routing (RmsPolicyRouting | Unset): central: one queue per job type (Algorithm 1). jsq / po2: a queue per server
                and type, an arrival joins the shortest of all (JSQ) or of two sampled servers' queues (Algorithm 2, Remark 4);
                clock_rate is then split evenly over the servers. Default: RmsPolicyRouting.CENTRAL.
            sampling (RmsPolicySampling | Unset): Server tried on a clock tick: uniform (Algorithm 1), rf (Random-Fit among
                those it fits in) or bf (Best-Fit), §VI. Default: RmsPolicySampling.UNIFORM.
            time_unit_seconds (float | Unset): Seconds per time unit on the wall clock (1 ms to 1 day); rates are per time
                unit. Default: 1.0.
    """

    kind: Literal["rms"]
    adaptive: bool | Unset = False
    b: float | Unset = 0.0
    clock: RmsPolicyClock | Unset = RmsPolicyClock.WALL
    clock_rate: float | None | RmsPolicyClockRateType1 | Unset = UNSET
    epsilon: float | Unset = 0.5
    finished_history: int | Unset = 1000
    max_jobs_rule: RmsPolicyMaxJobsRule | Unset = RmsPolicyMaxJobsRule.CONFIGURATIONS
    mu: float | RmsPolicyMuType1 | Unset = 1.0
    replace_dummies: bool | Unset = False
    routing: RmsPolicyRouting | Unset = RmsPolicyRouting.CENTRAL
    sampling: RmsPolicySampling | Unset = RmsPolicySampling.UNIFORM
    time_unit_seconds: float | Unset = 1.0

    def to_dict(self) -> dict[str, Any]:
        from ..models.rms_policy_clock_rate_type_1 import RmsPolicyClockRateType1  # noqa: PLC0415
        from ..models.rms_policy_mu_type_1 import RmsPolicyMuType1  # noqa: PLC0415

        kind = self.kind

        adaptive = self.adaptive

        b = self.b

        clock: str | Unset = UNSET
        if not isinstance(self.clock, Unset):
            clock = self.clock.value

        clock_rate: dict[str, Any] | float | None | Unset
        if isinstance(self.clock_rate, Unset):
            clock_rate = UNSET
        elif isinstance(self.clock_rate, RmsPolicyClockRateType1):
            clock_rate = self.clock_rate.to_dict()
        else:
            clock_rate = self.clock_rate

        epsilon = self.epsilon

        finished_history = self.finished_history

        max_jobs_rule: str | Unset = UNSET
        if not isinstance(self.max_jobs_rule, Unset):
            max_jobs_rule = self.max_jobs_rule.value

        mu: dict[str, Any] | float | Unset
        if isinstance(self.mu, Unset):
            mu = UNSET
        elif isinstance(self.mu, RmsPolicyMuType1):
            mu = self.mu.to_dict()
        else:
            mu = self.mu

        replace_dummies = self.replace_dummies

        routing: str | Unset = UNSET
        if not isinstance(self.routing, Unset):
            routing = self.routing.value

        sampling: str | Unset = UNSET
        if not isinstance(self.sampling, Unset):
            sampling = self.sampling.value

        time_unit_seconds = self.time_unit_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if adaptive is not UNSET:
            field_dict["adaptive"] = adaptive
        if b is not UNSET:
            field_dict["b"] = b
        if clock is not UNSET:
            field_dict["clock"] = clock
        if clock_rate is not UNSET:
            field_dict["clock_rate"] = clock_rate
        if epsilon is not UNSET:
            field_dict["epsilon"] = epsilon
        if finished_history is not UNSET:
            field_dict["finished_history"] = finished_history
        if max_jobs_rule is not UNSET:
            field_dict["max_jobs_rule"] = max_jobs_rule
        if mu is not UNSET:
            field_dict["mu"] = mu
        if replace_dummies is not UNSET:
            field_dict["replace_dummies"] = replace_dummies
        if routing is not UNSET:
            field_dict["routing"] = routing
        if sampling is not UNSET:
            field_dict["sampling"] = sampling
        if time_unit_seconds is not UNSET:
            field_dict["time_unit_seconds"] = time_unit_seconds

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rms_policy_clock_rate_type_1 import RmsPolicyClockRateType1  # noqa: PLC0415
        from ..models.rms_policy_mu_type_1 import RmsPolicyMuType1  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["rms"], d.pop("kind"))
        if kind != "rms":
            raise ValueError(f"kind must match const 'rms', got '{kind}'")

        adaptive = d.pop("adaptive", UNSET)

        b = d.pop("b", UNSET)

        _clock = d.pop("clock", UNSET)
        clock: RmsPolicyClock | Unset
        if isinstance(_clock, Unset):
            clock = UNSET
        else:
            clock = RmsPolicyClock(_clock)

        def _parse_clock_rate(data: object) -> float | None | RmsPolicyClockRateType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                clock_rate_type_1 = RmsPolicyClockRateType1.from_dict(data)

                return clock_rate_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(float | None | RmsPolicyClockRateType1 | Unset, data)

        clock_rate = _parse_clock_rate(d.pop("clock_rate", UNSET))

        epsilon = d.pop("epsilon", UNSET)

        finished_history = d.pop("finished_history", UNSET)

        _max_jobs_rule = d.pop("max_jobs_rule", UNSET)
        max_jobs_rule: RmsPolicyMaxJobsRule | Unset
        if isinstance(_max_jobs_rule, Unset):
            max_jobs_rule = UNSET
        else:
            max_jobs_rule = RmsPolicyMaxJobsRule(_max_jobs_rule)

        def _parse_mu(data: object) -> float | RmsPolicyMuType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mu_type_1 = RmsPolicyMuType1.from_dict(data)

                return mu_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(float | RmsPolicyMuType1 | Unset, data)

        mu = _parse_mu(d.pop("mu", UNSET))

        replace_dummies = d.pop("replace_dummies", UNSET)

        _routing = d.pop("routing", UNSET)
        routing: RmsPolicyRouting | Unset
        if isinstance(_routing, Unset):
            routing = UNSET
        else:
            routing = RmsPolicyRouting(_routing)

        _sampling = d.pop("sampling", UNSET)
        sampling: RmsPolicySampling | Unset
        if isinstance(_sampling, Unset):
            sampling = UNSET
        else:
            sampling = RmsPolicySampling(_sampling)

        time_unit_seconds = d.pop("time_unit_seconds", UNSET)

        rms_policy = cls(
            kind=kind,
            adaptive=adaptive,
            b=b,
            clock=clock,
            clock_rate=clock_rate,
            epsilon=epsilon,
            finished_history=finished_history,
            max_jobs_rule=max_jobs_rule,
            mu=mu,
            replace_dummies=replace_dummies,
            routing=routing,
            sampling=sampling,
            time_unit_seconds=time_unit_seconds,
        )

        return rms_policy
