from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.moment_policy_kind import MomentPolicyKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gamma_priors import GammaPriors
    from ..models.threshold_derivation import ThresholdDerivation


T = TypeVar("T", bound="MomentPolicy")


@_attrs_define
class MomentPolicy:
    """
    Attributes:
        kind (MomentPolicyKind): The rule: threshold (the zeroth moment, active cores), first_moment, second_moment.
            second_moment is the one to declare: in simulations of the paper's model at τ = 1e-4 it kept τ (or met it at the
            point estimate) at every capacity measured from 500 to 100,000 cores, at 1.2-2.7× the zeroth moment's
            utilisation; first_moment did not from 2,000 to 10,000 cores (docs/moments.md, "Which kind to declare").
        arrival_rate (float | None | Unset): Deployments arriving per hour, as the operator expects: the load the
            threshold is calibrated for. Default: capacity_cores / 20,000 (the paper's load, which fills ~92% of the cores
            under accept-all).
        arrival_size_evidence (bool | Unset): Advanced, a research knob: count each arriving deployment's size as one
            observation of its scale-out size σ (c − 1 ~ Pois(σ), as a scale-out's extra cores): right where a deployment
            starts at the size it later scales out by, as in the §2.1 simulator; the paper's engine does not. Its thresholds
            are calibrated apart. No effect on the zeroth-moment rule. Default: False.
        cautious_growth (float | None | Unset): A cautious start: believe this cluster's deployments scale out this many
            times as fast (λ) as the population prior says, at the declared threshold, until the learnt prior's likelihood-
            ratio test rejects either this growth in favour of slower (then the learnt prior takes over) or the declared
            prior in favour of faster (then the learnt prior and its growth-ladder step take over, with this growth kept as
            a floor until the test rejects it in favour of slower). It guards against deployments admitted before there is
            evidence, at some utilisation: see docs/moments.md for where it helped and where it did not. Default: 2 for a
            second_moment cluster that learns its prior, declared with the table's threshold and Table 1's priors at a
            capacity where it was measured to hold τ when the default without it did not (5,000 cores), otherwise 1 (off);
            stored with the cluster. Above 1 needs learn_prior and a first_moment or second_moment kind, and a declared
            value is refused where the belief would refuse even a 1-core deployment into the empty cluster (it would admit
            nothing, ever).
        closed_loop (bool | Unset): Tighten the threshold when the realized scale-out failure rate is above the SLA with
            95% confidence, loosen it (within derivation.bounds) when far below; false keeps it fixed (the paper). Default:
            True.
        derivation (None | ThresholdDerivation | Unset):
        learn_prior (bool | Unset): Learn the population prior from this cluster's deployments (empirical Bayes on their
            scale-outs and core deaths; it leaves Table 1's only when the evidence rejects it at 99.9%, and never towards
            less demand): a leading signal where the failure-rate loop lags. false keeps Table 1's prior (the paper). See
            docs/moments.md. Default: True.
        marginal (bool | Unset): Advanced, a research knob: the marginal heuristic of §6.1 (false: the rule alone).
            Default: True.
        overflow_sd (float | None | Unset): Where the scale-outs' `migrate` answer (reason cluster_overflow) starts:
            once the cluster's expected cores plus this many standard deviations of them reach its capacity at some point of
            the horizons, the deployment with the largest expected peak is told to migrate. 0 waits for the expected cores
            themselves; 1 is where Cantelli's bound, the one the second moment rule uses, says overflow is as likely as not.
            Above 0 needs second_moment (the only kind with variances). Default: 0.5 for a second_moment cluster of 500
            cores or more that learns its prior, with the table's threshold and Table 1's priors (where it was measured); 0
            otherwise; stored with the cluster (docs/moments.md, "The overflow line", has what each line did in simulation).
        population_prior (GammaPriors | None | Unset): The population prior deployments without their own start from,
            instead of the paper's Table 1 (the learner, if on, starts from it too). A declaration with its own prior is
            calibrated for it in the background (derivation.status), like any declaration the table does not hold.
        threshold (float | None | Unset): threshold / first_moment: t in cores; second_moment: the overflow bound ρ.
            Default: derived for this declaration (capacity, SLA, kind, priors, arrival rate) by calibrating the §2.1 model:
            at once where the shipped table holds it, else in the background (derivation.status calibrating, then
            calibrated). Give one as an expert override, e.g. from `headroom calibrate moment`.
    """

    kind: MomentPolicyKind
    arrival_rate: float | None | Unset = UNSET
    arrival_size_evidence: bool | Unset = False
    cautious_growth: float | None | Unset = UNSET
    closed_loop: bool | Unset = True
    derivation: None | ThresholdDerivation | Unset = UNSET
    learn_prior: bool | Unset = True
    marginal: bool | Unset = True
    overflow_sd: float | None | Unset = UNSET
    population_prior: GammaPriors | None | Unset = UNSET
    threshold: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.gamma_priors import GammaPriors  # noqa: PLC0415
        from ..models.threshold_derivation import ThresholdDerivation  # noqa: PLC0415

        kind = self.kind.value

        arrival_rate: float | None | Unset
        if isinstance(self.arrival_rate, Unset):
            arrival_rate = UNSET
        else:
            arrival_rate = self.arrival_rate

        arrival_size_evidence = self.arrival_size_evidence

        cautious_growth: float | None | Unset
        if isinstance(self.cautious_growth, Unset):
            cautious_growth = UNSET
        else:
            cautious_growth = self.cautious_growth

        closed_loop = self.closed_loop

        derivation: dict[str, Any] | None | Unset
        if isinstance(self.derivation, Unset):
            derivation = UNSET
        elif isinstance(self.derivation, ThresholdDerivation):
            derivation = self.derivation.to_dict()
        else:
            derivation = self.derivation

        learn_prior = self.learn_prior

        marginal = self.marginal

        overflow_sd: float | None | Unset
        if isinstance(self.overflow_sd, Unset):
            overflow_sd = UNSET
        else:
            overflow_sd = self.overflow_sd

        population_prior: dict[str, Any] | None | Unset
        if isinstance(self.population_prior, Unset):
            population_prior = UNSET
        elif isinstance(self.population_prior, GammaPriors):
            population_prior = self.population_prior.to_dict()
        else:
            population_prior = self.population_prior

        threshold: float | None | Unset
        if isinstance(self.threshold, Unset):
            threshold = UNSET
        else:
            threshold = self.threshold

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if arrival_rate is not UNSET:
            field_dict["arrival_rate"] = arrival_rate
        if arrival_size_evidence is not UNSET:
            field_dict["arrival_size_evidence"] = arrival_size_evidence
        if cautious_growth is not UNSET:
            field_dict["cautious_growth"] = cautious_growth
        if closed_loop is not UNSET:
            field_dict["closed_loop"] = closed_loop
        if derivation is not UNSET:
            field_dict["derivation"] = derivation
        if learn_prior is not UNSET:
            field_dict["learn_prior"] = learn_prior
        if marginal is not UNSET:
            field_dict["marginal"] = marginal
        if overflow_sd is not UNSET:
            field_dict["overflow_sd"] = overflow_sd
        if population_prior is not UNSET:
            field_dict["population_prior"] = population_prior
        if threshold is not UNSET:
            field_dict["threshold"] = threshold

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gamma_priors import GammaPriors  # noqa: PLC0415
        from ..models.threshold_derivation import ThresholdDerivation  # noqa: PLC0415

        d = dict(src_dict)
        kind = MomentPolicyKind(d.pop("kind"))

        def _parse_arrival_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        arrival_rate = _parse_arrival_rate(d.pop("arrival_rate", UNSET))

        arrival_size_evidence = d.pop("arrival_size_evidence", UNSET)

        def _parse_cautious_growth(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cautious_growth = _parse_cautious_growth(d.pop("cautious_growth", UNSET))

        closed_loop = d.pop("closed_loop", UNSET)

        def _parse_derivation(data: object) -> None | ThresholdDerivation | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                derivation_type_0 = ThresholdDerivation.from_dict(data)

                return derivation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThresholdDerivation | Unset, data)

        derivation = _parse_derivation(d.pop("derivation", UNSET))

        learn_prior = d.pop("learn_prior", UNSET)

        marginal = d.pop("marginal", UNSET)

        def _parse_overflow_sd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        overflow_sd = _parse_overflow_sd(d.pop("overflow_sd", UNSET))

        def _parse_population_prior(data: object) -> GammaPriors | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                population_prior_type_0 = GammaPriors.from_dict(data)

                return population_prior_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GammaPriors | None | Unset, data)

        population_prior = _parse_population_prior(d.pop("population_prior", UNSET))

        def _parse_threshold(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        threshold = _parse_threshold(d.pop("threshold", UNSET))

        moment_policy = cls(
            kind=kind,
            arrival_rate=arrival_rate,
            arrival_size_evidence=arrival_size_evidence,
            cautious_growth=cautious_growth,
            closed_loop=closed_loop,
            derivation=derivation,
            learn_prior=learn_prior,
            marginal=marginal,
            overflow_sd=overflow_sd,
            population_prior=population_prior,
            threshold=threshold,
        )

        return moment_policy
