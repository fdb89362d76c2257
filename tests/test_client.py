"""The typed client in clients/python: generated from the committed OpenAPI document, never
drifting from it, and working against a real server."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tools.client_codegen import CLIENT_DIR, REGENERATE, generate, tree
from tests.helpers import cluster_spec
from tests.live import LiveServer

# The client is its own package (clients/python/pyproject.toml); the tests import it from the
# checkout so that a fresh clone's `pip install -e '.[test]'` is all they need.
sys.path.insert(0, str(CLIENT_DIR))

from headroom_client import AuthenticatedClient
from headroom_client.api.clusters import create_cluster, get_cluster_state, get_server
from headroom_client.api.placement import post_arrival
from headroom_client.models import (
    ArrivalIn,
    ClusterCreate,
    ClusterOut,
    FitState,
    PlacementOut,
    Problem,
    ServerView,
)


def test_committed_client_matches_openapi(tmp_path):
    fresh = tmp_path / "python"
    generate(fresh)
    want, have = tree(fresh), tree(CLIENT_DIR)
    stale = sorted(p for p in want.keys() | have.keys() if want.get(p) != have.get(p))
    assert not stale, (f"clients/python is stale against openapi/openapi.json ({stale[:5]}...): "
                       f"run `{REGENERATE}` and commit the result")


@pytest.fixture
def server(postgres_url) -> Iterator[LiveServer]:
    with LiveServer(postgres_url, extra_args=("--no-migrate",)) as live:
        yield live


@pytest.mark.postgres
def test_typed_client_create_decide_replay_and_problem(server):
    with AuthenticatedClient(base_url=server.url, token=server.key, timeout=30) as api:
        cluster = create_cluster.sync(client=api, body=ClusterCreate.from_dict(cluster_spec()))
        assert isinstance(cluster, ClusterOut), cluster

        arrival = ArrivalIn(event_id="evt-1", job_id="vm-1", job_type="large")
        first = post_arrival.sync(cluster.id, client=api, body=arrival)
        assert isinstance(first, PlacementOut), first
        assert first.decision.value == "placed" and first.replayed is False

        retry = post_arrival.sync(cluster.id, client=api, body=arrival)
        assert isinstance(retry, PlacementOut)
        assert retry.replayed is True
        assert (retry.event_seq, retry.server_id) == (first.event_seq, first.server_id)

        # The read views come back typed, told apart by policy kind.
        state = get_cluster_state.sync(cluster.id, client=api)
        assert isinstance(state, FitState) and state.policy.value == "first_fit", state
        assert state.jobs == 1 and state.jobs_per_type.additional_properties == {"small": 0, "large": 1}
        view = get_server.sync(cluster.id, first.server_id, client=api)
        assert isinstance(view, ServerView) and view.jobs == ["vm-1"], view

        bad = post_arrival.sync_detailed(
            cluster.id, client=api, body=ArrivalIn(event_id="evt-2", job_id="vm-2", job_type="huge"))
        assert bad.status_code == 404
        assert isinstance(bad.parsed, Problem), bad.content
        assert bad.parsed.code == "unknown_job_type" and bad.parsed.status == 404

    with AuthenticatedClient(base_url=server.url, token="not-a-key", timeout=30) as stranger:
        denied = create_cluster.sync(client=stranger, body=ClusterCreate.from_dict(cluster_spec()))
        assert isinstance(denied, Problem) and denied.status == 401, denied
