"""Kubernetes' own wire shapes, as upstream defines them.

kube-scheduler extender: ``k8s.io/kube-scheduler/extender/v1`` (ExtenderArgs,
ExtenderFilterResult, HostPriorityList, ExtenderBindingArgs, ExtenderBindingResult). Those Go
types carry no JSON tags, so the keys are the capitalised field names. Admission:
``admission.k8s.io/v1`` AdmissionReview. Pods, nodes and Deployments inside them are free-form
objects (only the fields Headroom reads are checked); unknown top-level fields are allowed, as
a newer API server may add some.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.schemas.common import ClientId


class _Upstream(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)


class NodeList(_Upstream):
    items: list[dict[str, Any]] = Field(default_factory=list,
                                        description="v1.Node objects; metadata.name is read.")


class ExtenderArgs(_Upstream):
    """Sent to filter and prioritize: the pod and its candidate nodes (full ``Nodes``, or
    only ``NodeNames`` when the extender is ``nodeCacheCapable``)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "Pod": {"metadata": {"name": "web-1", "namespace": "default",
                             "uid": "6f0c1c1e-0d0e-4f55-9f1e-1b0a5f7c2d11"},
                "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {
                    "requests": {"cpu": "3", "memory": "12Gi"}}}]}},
        "Nodes": None, "NodeNames": ["m5-0", "m5-1"]}]})

    Pod: dict[str, Any] = Field(description="The v1.Pod being scheduled.")
    Nodes: NodeList | None = None
    NodeNames: list[str] | None = None


class ExtenderFilterResult(BaseModel):
    Nodes: NodeList | None = Field(None, description="The nodes that pass (when sent Nodes).")
    NodeNames: list[str] | None = Field(None, description="The nodes that pass (when sent "
                                                          "NodeNames).")
    FailedNodes: dict[str, str] = Field(description="Node -> Headroom's reason; resolvable.")
    FailedAndUnresolvableNodes: dict[str, str] = Field(
        description="Node -> reason that no preemption on the node changes (a DRA "
                    "rejection, a pod that fits no job type, a node that is no server).")
    Error: str = ""


class HostPriority(BaseModel):
    Host: str
    Score: int = Field(ge=0, le=10, description="0..MaxExtenderPriority (10).")


class ExtenderBindingArgs(_Upstream):
    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "PodName": "web-1", "PodNamespace": "default",
        "PodUID": "6f0c1c1e-0d0e-4f55-9f1e-1b0a5f7c2d11", "Node": "m5-0"}]})

    PodName: str = Field(min_length=1, max_length=253)
    PodNamespace: str = Field(min_length=1, max_length=63)
    PodUID: str = Field(pattern=r"^[!-\-0-~][!-.0-~]{0,199}$",
                        description="The pod's UID: Headroom's event id and job id.")
    Node: str = Field(min_length=1, max_length=253)


class ExtenderBindingResult(BaseModel):
    Error: str = Field("", description="Empty when the pod was bound.")


class GroupVersionResource(_Upstream):
    group: str = ""
    version: str
    resource: str


class AdmissionRequest(_Upstream):
    uid: ClientId = Field(description="Echoed in the response; also Headroom's event id.")
    resource: GroupVersionResource
    subResource: str | None = None
    operation: Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]
    name: str | None = None
    namespace: str | None = None
    object: dict[str, Any] | None = None
    oldObject: dict[str, Any] | None = None
    dryRun: bool | None = None


class AdmissionReviewIn(_Upstream):
    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                    "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                    "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
                    "operation": "CREATE", "namespace": "shop", "name": "web",
                    "object": {"metadata": {"name": "web", "uid": "2c4b7e1a-6f0e"},
                               "spec": {"replicas": 3, "template": {"spec": {"containers": [
                                   {"name": "web", "resources": {"requests": {"cpu": "2"}}}]}}}},
                    "dryRun": False}}]})

    apiVersion: Literal["admission.k8s.io/v1"]
    kind: Literal["AdmissionReview"]
    request: AdmissionRequest


class AdmissionStatus(BaseModel):
    code: int
    message: str


class AdmissionResponse(BaseModel):
    uid: str
    allowed: bool
    status: AdmissionStatus
    warnings: list[str] = []


class AdmissionReviewOut(BaseModel):
    apiVersion: Literal["admission.k8s.io/v1"] = "admission.k8s.io/v1"
    kind: Literal["AdmissionReview"] = "AdmissionReview"
    response: AdmissionResponse
