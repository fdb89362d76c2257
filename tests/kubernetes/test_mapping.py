"""Kubernetes quantities, a pod's effective requests, and the pod -> job type map."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from app.kubernetes.mapping import NoJobType, job_type_for, requests_of
from app.kubernetes.objects import PodSpec
from app.kubernetes.resources import MAX_QUANTITY, BadQuantity, cores_of, parse_quantity
from app.policies.model import ClusterModel, JobType, ServerPool


@pytest.mark.parametrize("text,value", [
    ("1", 1), ("500m", Decimal("0.5")), ("1.5", Decimal("1.5")), ("2Gi", 2 * 2**30),
    ("128Mi", 128 * 2**20), ("1k", 1000), ("1e3", 1000), ("0.25E2", 25), ("100n",
                                                                         Decimal("1e-7")),
    (".5", Decimal("0.5")), (3, 3), ("4M", 4_000_000), ("+1", 1), ("1.", 1), ("1E", 10**18),
    ("1e+2", 100), ("12E-1", Decimal("1.2")), (0.1, Decimal("0.1")), ("0", 0), ("000", 0),
    # Kubernetes keeps nano precision, rounding a finer value up.
    ("0.5n", Decimal("1e-9")), ("1e-30", Decimal("1e-9")),
    ("1.0000000001", Decimal("1.000000001")),
    # The largest quantity, however it is written.
    (str(MAX_QUANTITY), MAX_QUANTITY), ("9223372036854775807e0", MAX_QUANTITY),
    ("7.99999999Ei", Decimal("7.99999999") * 2**60), (1e18, 10**18),
    # A JSON number: at most the largest double below 2^63, which the schema says too.
    # (a float is the decimal its shortest repr writes, as the JSON text said)
    (2**63 - 1024, 2**63 - 1024), (float(2**63 - 1024), Decimal("9.223372036854775e18"))])
def test_quantities(text, value):
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", [
    "", "lots", "1.2.3", "1Ki5", "1 Gi", " 1", "1\n", "1e", "1ki", ".", "+", "1e3.5", None, True,
    [1], {"cpu": 1}, float("nan"), float("inf"),
    # not negative, however written
    "-1", "-0", -1, -0.5,
    # no digits but ASCII ones
    "\u0663", "\u00b2", "1\u0660",
    # at most 2^63-1, and at most 64 characters before anything is parsed
    str(MAX_QUANTITY + 1), "8Ei", "1e19", "10E", "1e400", "1e999999999999", 2**63,
    float(2**63), 2**63 - 1023, MAX_QUANTITY, "9" * 65, "1e" + "9" * 5000, "0." + "0" * 63])
def test_bad_quantities(text):
    with pytest.raises(BadQuantity):
        parse_quantity(text)


def test_effective_requests_sum_containers_take_max_init_and_add_overhead():
    spec = PodSpec.model_validate({
        "containers": [{"resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}},
                       {"resources": {"limits": {"cpu": "1", "nvidia.com/gpu": "1"}}}],
        "initContainers": [{"resources": {"requests": {"cpu": "2", "memory": "512Mi"}}}],
        "overhead": {"memory": "1Gi"}})
    assert requests_of(spec) == {"cpu": 2.0, "memory": 2.0, "nvidia.com/gpu": 1.0}
    assert requests_of(PodSpec()) == {} == requests_of(None)


def test_cores_are_rounded_up_per_deployment_not_per_pod():
    assert cores_of(Decimal("0.5"), 3) == 2
    assert cores_of(Decimal("0.1"), 10) == 1  # exact: no drift past a whole core
    assert cores_of(Decimal(0), 5) == 0
    assert cores_of(Decimal(MAX_QUANTITY), 2**31 - 1) == MAX_QUANTITY * (2**31 - 1)


def _model(types: list[tuple[float, float]]) -> ClusterModel:
    return ClusterModel(("cpu", "nvidia.com:gpu"), (ServerPool("n", 2, (64.0, 8.0)),),
                        tuple(JobType(f"t{i}", d, 1.0) for i, d in enumerate(types)))


def test_dimension_names_stand_for_resource_names_and_unknown_resources_are_refused():
    model = _model([(4, 0), (4, 1), (32, 8)])
    assert job_type_for(model, {"cpu": 3}) == "t0"
    assert job_type_for(model, {"cpu": 3, "nvidia.com/gpu": 1}) == "t1"
    refused = job_type_for(model, {"cpu": 1, "memory": 4})
    assert isinstance(refused, NoJobType) and refused.reason == "resource_not_modelled"
    assert refused.details["unknown_resources"] == ["memory"]
    too_big = job_type_for(model, {"cpu": 33})
    assert isinstance(too_big, NoJobType) and too_big.reason == "no_job_type_covers_requests"


demands = st.tuples(st.integers(0, 64).map(float), st.integers(0, 8).map(float))


@given(types=st.lists(demands, min_size=1, max_size=6), cpu=st.integers(0, 70),
       gpu=st.integers(0, 9))
def test_the_chosen_type_covers_the_pod_and_no_smaller_type_does(types, cpu, gpu):
    model = _model(types)
    chosen = job_type_for(model, {"cpu": float(cpu), "nvidia.com/gpu": float(gpu)})
    covering = [i for i, (c, g) in enumerate(types) if c >= cpu and g >= gpu]
    if not covering:
        assert isinstance(chosen, NoJobType)
        return
    size = [c / 64 + g / 8 for c, g in types]
    i = int(chosen[1:])
    assert i in covering
    assert size[i] == min(size[j] for j in covering)
    assert i == min(j for j in covering if size[j] == size[i])  # ties: declaration order


@pytest.mark.parametrize("spec, field", [
    ("x", ()), ({"containers": "x"}, ("containers",)), ({"containers": ["x"]}, ("containers", 0)),
    ({"containers": [{"resources": []}]}, ("containers", 0, "resources")),
    ({"containers": [{"resources": {"requests": "1"}}]},
     ("containers", 0, "resources", "requests")),
    ({"containers": [{"resources": {"requests": {"cpu": 1, "Bad Name": "1"}}}]},
     ("containers", 0, "resources", "requests", "Bad Name", "[key]")),
    ({"initContainers": {}}, ("initContainers",)), ({"overhead": [1]}, ("overhead",)),
    ({"containers": [{}] * 1001}, ("containers",))])
def test_a_spec_of_another_shape_is_refused_naming_the_field(spec, field):
    with pytest.raises(ValidationError) as caught:
        PodSpec.model_validate(spec)
    assert caught.value.errors()[0]["loc"] == field


def test_the_migrate_warning_says_why_the_deployment_is_told_to_move() -> None:
    """admission.migrate_warning: kubectl's warning for a scale-out answered migrate names the
    deployment's expected share; where the cause is the whole cluster's expected overflow
    (reason cluster_overflow) it says so, with the cluster's expected share."""
    from app.service.admission import migrate_warning

    alone = {"reason": "outgrowing_cluster", "share": 0.5, "expected_peak_cores": 612.4,
             "expected_share": 0.6124, "expected_cluster_share": 0.91}
    assert migrate_warning("web/shop", alone) == (
        "headroom: migrate web/shop: expected to need 61% of this cluster (612 cores)")
    crowd = {**alone, "reason": "cluster_overflow", "expected_peak_cores": 181.0,
             "expected_share": 0.181, "expected_cluster_share": 1.043}
    assert migrate_warning("web/cart", crowd) == (
        "headroom: migrate web/cart: expected to need 18% of this cluster (181 cores), the "
        "largest of its deployments, which together are expected to need 104% of it")
    # A cluster whose line is E + sd (policy.overflow_sd): the warning says where it stood.
    early = {**crowd, "expected_cluster_share": 0.93, "overflow_sd": 1.0, "overflow_line_share": 1.02}
    assert migrate_warning("web/cart", early) == (
        "headroom: migrate web/cart: expected to need 18% of this cluster (181 cores), the "
        "largest of its deployments, which together are expected to need 93% of it (102% at "
        "1 standard deviation above)")
    two = {**early, "overflow_sd": 2.0}
    assert migrate_warning("web/cart", two).endswith("(102% at 2 standard deviations above)")
