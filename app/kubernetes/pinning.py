"""How the Kueue controller pins an admitted Workload's pods, and how the extender reads it.

Kueue applies an admission check's ``podSetUpdates`` (name, labels, annotations, nodeSelector,
tolerations: nothing else) to the pod template of a pod set, so every pod of the set gets the
same ones. A node selector therefore pins a pod set only when all its pods are on one server.
For every pod set the controller also sets the annotation ``headroom.io/placement``, the
*plan*: which of Headroom's jobs the pods are, so that the scheduler extender, when the pods use
it (``schedulerName: headroom-scheduler``), neither counts them again nor places them anywhere
but where Headroom holds their job. A plan is compact JSON, one of

- ``{"jobs": "<workload UID>.<pod set>", "servers": [...], "index": "<label>"}``: the pod set is
  the jobs ``<jobs>.0`` ... ``<jobs>.<n-1>`` (placement clusters). All on one server, any pod
  stands for all (``<jobs>.0``; no ``index``). Spread, a pod is member ``i``, its index: the
  value of the label (or annotation) ``index`` on the pod, as Indexed Jobs
  (``batch.kubernetes.io/job-completion-index``) and Kubeflow's jobs
  (``training.kubeflow.org/replica-index``) set it. With ``"subgroup": {"label", "count"}``
  (Kueue's ``topologyRequest`` of a JobSet: ``count`` replicated Jobs of ``n / count`` pods)
  the member is ``subgroup * n / count + index``. ``servers`` is for people reading the pod;
  the extender asks Headroom where the job is held.
- ``{"job": "<workload UID>.<pod set>"}``: the one pod of the set is that job (queued
  clusters, which take no gangs).

A pod that carries a plan names a job that Headroom holds or not: it never creates one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from app.ids import SegmentId

PLAN = "headroom.io/placement"
JOB_INDEX = "batch.kubernetes.io/job-completion-index"
KUBEFLOW_INDEX = "training.kubeflow.org/replica-index"
MAX_PODS = 1024  # a gang's members at most (app/api/schemas/tenants.py MAX_GANG)

# A label key: an optional DNS-subdomain prefix and "/", then a name of at most 63 characters.
_LABEL_KEY = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
LabelKey = Annotated[str, StringConstraints(max_length=317, pattern=_LABEL_KEY)]
_INDEX_VALUE = re.compile(r"[0-9]{1,9}")  # ASCII digits: \d takes any script's
Server = Annotated[str, StringConstraints(max_length=253)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Subgroup(_Strict):
    label: LabelKey
    count: int = Field(ge=1, le=MAX_PODS)


class GangPlan(_Strict):
    jobs: SegmentId
    servers: list[Server] = Field(min_length=1, max_length=MAX_PODS)
    index: LabelKey | None = None
    subgroup: Subgroup | None = None


class JobPlan(_Strict):
    job: SegmentId


@dataclass(frozen=True)
class Unpinned:
    """A pod whose plan names no job: why."""

    reason: str


@dataclass(frozen=True)
class IndexSpec:
    """Where a pod set's pods carry their index."""

    label: str
    subgroup: Subgroup | None = None


def gang_plan(jobs: str, servers: Sequence[str], index: IndexSpec | None) -> str:
    plan: dict[str, Any] = {"jobs": jobs, "servers": list(servers)}
    if len(set(servers)) > 1 and index is not None:
        plan["index"] = index.label
        if index.subgroup is not None:
            plan["subgroup"] = index.subgroup.model_dump()
    return json.dumps(plan, separators=(",", ":"))


def job_plan(job: str) -> str:
    return json.dumps({"job": job}, separators=(",", ":"))


def index_of(pod_set: Mapping[str, Any], owners: Sequence[Mapping[str, Any]]
             ) -> IndexSpec | None:
    """Where the pods of a Workload's pod set carry an index unique within the set: Kueue's
    ``topologyRequest`` when the Workload has one, else by the kind that owns the Workload
    (a batch Job: Indexed Jobs' completion index; Kubeflow's jobs: the replica index). None
    when unknown (a JobSet without Kueue's subgroup, a plain pod group): such pods can be
    pinned by a node selector only."""
    request = pod_set.get("topologyRequest") or {}
    label = request.get("podIndexLabel")
    if isinstance(label, str) and label:
        sub_label, sub_count = request.get("subGroupIndexLabel"), request.get("subGroupCount")
        subgroup = None
        if sub_label is not None or sub_count is not None:
            try:
                subgroup = Subgroup(label=sub_label, count=sub_count)
            except ValidationError:
                return None
        return IndexSpec(label, subgroup)
    for owner in owners:
        group = str(owner.get("apiVersion") or "").partition("/")[0]
        if (group, owner.get("kind")) == ("batch", "Job"):
            return IndexSpec(JOB_INDEX)
        if group == "kubeflow.org":
            return IndexSpec(KUBEFLOW_INDEX)
    return None


def _index_value(labels: Mapping[str, Any], annotations: Mapping[str, Any], key: str
                 ) -> int | None:
    for where in (labels, annotations):
        value = where.get(key)
        if isinstance(value, str) and _INDEX_VALUE.fullmatch(value):
            return int(value)
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def planned_job(metadata: Mapping[str, Any]) -> str | Unpinned | None:
    """The job a pod's plan names (from its metadata's labels and annotations); None when the
    pod carries no plan."""
    annotations = _mapping(metadata.get("annotations"))
    labels = _mapping(metadata.get("labels"))
    text = annotations.get(PLAN)
    if text is None:
        return None
    if not isinstance(text, str):
        return Unpinned(f"the annotation {PLAN} is not a string")
    try:
        raw = json.loads(text)
    except ValueError:
        return Unpinned(f"the annotation {PLAN} is not JSON")
    try:
        if isinstance(raw, dict) and "job" in raw:
            return JobPlan.model_validate(raw).job
        plan = GangPlan.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "plan"
        return Unpinned(f"the annotation {PLAN}: {where}: {err['msg']}")
    n = len(plan.servers)
    if len(set(plan.servers)) == 1:  # every pod of the set on one server: any stands for all
        return f"{plan.jobs}.0"
    if plan.index is None:
        return Unpinned(f"its pod set spreads over {n} pods on several servers and names no "
                        "index label")
    index = _index_value(labels, annotations, plan.index)
    if index is None:
        return Unpinned(f"its pod set spreads over several servers and the pod carries no "
                        f"{plan.index} (make its Job an Indexed Job)")
    if plan.subgroup is not None:
        sub = _index_value(labels, annotations, plan.subgroup.label)
        if sub is None or n % plan.subgroup.count or sub >= plan.subgroup.count \
                or index >= n // plan.subgroup.count:
            return Unpinned(f"the pod's {plan.subgroup.label} and {plan.index} name no pod "
                            f"of its {n}")
        index += sub * (n // plan.subgroup.count)
    if index >= n:
        return Unpinned(f"the pod's {plan.index} is {index}, and its pod set has {n} pods")
    return f"{plan.jobs}.{index}"
