"""integrations/slurm/headroom_slurm.py without Slurm: the job-type rule, GRES, config, retries."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from tests.live import free_port

PATH = Path(__file__).resolve().parents[2] / "integrations" / "slurm" / "headroom_slurm.py"
spec = importlib.util.spec_from_file_location("headroom_slurm", PATH)
hs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hs)

DIMS = {"cpu": "cpu", "memory_mb": "memory", "gres/gpu": "gpu"}
CLUSTER = {
    "server_pools": [{"name": "rack", "count": 2, "capacity": {"cpu": 8, "memory": 64000,
                                                                 "gpu": 2}}],
    "job_types": [
        {"name": "cpu-big", "demand": {"cpu": 8, "memory": 8000}},
        {"name": "mem-big", "demand": {"cpu": 2, "memory": 32000}},
        {"name": "tiny", "demand": {"cpu": 1, "memory": 1000}},
        {"name": "gpu", "demand": {"cpu": 2, "memory": 8000, "gpu": 1}},
    ],
}


@pytest.mark.parametrize("request_, expected", [
    ({"cpu": 1, "memory_mb": 0}, "tiny"),
    ({"cpu": 1, "memory_mb": 1000}, "tiny"),
    # Covered by cpu-big (8/8 + 8000/64000 = 1.125), gpu (0.25 + 0.125 + 1/2 GPUs = 0.875) and
    # mem-big (2/8 + 0.5 = 0.75): the rule compares shares of a server, so neither the type with
    # the fewest MB nor the one holding a scarce GPU is taken.
    ({"cpu": 2, "memory_mb": 8000}, "mem-big"),
    ({"cpu": 2, "memory_mb": 9000}, "mem-big"),
    ({"cpu": 3, "memory_mb": 1000}, "cpu-big"),
    ({"cpu": 1, "memory_mb": 0, "gres/gpu": 1}, "gpu"),
])
def test_the_smallest_covering_type_is_chosen(request_, expected):
    assert hs.choose_job_type(request_, CLUSTER, DIMS) == (expected, None)


def test_ties_are_broken_by_name_so_the_choice_is_deterministic():
    cluster = {**CLUSTER, "job_types": [{"name": "b", "demand": {"cpu": 1}},
                                        {"name": "a", "demand": {"cpu": 1}}]}
    assert hs.choose_job_type({"cpu": 1}, cluster, {"cpu": "cpu"}) == ("a", None)


def test_shapes_no_type_covers_are_refused_with_the_declared_types():
    name, why = hs.choose_job_type({"cpu": 9, "memory_mb": 0}, CLUSTER, DIMS)
    assert name is None
    assert "no declared job type covers cpu=9 memory_mb=0" in why
    assert "tiny(cpu=1 memory=1000)" in why


def test_a_resource_the_cluster_does_not_model_is_refused_not_ignored():
    name, why = hs.choose_job_type({"cpu": 1, "gres/fpga": 1}, CLUSTER, DIMS)
    assert name is None and "gres/fpga=1" in why and "does not model" in why


@pytest.mark.parametrize("spec_, counts", [
    ("", {}),
    ("gres:gpu:2", {"gres/gpu": 2}),
    ("gres:gpu:a100:1,gres:gpu:v100:2", {"gres/gpu": 3}),
    ("gpu", {"gres/gpu": 1}),
    ("gres:gpu:1,gres:nic:1", {"gres/gpu": 1, "gres/nic": 1}),
])
def test_gres_requests_are_counted_per_name(spec_, counts):
    assert hs.parse_gres(spec_) == counts


def test_config_needs_url_and_cluster_and_says_which_line_is_wrong(tmp_path):
    conf = tmp_path / "headroom.conf"
    conf.write_text("url = http://x\n")
    with pytest.raises(hs.ConfigError, match="cluster_id is not set"):
        hs.read_config(str(conf))
    conf.write_text("url = http://x\ncluster_id = c\nnonsense\n")
    with pytest.raises(hs.ConfigError, match=r"headroom.conf:3"):
        hs.read_config(str(conf))
    conf.write_text("url = http://x # the service\ncluster_id = c\nnode.rack-0 = n1\n")
    cfg = hs.read_config(str(conf))
    assert cfg["url"] == "http://x" and cfg["node"] == {"rack-0": "n1"}
    assert cfg["dimension"] == {"cpu": "cpu", "memory_mb": "memory"}


class FlakyHeadroom(BaseHTTPRequestHandler):
    """Answers 503 to the first arrival, then places it; records every arrival body."""
    arrivals: ClassVar[list[dict]] = []

    def log_message(self, *args):
        pass

    def _send(self, status, doc):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._send(200, CLUSTER)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.arrivals.append(body)
        if len(self.arrivals) == 1:
            self._send(503, {"code": "unavailable"})
        else:
            self._send(200, {"decision": "placed", "server_id": "rack-1",
                             "reason": "first_server_that_fits"})


def run_submit(tmp_path, capsys, url, timeout=2.0):
    conf = tmp_path / "headroom.conf"
    conf.write_text(f"url = {url}\ncluster_id = c\ntimeout_seconds = {timeout}\n"
                    "node.rack-1 = n7\n")
    start = time.monotonic()
    assert hs.main(["--config", str(conf), "submit", "--cpus", "2", "--mem-mb", "5000"]) == 0
    took = time.monotonic() - start
    lines = capsys.readouterr().out.splitlines()
    return dict(line.split("=", 1) for line in lines), took


def test_an_arrival_is_retried_with_the_same_event_id(tmp_path, capsys):
    FlakyHeadroom.arrivals = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FlakyHeadroom)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        answer, _ = run_submit(tmp_path, capsys, f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
    assert answer["decision"] == "placed" and answer["node"] == "n7"
    assert answer["type"] == "mem-big" and answer["mem_mb"] == "32000"
    first, second = FlakyHeadroom.arrivals
    assert first == second and first["event_id"] == "arrival-" + first["job_id"]


def test_a_dead_headroom_is_an_error_within_the_timeout(tmp_path, capsys):
    answer, took = run_submit(tmp_path, capsys, f"http://127.0.0.1:{free_port()}", timeout=0.5)
    assert answer["decision"] == "error" and "did not answer in time" in answer["message"]
    assert took < 1.5


class SlowHeadroom(FlakyHeadroom):
    """Decides every arrival but answers too late; records every POST as (path, body)."""
    posts: ClassVar[list[tuple[str, dict]]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.posts.append((self.path.rsplit("/", 1)[1], body))
        if self.path.endswith("/arrivals"):
            time.sleep(1.0)
        self._send(200, {"decision": "released", "server_id": "rack-1"})


def test_an_arrival_whose_answer_is_lost_is_withdrawn(tmp_path, capsys):
    """Headroom may have booked the job; Slurm will not run it under that id, so the helper
    posts its departure before giving up (else the slot stays booked for ever)."""
    SlowHeadroom.posts = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowHeadroom)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        answer, took = run_submit(tmp_path, capsys, f"http://127.0.0.1:{server.server_port}",
                                  timeout=0.5)
    finally:
        server.shutdown()
    assert answer["decision"] == "error"
    kinds = [kind for kind, _ in SlowHeadroom.posts]
    assert kinds[0] == "arrivals" and kinds[-1] == "departures", kinds
    job = SlowHeadroom.posts[0][1]["job_id"]
    assert SlowHeadroom.posts[-1][1] == {"event_id": "departure-" + job, "job_id": job}
    assert took < 2.5  # within the hook's kill limit, timeout_seconds + 2


@pytest.fixture
def fake_slurm(tmp_path, monkeypatch):
    """squeue answers two Headroom jobs (42 running, 43 pending); scontrol records its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "scontrol.calls"
    (bin_dir / "squeue").write_text(
        "#!/bin/sh\necho '42 RUNNING headroom:slurm-run'\necho '43 PENDING headroom:slurm-wait'\n")
    (bin_dir / "scontrol").write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return calls


@pytest.mark.parametrize("job, expected", [
    ("slurm-run", ["update JobId=42 Comment=headroom migrated slurm-run from n1 to n2; Slurm "
                   "cannot live-migrate, it keeps running where it is"]),
    ("slurm-wait", ["update JobId=43 ReqNodeList=n2",
                    "update JobId=43 Comment=headroom migrated slurm-wait from n1 to n2; not "
                    "started yet, re-pinned"]),
])
def test_a_migration_is_reported_on_the_job_and_repins_a_job_not_yet_started(fake_slurm, job,
                                                                               expected):
    log = io.StringIO()
    cfg = {"node": {"rack-0": "n1", "rack-1": "n2"}}
    hs.report_migration(cfg, {"job_id": job, "from_server_id": "rack-0",
                              "to_server_id": "rack-1"}, log)
    assert fake_slurm.read_text().splitlines() == expected
    assert log.getvalue().strip() == expected[-1].split("Comment=", 1)[1]
