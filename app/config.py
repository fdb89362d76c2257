"""Settings from the environment (prefix ``HEADROOM_``), read once per process."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.store import multihost

# The embedded default: a SQLite file in the working directory, so `headroom serve` runs on a
# machine with no database server. Production uses postgresql+psycopg://...
DEFAULT_DATABASE_URL = "sqlite:///./headroom.db"

# The request limits on Postgres when none is set (docs/operations.md, "Request limits"); the
# embedded SQLite default, one newcomer on one machine, has none. Each is per process.
POSTGRES_LIMITS = {"key_requests_per_second": 300, "owner_requests_per_second": 600,
                   "owner_expensive_in_flight": 4}
# The environment that turns every request limit off: for the benchmarks' and the test suite's
# own servers, whose clients send what no orchestrator does.
LIMITS_OFF_ENV = {f"HEADROOM_{name.upper()}": "0" for name in POSTGRES_LIMITS}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HEADROOM_", extra="ignore")

    database_url: str = DEFAULT_DATABASE_URL
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    workers: int = Field(1, ge=1, le=64)
    log_level: str = "info"
    # Requests larger than this are refused with 413 before they are parsed.
    max_body_bytes: int = Field(1_048_576, ge=1024)
    # Limits on what one cluster may declare; they keep a single request from exhausting memory.
    max_servers: int = Field(200_000, ge=1)
    max_job_types: int = Field(64, ge=1)
    max_batch_events: int = Field(1_000, ge=1)
    # An engine snapshot is written every this many events, bounding the replay after a restart.
    snapshot_every: int = Field(1_000, ge=1)
    # Engines kept in memory per process (least recently used are dropped).
    engine_cache_size: int = Field(64, ge=1)
    # Catching a cached engine up with events another process logged: every this many
    # (by seq) is decided again and checked against the log; the others follow the logged
    # answer where the family can (placement's first/best fit). 1 checks every event. Loads
    # from a snapshot always check every event. docs/architecture.md, "Cheaper catch-up".
    catch_up_verify_every: int = Field(16, ge=1)
    # Cross-stream group commit: one transaction decides the queued single events of every
    # cluster this process has (docs/architecture.md, "Group commit"). On by default: on a
    # quiet machine it lowered the p99 of 16 THOR streams and raised one cluster's single-event
    # rate (docs/benchmarks.md). false: one transaction per cluster, for a process whose
    # clusters must not wait on each other's snapshots.
    group_across_clusters: bool = True
    # How long a request waits for a cluster's lock before giving up with 503 (Postgres only).
    lock_timeout_ms: int = Field(5_000, ge=1)
    # Postgres: no single statement may run longer; bounds how long any request holds a lock.
    statement_timeout_ms: int = Field(30_000, ge=1)
    # Postgres: how long libpq tries each host of the URL before the next (a multi-host URL
    # tries them all), and so how long a request waits for a database that does not answer.
    connect_timeout_seconds: int = Field(5, ge=1, le=600)
    # Postgres: a transaction-pooling proxy (PgBouncer's pool_mode = transaction, or any
    # pooler that hands a server connection to a client for one transaction) sits between
    # Headroom and the database. Then Headroom prepares no statements on the server and sets
    # its lock and statement timeouts in each transaction instead of at connect
    # (docs/operations.md, "Behind PgBouncer").
    database_transaction_pooling: bool = False
    # How often each process's background loop fires the clocks of wall-clock queued clusters
    # (RMS). 0 turns the loop off: then only POST .../tick moves them.
    tick_interval_seconds: float = Field(1.0, ge=0, le=3600)
    # Moment clusters' thresholds are calibrated for their declarations in the background
    # (docs/moments.md): at most this many calibrations run at once in each process, each in
    # a child process at the lowest CPU priority (0: this process runs none; another may).
    calibration_workers: int = Field(1, ge=0, le=64)
    # Simulated lives per candidate threshold (None: the recipe's, 32). More lives state a
    # higher confidence for the same τ and take longer: for operators with the cores (a Dask
    # cluster, HEADROOM_DASK_SCHEDULER). Part of the calibration's key: clusters declared
    # under another value calibrate again.
    calibration_lives: int | None = Field(None, ge=1, le=100_000)
    # What-if runs (docs/what-if.md) computed at once in each process, each in a child process
    # at the lowest CPU priority (0: this process runs none; another may).
    what_if_workers: int = Field(1, ge=0, le=64)
    # A Dask scheduler's address: calibrations' lives run on its workers instead of locally.
    dask_scheduler: str | None = Field(None, max_length=200)
    # The admission webhook answers within this (or half the API server's own ?timeout=,
    # whichever is less), even when the cluster's lock is busy: docs/integrations/kubernetes.md.
    kube_webhook_deadline_seconds: float = Field(5.0, gt=0, le=29)
    # On SIGTERM (or Ctrl-C) `headroom serve` stops accepting, lets running requests finish
    # for this long, then exits even if a request thread is still busy (docs/operations.md).
    shutdown_timeout_seconds: int = Field(10, ge=1, le=3600)
    # Serve HTTPS with this certificate and key (PEM files). Kubernetes calls admission
    # webhooks over TLS only; a TLS-terminating proxy in front does as well.
    tls_certfile: Path | None = None
    tls_keyfile: Path | None = None
    migrations_dir: Path | None = None
    # Every /v1 request needs an API key unless this is set: for local development only.
    auth_disabled: bool = False
    # How long a process trusts a key it has checked (revocation takes effect within this).
    auth_cache_seconds: float = Field(5.0, ge=0, le=300)
    # Set: /metrics answers only `Authorization: Bearer <this>` and carries the per-cluster
    # series (labelled by cluster id, of every owner). Unset (or empty): /metrics is open and
    # exports aggregates only. docs/operations.md, "Observe".
    metrics_token: SecretStr | None = None

    # Request limits, each per process (docs/operations.md, "Request limits"); 0 turns one off,
    # unset takes POSTGRES_LIMITS on Postgres and 0 on SQLite. Requests per second of one key,
    # and of all the keys of one owner; an owner's expensive requests (declarations, dry runs,
    # batches, the Kubernetes extender's filter and prioritize) in flight at once.
    key_requests_per_second: int | None = Field(None, ge=0, le=1_000_000)
    owner_requests_per_second: int | None = Field(None, ge=0, le=1_000_000)
    owner_expensive_in_flight: int | None = Field(None, ge=0, le=10_000)

    @field_validator("database_url")
    @classmethod
    def _normalise_database_url(cls, v: str) -> str:
        # Accept the URLs people paste from elsewhere; we always drive Postgres with psycopg 3,
        # and libpq's multi-host lists (a Patroni cluster's nodes) in the form SQLAlchemy reads.
        for prefix in ("postgres://", "postgresql://"):
            if v.startswith(prefix):
                v = "postgresql+psycopg://" + v[len(prefix):]
        return multihost.normalise(v)

    @field_validator("metrics_token")
    @classmethod
    def _metrics_token(cls, v: SecretStr | None) -> SecretStr | None:
        # An empty variable (compose's ${VAR:-}) means unset. No other check: a refusal's
        # message would quote the value.
        return v if v is not None and v.get_secret_value() else None

    @model_validator(mode="after")
    def _default_limits(self) -> Settings:
        for name, on_postgres in POSTGRES_LIMITS.items():
            if getattr(self, name) is None:
                setattr(self, name, 0 if self.is_sqlite else on_postgres)
        return self

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    return Settings()
