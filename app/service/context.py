"""What a request needs from the process: settings, database sessions, the engine cache."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.metrics import Metrics
from app.service.auth import AuthCache
from app.service.engines import EngineCache
from app.store.db import make_engine, make_sessionmaker


@dataclass
class ServiceContext:
    settings: Settings
    db: Engine
    sessions: sessionmaker[Session]
    engines: EngineCache
    metrics: Metrics = field(default_factory=Metrics)
    auth_cache: AuthCache | None = None
    cluster_owners: dict[str, tuple[float, str, str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.auth_cache is None:
            self.auth_cache = AuthCache(self.settings.auth_cache_seconds)

    @classmethod
    def from_settings(cls, settings: Settings) -> ServiceContext:
        db = make_engine(settings)
        return cls(settings=settings, db=db, sessions=make_sessionmaker(db),
                   engines=EngineCache(settings.engine_cache_size))

    def close(self) -> None:
        self.db.dispose()
