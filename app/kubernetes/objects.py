"""The parts of Kubernetes' objects that Headroom reads, as upstream defines them: core/v1 Pod
and Node, apps/v1 Deployment and autoscaling/v1 Scale (k8s.io/api).

Every field Headroom reads is typed strictly (a string is no number, "yes" no boolean) and
bounded; every other field is allowed and left alone, as a newer API server may add some (the
request body limit, HEADROOM_MAX_BODY_BYTES, bounds them). Names follow the rules the API
server enforces on every object it stores (RFC 1123 labels and subdomains); ids that become
Headroom's job, deployment or event ids follow Headroom's id rule (``SegmentId``), so anything
the extender or the webhook accepts can later be read and ended through the REST routes.
Kubernetes' UIDs are UUIDs, which the rule takes.
"""

from __future__ import annotations

import json
from decimal import Decimal, localcontext
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from app.ids import SegmentId
from app.kubernetes.resources import ResourceList

# Unanchored, so that a schema can also allow them empty.
DNS_LABEL = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
DNS_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
DnsLabel = Annotated[str, StringConstraints(max_length=63, pattern=f"^{DNS_LABEL}$")]
DnsSubdomain = Annotated[str, StringConstraints(max_length=253, pattern=f"^{DNS_SUBDOMAIN}$")]

# Kubernetes documents clusters of up to 5,000 nodes and the largest managed ones hold 65,000;
# it sets no limit on a pod's containers, and real pods have a handful.
MAX_NODES = 100_000
MAX_CONTAINERS = 1_000
INT32_MAX = 2**31 - 1


class Upstream(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)


class PodMeta(Upstream):
    name: DnsSubdomain | None = None
    namespace: DnsLabel | None = None
    uid: SegmentId = Field(description="Headroom's job id and event id for the pod.")


class ResourceRequirements(Upstream):
    requests: ResourceList | None = None
    limits: ResourceList | None = None


class Container(Upstream):
    resources: ResourceRequirements | None = None

    def requests(self) -> dict[str, Decimal]:
        """A container with limits and no requests is given requests = limits by the API
        server's defaulting; a template read before defaulting may still lack them."""
        r = self.resources
        return {} if r is None else {**(r.limits or {}), **(r.requests or {})}


Containers = Annotated[list[Container], Field(max_length=MAX_CONTAINERS)]


class PodSpec(Upstream):
    containers: Containers | None = None
    initContainers: Containers | None = None
    overhead: ResourceList | None = None

    def requests(self) -> dict[str, Decimal]:
        """The effective requests, as the scheduler computes them: the sum over containers, at
        least each init container's own (they run one at a time, before), plus the overhead."""
        total: dict[str, Decimal] = {}
        with localcontext(prec=100):  # exact: each term has at most 19 + 9 digits
            for c in self.containers or ():
                for name, v in c.requests().items():
                    total[name] = total.get(name, Decimal(0)) + v
            for c in self.initContainers or ():
                for name, v in c.requests().items():
                    total[name] = max(total.get(name, Decimal(0)), v)
            for name, v in (self.overhead or {}).items():
                total[name] = total.get(name, Decimal(0)) + v
        return total


class Pod(Upstream):
    metadata: PodMeta
    spec: PodSpec | None = None


class NodeMeta(Upstream):
    name: DnsSubdomain = Field(description="The node's name: the Headroom server it is.")


class Node(Upstream):
    """A v1.Node. Filter answers echo the nodes that pass, whole, so a node must also be
    something the answer can be written with: no lone surrogate, no NaN."""

    metadata: NodeMeta

    @model_validator(mode="before")
    @classmethod
    def _writable(cls, data: Any) -> Any:
        try:
            json.dumps(data, ensure_ascii=False, allow_nan=False).encode()
        except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
            raise ValueError("the node holds a value no JSON answer can carry (a lone "
                             "surrogate, NaN or Infinity)") from None
        return data


class NodeList(Upstream):
    items: list[Node] = Field(default_factory=list, max_length=MAX_NODES,
                              description="v1.Node objects; metadata.name is read.")


Replicas = Annotated[int, Field(ge=0, le=INT32_MAX)]


class PodTemplateSpec(Upstream):
    spec: PodSpec | None = None


class DeploymentMeta(Upstream):
    uid: SegmentId | None = Field(None, description="Headroom's deployment id.")


class DeploymentSpec(Upstream):
    replicas: Replicas | None = None
    template: PodTemplateSpec | None = None


class Deployment(Upstream):
    """An apps/v1 Deployment, or the autoscaling/v1 Scale of one (the ``scale`` subresource),
    which has the same metadata and ``spec.replicas`` and no template. An absent
    ``spec.replicas`` is 1 in a Deployment (the API server's default) and 0 in a Scale (whose
    replicas are omitted when zero)."""

    metadata: DeploymentMeta | None = None
    spec: DeploymentSpec | None = None

    def replicas(self, scale: bool) -> int:
        replicas = self.spec.replicas if self.spec is not None else None
        return replicas if replicas is not None else (0 if scale else 1)

    def pod_spec(self) -> PodSpec:
        template = self.spec.template if self.spec is not None else None
        return template.spec if template is not None and template.spec is not None \
            else PodSpec()
