"""One ``headroom serve`` on its own Postgres database and one fake API server, shared by
the Kubernetes contract tests of the session (starting a server costs seconds under load)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.config import Settings
from app.store.migrate import upgrade
from tests.conftest import FreshDatabase
from tests.integrations.kubernetes.fakes import FakeApiServer, fixture
from tests.live import LiveServer


@pytest.fixture(scope="session")
def env(pg_url, tmp_path_factory) -> Iterator[tuple[LiveServer, FakeApiServer, str]]:
    with FakeApiServer() as fake, FreshDatabase("headroom_k8s") as db:
        upgrade(Settings(database_url=db.url))
        for name in ("Pod.etl-small.json", "Pod.etl-large.json"):
            fake.add_pod(fixture(name))
        kubeconfig = fake.kubeconfig(tmp_path_factory.mktemp("kube") / "config")
        with LiveServer(db.url, extra_args=("--no-migrate",),
                        env={"KUBECONFIG": str(kubeconfig),
                             "KUBERNETES_SERVICE_HOST": None}) as server:
            yield server, fake, db.url


@pytest.fixture
def server(env) -> LiveServer:
    return env[0]


@pytest.fixture
def fake(env) -> Iterator[FakeApiServer]:
    env[1].bindings.clear()
    env[1].patches.clear()
    env[1].refuse_bindings = False
    yield env[1]


