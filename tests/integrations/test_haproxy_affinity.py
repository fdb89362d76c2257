"""Affinity behind a real proxy: Debian's HAProxy with the shipped deploy/haproxy/haproxy.cfg in
front of two `headroom serve` processes on one Postgres database (issue #19).

Several clusters are driven through the proxy, each by its own client, concurrently. Checked:
each cluster's requests reach one process, so no process replays another's decisions (the
catch-up counter stays near zero); every answer is the one a single process gives for the same
requests; then the busier process is killed (SIGKILL) mid-run, its clusters move to the other,
and no acknowledged decision is lost (each is in the log at the seq it was answered with).
``.ci/run`` installs haproxy, so CI fails, never skips.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.main import create_app
from app.store.migrate import upgrade
from tests.conftest import IN_CI, admin_client, make_settings
from tests.helpers import cluster_spec
from tests.live import ROOT, LiveServer, free_port

pytestmark = pytest.mark.postgres
CONFIG = ROOT / "deploy" / "haproxy" / "haproxy.cfg"
OWNED = 3  # clusters each process owns (ids are random: created until both own this many)
BEFORE_KILL = 24  # events per cluster before the kill phase
AFTER = 24  # events per cluster in the kill phase; the kill comes after a third of them
RETRYABLE = (502, 503, 504)
SERVED_BY = "X-Headroom-Served-By"  # set by the shipped configuration  # the proxy had no answer from a process (or a lock timed out)


@pytest.fixture(scope="module")
def haproxy_bin() -> str:
    path = shutil.which("haproxy")
    if path is None:
        if IN_CI:
            pytest.fail("haproxy is missing; .ci/run installs Debian's haproxy", pytrace=False)
        pytest.skip("haproxy is missing (apt-get install haproxy)")
    return path


class Proxy:
    """``haproxy -db`` on the shipped configuration, its addresses from the environment."""

    def __init__(self, binary: str, backends: list[str], log: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "HEADROOM_PROXY_BIND": f"127.0.0.1:{self.port}",
               **{f"HEADROOM_BACKEND_{n}": b for n, b in enumerate(backends, 1)}}
        self.log = log.open("wb")
        self.proc = subprocess.Popen([binary, "-db", "-f", str(CONFIG)], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def wait_ready(self, servers: set[str]) -> None:
        """Until round-robin requests have reached every one of ``servers`` (all UP)."""
        seen: set[str] = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, "haproxy exited"
            try:
                r = httpx.get(self.url + "/readyz", timeout=5)
                if r.status_code == 200:
                    seen.add(r.headers.get(SERVED_BY, ""))
                    if seen >= servers:
                        return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"haproxy did not reach {servers} in 60 s (saw {seen})")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def _events(k: int, start: int, count: int) -> list[tuple[str, dict[str, Any]]]:
    """Cluster k's requests start..start+count: two arrivals, then a departure of the first."""
    out = []
    for n in range(start, start + count):
        if n % 3 == 2:
            out.append(("departures", {"event_id": f"d{n}", "job_id": f"j{n - 2}"}))
        else:
            out.append(("arrivals", {"event_id": f"a{n}", "job_id": f"j{n}",
                                     "job_type": "small" if (n + k) % 2 else "large"}))
    return out


def _post(client: httpx.Client, cid: str, path: str, body: dict[str, Any]
          ) -> tuple[int, dict[str, Any], str]:
    """Post until answered: a request the proxy could not deliver (or whose process died under
    it) is sent again with the same event_id, which is what makes that safe."""
    for _ in range(120):
        try:
            r = client.post(f"/v1/clusters/{cid}/{path}", json=body)
        except httpx.TransportError:
            time.sleep(0.25)
            continue
        if r.status_code in RETRYABLE:
            time.sleep(0.25)
            continue
        return r.status_code, r.json(), r.headers.get(SERVED_BY, "")
    raise AssertionError(f"{cid}/{path} {body} never answered")


def _drive(url: str, headers: dict[str, str], ids: list[str], start: int, count: int,
           answers: dict[str, list], after_each: Any = None) -> None:
    def one(k: int, cid: str) -> None:
        with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
            for path, body in _events(k, start, count):
                answers[cid].append((body["event_id"], *_post(client, cid, path, body)))
                if after_each is not None:
                    after_each()

    threads = [threading.Thread(target=one, args=(k, cid)) for k, cid in enumerate(ids)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a client did not finish in 10 minutes"


def _metric(url: str, name: str) -> float:
    text = httpx.get(url + "/metrics", timeout=30).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith((name + " ", name + "{")))


def _summary(status: int, body: dict[str, Any]) -> tuple:
    if status == 200:
        return status, body["decision"], body.get("server_id"), body["event_seq"]
    return status, body["code"]


def _single_process(tmp_path: Path, specs: list[dict[str, Any]], total: int) -> list[list]:
    """The same requests, cluster by cluster, to one in-process app on SQLite."""
    settings = make_settings(f"sqlite:///{tmp_path / 'single.db'}")
    upgrade(settings)
    app = create_app(settings, configure_logs=False)
    out = []
    with admin_client(app) as c:
        for k, spec in enumerate(specs):
            cid = c.post("/v1/clusters", json=spec).json()["id"]
            out.append([_summary(r.status_code, r.json()) for r in (
                c.post(f"/v1/clusters/{cid}/{path}", json=body)
                for path, body in _events(k, 0, total))])
    return out


@pytest.fixture
def two_processes(postgres_url) -> Iterator[list[LiveServer]]:
    servers = [LiveServer(postgres_url, extra_args=("--no-migrate",)) for _ in range(2)]
    started: list[LiveServer] = []
    try:
        for s in servers:
            started.append(s.__enter__())
        yield servers
    finally:
        for s in started:
            s.__exit__()


def test_affinity_no_catch_up_same_decisions_and_failover_loses_nothing(
        haproxy_bin, two_processes, tmp_path):
    a, b = two_processes
    by_name = {"app1": a, "app2": b}  # the configuration's server names, in backend order
    proxy = Proxy(haproxy_bin, [f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"],
                  tmp_path / "haproxy.log")
    try:
        proxy.wait_ready(set(by_name))
        headers = a.headers
        specs: list[dict[str, Any]] = []
        ids: list[str] = []
        owner: dict[str, str] = {}
        with httpx.Client(base_url=proxy.url, headers=headers, timeout=60) as c:
            while min(sum(o == n for o in owner.values()) for n in by_name) < OWNED:
                assert len(ids) < 40, owner  # 2^-37 for an even hash
                specs.append(cluster_spec(name=f"aff-{len(ids)}", servers=6))
                ids.append(c.post("/v1/clusters", json=specs[-1]).json()["id"])
                owner[ids[-1]] = c.get(f"/v1/clusters/{ids[-1]}/state").headers[SERVED_BY]
        answers: dict[str, list] = {cid: [] for cid in ids}

        # Phase 1: both processes up; each cluster's requests all reach its owner.
        _drive(proxy.url, headers, ids, 0, BEFORE_KILL, answers)
        for cid in ids:
            assert {served for *_, served in answers[cid]} == {owner[cid]}, cid
        decided = {s.url: _metric(s.url, "headroom_decisions_total") for s in (a, b)}
        catch_up = sum(_metric(s.url, "headroom_catch_up_replayed_events_total")
                       for s in (a, b))
        total = sum(decided.values())
        assert total == sum(status == 200 for v in answers.values() for _, status, *_ in v)
        assert catch_up <= 0.01 * total, (catch_up, total)

        # Phase 2: the process owning more clusters is killed a third of the way in.
        victim_name = max(by_name, key=lambda n: sum(o == n for o in owner.values()))
        victim = by_name[victim_name]
        survivor = b if victim is a else a
        done = [0]
        lock = threading.Lock()

        def maybe_kill() -> None:
            with lock:
                done[0] += 1
                if done[0] == len(ids) * AFTER // 3:
                    os.killpg(victim.proc.pid, signal.SIGKILL)

        loads = _metric(survivor.url, "headroom_engine_full_loads_total")
        _drive(proxy.url, headers, ids, BEFORE_KILL, AFTER, answers, maybe_kill)
        assert victim.proc.poll() is not None  # it really died mid-run
        # The victim's clusters moved: the survivor loaded engines it had never held, from
        # their snapshots and logs (a full load, not a catch-up).
        assert _metric(survivor.url, "headroom_engine_full_loads_total") > loads
        for cid in ids:  # after the kill, the survivor answered everything
            assert answers[cid][-1][3] != victim_name
        after = _metric(survivor.url, "headroom_decisions_total")
        assert _metric(survivor.url, "headroom_catch_up_replayed_events_total") <= 0.01 * after

        # Every answer is a single process's answer to the same requests, and every
        # acknowledged decision is in the log at the seq it was answered with.
        single = _single_process(tmp_path, specs, BEFORE_KILL + AFTER)
        with httpx.Client(base_url=proxy.url, headers=headers, timeout=60) as c:
            for k, cid in enumerate(ids):
                got = [_summary(status, body) for _, status, body, _ in answers[cid]]
                assert got == single[k], cid
                logged = {e["event_id"]: e for e in c.get(
                    f"/v1/clusters/{cid}/events", params={"limit": 1000}).json()["items"]}
                acked_here = [(eid, body) for eid, status, body, _ in answers[cid]
                              if status == 200]
                assert len(logged) == len(acked_here)
                for eid, body in acked_here:
                    assert logged[eid]["seq"] == body["event_seq"]
                    assert logged[eid]["response"]["decision"] == body["decision"]
                    assert logged[eid]["response"].get("server_id") == body.get("server_id")
    finally:
        proxy.stop()
