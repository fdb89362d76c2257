"""`headroom what-if` against the database a service wrote: the same figures as the API's run,
as a table or JSON; a bad question is refused with the API's message and exit status 2; the
cluster is left as it was."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.config import get_settings
from app.main import create_app
from tests.api.test_whatif import drive_placement
from tests.conftest import admin_client, make_settings
from tests.helpers import cluster_spec


@pytest.fixture
def logged(db_url, monkeypatch):
    app = create_app(make_settings(db_url), configure_logs=False)
    with admin_client(app) as client:
        cid = client.post("/v1/clusters", json=cluster_spec(
            name="east", policy={"kind": "dra"}, servers=3)).json()["id"]
        drive_placement(client, cid, n=200, seed=3)
        version = client.get(f"/v1/clusters/{cid}").json()["version"]
    monkeypatch.setenv("HEADROOM_DATABASE_URL", db_url)
    get_settings.cache_clear()
    yield app, cid, version
    get_settings.cache_clear()


def test_the_cli_prints_the_figures_the_api_computes(logged, capsys) -> None:
    _app, cid, version = logged
    assert main(["what-if", "east", "--policy", '{"kind": "best_fit"}', "--seeds", "0,1",
                 "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    # The whole log, read as the service's run reads it, under both policies.
    assert printed["events"] == version and printed["first_seq"] == 1
    assert printed["policy"]["kind"] == "dra" and printed["policy"]["reproduces_log"]
    assert printed["alternative"]["kind"] == "best_fit" and printed["seeds"] == [0, 1]

    assert main(["what-if", cid, "--policy", '{"kind": "best_fit"}', "--seeds", "0,1"]) == 0
    text = capsys.readouterr().out
    alt = printed["alternative"]["summary"]
    assert "dra (ran) against best_fit" in text
    assert f"{alt['acceptance']:.4g}" in text
    assert f"{printed['differences']['count']} logged events decided differently" in text
    first = printed["differences"]["first"][0]
    assert any(line.split()[0] == str(first["seq"]) for line in text.splitlines() if line.strip())


def test_the_advisor_on_the_cli(logged, capsys) -> None:
    _app, _cid, version = logged
    assert main(["what-if", "east", "--advise", "acceptance", "--max-rejection", "0.5"]) == 0
    text = capsys.readouterr().out
    assert f"Advice over events 1–{version}" in text and "acceptance" in text
    for kind in ("dra b=0.5 (ran)", "first_fit", "best_fit", "power_of_d"):
        assert kind in text
    assert "On events 1–" in text


@pytest.mark.parametrize("args, says", [
    (["--policy", '{"kind": "rms"}'], "policy.kind must be a kind of this cluster's family"),
    (["--policy", "{not json"], "Expecting property name"),
    (["--policy", '{"kind": "power_of_d", "d": 0}'], "policy.d"),
    (["--advise", "queue_wait"], "does not apply to a placement cluster"),
    (["--policy", '{"kind": "best_fit"}', "--from-seq", "9", "--to-seq", "3"], "window.to_seq"),
])
def test_a_bad_question_is_refused_and_changes_nothing(logged, capsys, args, says) -> None:
    app, cid, version = logged
    assert main(["what-if", "east", *args]) == 2
    assert says in capsys.readouterr().err
    with admin_client(app) as client:
        assert client.get(f"/v1/clusters/{cid}").json()["version"] == version
        assert client.get(f"/v1/clusters/{cid}/what-if").json()["items"] == []


def test_an_unknown_cluster(logged, capsys) -> None:
    assert main(["what-if", "west", "--policy", '{"kind": "best_fit"}']) == 2
    assert "no cluster 'west'" in capsys.readouterr().err
