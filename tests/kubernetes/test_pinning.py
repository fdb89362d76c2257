"""The Kueue controller's plans (the ``headroom.io/placement`` annotation): what it writes for
a pod set, and which job the extender reads back for each pod."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.kubernetes.pinning import (
    JOB_INDEX,
    KUBEFLOW_INDEX,
    PLAN,
    IndexSpec,
    Subgroup,
    Unpinned,
    gang_plan,
    index_of,
    job_plan,
    planned_job,
)

JOB = [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u"}]


def _meta(plan: str | None, labels: dict[str, Any] | None = None,
          annotations: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"labels": labels or {}, "annotations": dict(annotations or {})}
    if plan is not None:
        meta["annotations"][PLAN] = plan
    return meta


def test_a_pod_set_on_one_server_needs_no_index():
    plan = gang_plan("w.main", ["rack-0"] * 3, IndexSpec(JOB_INDEX))
    assert json.loads(plan) == {"jobs": "w.main", "servers": ["rack-0"] * 3}
    assert planned_job(_meta(plan)) == "w.main.0"
    assert planned_job(_meta(job_plan("w.worker"))) == "w.worker"
    assert planned_job(_meta(None)) is None
    assert planned_job({}) is None


def test_a_spread_pod_is_the_member_its_index_names():
    plan = gang_plan("w.main", ["rack-0", "rack-1", "rack-1"], IndexSpec(JOB_INDEX))
    assert json.loads(plan)["index"] == JOB_INDEX
    assert planned_job(_meta(plan, labels={JOB_INDEX: "2"})) == "w.main.2"
    assert planned_job(_meta(plan, annotations={JOB_INDEX: "1"})) == "w.main.1"  # pre-1.28
    for bad in ({}, {JOB_INDEX: "3"}, {JOB_INDEX: "-1"}, {JOB_INDEX: "١"}, {JOB_INDEX: 1}):
        assert isinstance(planned_job(_meta(plan, labels=bad)), Unpinned), bad


def test_a_jobsets_replicated_jobs_are_subgroups():
    """Two replicated Jobs of two pods: (job-index, completion-index) (1, 0) is member 2."""
    sub = Subgroup(label="jobset.sigs.k8s.io/job-index", count=2)
    plan = gang_plan("w.workers", ["a", "b", "c", "d"], IndexSpec(JOB_INDEX, sub))
    labels = {JOB_INDEX: "0", "jobset.sigs.k8s.io/job-index": "1"}
    assert planned_job(_meta(plan, labels=labels)) == "w.workers.2"
    for wrong in ({JOB_INDEX: "2", "jobset.sigs.k8s.io/job-index": "0"},
                  {JOB_INDEX: "0", "jobset.sigs.k8s.io/job-index": "2"}, {JOB_INDEX: "0"}):
        assert isinstance(planned_job(_meta(plan, labels=wrong)), Unpinned), wrong


@pytest.mark.parametrize("text", [
    "", "null", "[]", '{"jobs": "w", "servers": "rack-0"}', '{"jobs": "w"}',
    '{"jobs": "w", "servers": ["a"], "more": 1}', '{"jobs": "../w", "servers": ["a"]}',
    '{"job": 7}', '{"jobs": "w", "servers": ["a", "b"], "index": "not a label!"}',
    json.dumps({"jobs": "w", "servers": ["a"] * 1025})])
def test_a_plan_of_another_shape_names_no_job(text):
    assert isinstance(planned_job(_meta(text)), Unpinned)
    assert isinstance(planned_job({"annotations": {PLAN: 7}}), Unpinned)
    assert planned_job({"annotations": "not a map", "labels": None}) is None


def test_where_a_pod_set_carries_its_index():
    assert index_of({}, JOB) == IndexSpec(JOB_INDEX)
    assert index_of({}, [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"}]) == \
        IndexSpec(KUBEFLOW_INDEX)
    assert index_of({}, [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet"}]) is None
    assert index_of({}, []) is None
    tas = {"topologyRequest": {"podIndexLabel": JOB_INDEX,
                               "subGroupIndexLabel": "jobset.sigs.k8s.io/job-index",
                               "subGroupCount": 2}}
    assert index_of(tas, []) == IndexSpec(JOB_INDEX, Subgroup(
        label="jobset.sigs.k8s.io/job-index", count=2))
    assert index_of({"topologyRequest": {"podIndexLabel": JOB_INDEX,
                                         "subGroupCount": 0}}, JOB) is None
