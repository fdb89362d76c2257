"""Kubernetes' own wire shapes, as upstream defines them.

kube-scheduler extender: ``k8s.io/kube-scheduler/extender/v1`` (ExtenderArgs,
ExtenderFilterResult, HostPriorityList, ExtenderBindingArgs, ExtenderBindingResult). Those Go
types carry no JSON tags, so the keys are the capitalised field names. Admission:
``admission.k8s.io/v1`` AdmissionReview. The pods, nodes and Deployments inside them are the
models of ``app/kubernetes/objects.py``: every field Headroom reads is typed strictly and
bounded, and unknown fields are allowed, as a newer API server may add some.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.api.schemas.common import SegmentId
from app.kubernetes import objects as k8s
from app.kubernetes.objects import (
    DNS_LABEL,
    DNS_SUBDOMAIN,
    MAX_NODES,
    Deployment,
    DnsLabel,
    DnsSubdomain,
    NodeList,
    Upstream,
)

# Empty where Kubernetes leaves a name out: a cluster-scoped object's namespace, the core
# group, a request of no subresource.
OptionalLabel = Annotated[str, StringConstraints(max_length=63, pattern=f"^({DNS_LABEL})?$")]
OptionalSubdomain = Annotated[str, StringConstraints(max_length=253,
                                                     pattern=f"^({DNS_SUBDOMAIN})?$")]
# An object name as an AdmissionRequest may carry it for any kind: printable ASCII without
# spaces, "/" or "%" (Kubernetes' path-segment rule), at most 253 characters; empty when a
# CREATE leaves the name to the server.
ObjectName = Annotated[str, StringConstraints(pattern=r"^[!-$&-.0-~]{0,253}$")]
# The review's uid is the event id, and "<uid>-undo" that of a late decision's undo: printable
# ASCII, at most 195 characters (an event id holds 200). The API server sends a UUID.
ReviewUid = Annotated[str, StringConstraints(pattern=r"^[!-~]{1,195}$")]
NodeNameList = Annotated[list[DnsSubdomain], Field(max_length=MAX_NODES)]


class ExtenderArgs(Upstream):
    """Sent to filter and prioritize: the pod and its candidate nodes (full ``Nodes``, or
    only ``NodeNames`` when the extender is ``nodeCacheCapable``); one of the two is
    required."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{
            "Pod": {"metadata": {"name": "web-1", "namespace": "default",
                                 "uid": "6f0c1c1e-0d0e-4f55-9f1e-1b0a5f7c2d11"},
                    "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {
                        "requests": {"cpu": "3", "memory": "12Gi"}}}]}},
            "Nodes": None, "NodeNames": ["m5-0", "m5-1"]}]})

    Pod: k8s.Pod = Field(description="The v1.Pod being scheduled.")
    Nodes: NodeList | None = None
    NodeNames: NodeNameList | None = None

    def node_names(self) -> list[str] | None:
        """The candidates' names, from whichever form was sent (None: neither)."""
        if self.NodeNames is not None:
            return self.NodeNames
        return None if self.Nodes is None else [n.metadata.name for n in self.Nodes.items]


class ExtenderFilterResult(BaseModel):
    Nodes: NodeList | None = Field(None, description="The nodes that pass (when sent Nodes).")
    NodeNames: NodeNameList | None = Field(None, description="The nodes that pass (when sent "
                                                          "NodeNames).")
    FailedNodes: dict[str, str] = Field(description="Node -> Headroom's reason; resolvable.")
    FailedAndUnresolvableNodes: dict[str, str] = Field(
        description="Node -> reason that no preemption on the node changes (a DRA "
                    "rejection, a pod that fits no job type, a node that is no server).")
    Error: str = ""


class HostPriority(BaseModel):
    Host: str
    Score: int = Field(ge=0, le=10, description="0..MaxExtenderPriority (10).")


class ExtenderBindingArgs(Upstream):
    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "PodName": "web-1", "PodNamespace": "default",
        "PodUID": "6f0c1c1e-0d0e-4f55-9f1e-1b0a5f7c2d11", "Node": "m5-0"}]})

    PodName: DnsSubdomain
    PodNamespace: DnsLabel
    PodUID: SegmentId = Field(description="The pod's UID: Headroom's event id and job id.")
    Node: DnsSubdomain


class ExtenderBindingResult(BaseModel):
    Error: str = Field("", description="Empty when the pod was bound.")


class GroupVersionResource(Upstream):
    group: OptionalSubdomain = ""
    version: DnsLabel
    resource: DnsLabel


class AdmissionRequest(Upstream):
    uid: ReviewUid = Field(description="Echoed in the response; also Headroom's event id.")
    resource: GroupVersionResource
    subResource: OptionalLabel | None = None
    operation: Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]
    name: ObjectName | None = None
    namespace: OptionalLabel | None = None
    object: Deployment | None = Field(None, description="The Deployment (or its Scale) as "
                                                        "it would be; other kinds are not read.")
    oldObject: Deployment | None = Field(None, description="The Deployment (or its Scale) as "
                                                           "it was, on UPDATE and DELETE.")
    dryRun: bool | None = None


class AdmissionReviewIn(Upstream):
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
