"""What an adapter offers beyond the engine contract (``protocol.PolicyAdapter``), one
capability per abstract class, for the routes and service code that serve it.

An adapter inherits the capabilities it has, so a declaration can say which ones its family
has (``Family.has``, a class check, no instance needed): a route that serves a capability
admits the clusters of those families only, and then calls the capability's methods on the
cluster's adapter, never on the engine inside it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Literal

from app.policies.model import ClusterModel

# Who keeps a cluster's time: the service ("wall"), its clients ("client"), or nobody (None:
# the cluster takes no time).
ClockKind = Literal["wall", "client"] | None


class KeepsTime(ABC):
    """An engine with a clock of its own, which events move forward."""

    @property
    @abstractmethod
    def now(self) -> float:
        """The engine's clock: the time of the last event it took."""

    @property
    @abstractmethod
    def clock(self) -> ClockKind:
        """Who keeps this cluster's time."""


class RunsJobs(KeepsTime):
    """Servers that run jobs of declared types (``ClusterModel``), on the engine's clock."""

    @property
    @abstractmethod
    def model(self) -> ClusterModel: ...


class HasServers(RunsJobs):
    """Servers whose jobs and fill can be read one by one (``GET .../servers``)."""

    @abstractmethod
    def server_view(self, server_id: str) -> dict[str, Any]:
        """One server: capacity, use, jobs (``UnknownServer`` if there is no such server)."""

    @abstractmethod
    def server_of(self, job_id: str) -> str | None:
        """The server a job holds a slot on; None when it holds none."""

    @abstractmethod
    def fits(self, server_id: str, job_type: str) -> bool:
        """Whether a job of ``job_type`` fits in what the server has free now."""


class HoldsJobs(ABC):
    """Jobs held (running or waiting) that a client may list to reconcile (``GET .../jobs``)."""

    @abstractmethod
    def held_jobs(self, after: str | None, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The first ``limit`` held jobs whose ids sort after ``after``, by id, and how many
        are held in all."""


class TracksJobs(RunsJobs):
    """Where each job is, including those that wait or have finished
    (``GET .../jobs/{job_id}``)."""

    @abstractmethod
    def job_view(self, job_id: str) -> Mapping[str, Any]:
        """The job's status and server (``UnknownJob`` if it was never seen)."""


class HasDeployments(KeepsTime):
    """Deployments holding cores of a capacity over their lifetimes, on the engine's clock
    (``GET .../deployments/{id}``, the Kubernetes admission webhook)."""

    @abstractmethod
    def deployment_view(self, deployment_id: str) -> dict[str, Any]:
        """The deployment's belief and expected cores (``UnknownDeployment`` if none)."""

    @abstractmethod
    def deployment_cores(self, deployment_id: str) -> tuple[int, bool] | None:
        """The cores a deployment holds and whether it is alive; None if never seen."""

    @abstractmethod
    def capacity_use(self) -> tuple[int, int]:
        """Cores active now and the cluster's capacity."""


class ShowsAdmissible(ABC):
    """What the cluster can admit as it stands, in figures a person reads (the creation
    answer, a declaration's dry run, ``/state``)."""

    @abstractmethod
    def admissible(self) -> dict[str, Any]:
        """The largest arrival admissible now and a typical one's decision; read-only."""
