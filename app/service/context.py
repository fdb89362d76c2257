"""What a request needs from the process: settings, database sessions, the engine cache, the
group-commit queues and the declared policy families."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.families.base import FamilyRegistry
from app.metrics import Metrics
from app.service.auth import AuthCache
from app.service.engines import EngineCache
from app.service.group_commit import GroupCommit
from app.service.lock_waits import LockWaits
from app.store.db import make_engine, make_sessionmaker
from app.tracing import Tracing


@dataclass
class ServiceContext:
    settings: Settings
    db: Engine
    sessions: sessionmaker[Session]
    engines: EngineCache
    # Injected by the application (app/main.py), which knows the declarations; a context
    # built without them (the CLI's key commands) serves no cluster.
    families: FamilyRegistry = field(default_factory=FamilyRegistry)
    groups: GroupCommit[Any] = field(default_factory=GroupCommit)
    metrics: Metrics = field(default_factory=Metrics)
    tracing: Tracing = field(default_factory=Tracing)  # off unless app/main.py sets it up
    auth_cache: AuthCache | None = None
    cluster_owners: dict[str, tuple[float, str, str, str]] = field(default_factory=dict)
    lock_waits: LockWaits = field(default_factory=LockWaits)
    # The thread deciding queued single events (app/service/decider.py), once one is queued.
    decider: Any = None
    # This worker's share of the host's clusters (app/service/affinity.py), under
    # `headroom serve --workers N`.
    affinity: Any = None

    def __post_init__(self) -> None:
        if self.auth_cache is None:
            self.auth_cache = AuthCache(self.settings.auth_cache_seconds)

    @classmethod
    def from_settings(cls, settings: Settings, families: FamilyRegistry | None = None
                      ) -> ServiceContext:
        db = make_engine(settings)
        # Per-cluster series only where a token keeps them from anyone who can reach the port.
        metrics = Metrics(per_cluster=settings.metrics_token is not None)
        return cls(settings=settings, db=db, sessions=make_sessionmaker(db),
                   engines=EngineCache(settings.engine_cache_size, metrics,
                                       verify_every=settings.catch_up_verify_every),
                   families=families or FamilyRegistry(), metrics=metrics)

    def close(self) -> None:
        if self.decider is not None:
            self.decider.close()
        self.db.dispose()
