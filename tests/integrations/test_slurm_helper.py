"""integrations/slurm/headroom_slurm.py without Slurm: the job-type rule, GRES, config, retries,
and against a live Headroom the tenant (the Slurm account) and gang (a multi-node job) requests."""

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

from tests.live import LiveServer, free_port

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


# --- Against a live Headroom: tenants (the Slurm account) and gangs (multi-node jobs). ---

SPEC = {
    "dimensions": ["cpu", "memory"],
    "server_pools": [{"name": "rack", "count": 3, "capacity": {"cpu": 4, "memory": 4000}}],
    "job_types": [{"name": "small", "demand": {"cpu": 1, "memory": 500}, "reward": 1},
                  {"name": "large", "demand": {"cpu": 4, "memory": 2000}, "reward": 5}],
    "policy": {"kind": "first_fit"},
}
NODE_OF = {"rack-0": "n1", "rack-1": "n2", "rack-2": "n3"}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """One real ``headroom serve`` (SQLite) for the module; each test declares its clusters."""
    root = tmp_path_factory.mktemp("helper-live")
    with LiveServer(f"sqlite:///{root / 'headroom.db'}", cwd=root) as server, \
            server.client() as client:
        yield server, client


def declare(live, name: str, **extra) -> str:
    r = live[1].post("/v1/clusters", json={**SPEC, "name": name, **extra})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def submit(live, tmp_path, capsys, cid: str, *args: str) -> dict[str, str]:
    server, _ = live
    conf = tmp_path / "headroom.conf"
    conf.write_text(f"url = {server.url}\ncluster_id = {cid}\napi_key = {server.key}\n"
                    f"timeout_seconds = 10\nlog = {tmp_path / 'headroom-slurm.log'}\n"
                    + "".join(f"node.{s} = {n}\n" for s, n in NODE_OF.items()))
    assert hs.main(["--config", str(conf), "submit", *args]) == 0
    out = capsys.readouterr().out
    return dict(line.split("=", 1) for line in out.splitlines())


def posted(client, path: str, body: dict) -> None:
    """An arrival or gang the test books itself, as another Slurm job would have."""
    r = client.post(path, json=body)
    assert r.status_code == 200 and r.json()["decision"] == "placed", r.text


def logged(live, cid: str) -> list[dict]:
    return live[1].get(f"/v1/clusters/{cid}/events").json()["items"]


TENANTS = [{"name": "physics", "nominal": {"cpu": 8, "memory": 8000}},
           {"name": "chem", "nominal": {"cpu": 1, "memory": 500}}]


def test_the_account_is_the_tenant_and_over_quota_is_refused_with_the_numbers(live, tmp_path,
                                                                              capsys):
    cid = declare(live, "accounts", tenants=TENANTS)
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "1", "--account", "chem")
    assert answer["decision"] == "placed" and answer["node"] == "n1", answer
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "1", "--account", "chem")
    assert answer["decision"] == "rejected", answer
    assert answer["message"] == (
        "quota_exceeded (job type small): account chem would exceed its nominal quota by "
        "cpu=1 memory=500 (in use cpu=1 memory=500; nominal cpu=1 memory=500; borrowed "
        "cpu=0 memory=0)")
    [first, second] = logged(live, cid)
    assert first["request"]["tenant"] == second["request"]["tenant"] == "chem"
    assert second["response"]["reason"] == "quota_exceeded"
    # No account, or one without a quota: refused with what to do; nothing is decided.
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "1")
    assert answer["decision"] == "refused" and "--account" in answer["message"], answer
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "1", "--account", "biology")
    assert answer["decision"] == "refused", answer
    assert "account biology has no quota" in answer["message"]
    assert len(logged(live, cid)) == 2


def test_a_cluster_without_tenants_gets_no_tenant(live, tmp_path, capsys):
    cid = declare(live, "plain")
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "1", "--account", "physics")
    assert answer["decision"] == "placed", answer
    [event] = logged(live, cid)
    assert "tenant" not in event["request"] or event["request"]["tenant"] is None


def test_a_multi_node_job_is_one_gang_with_a_member_per_node(live, tmp_path, capsys):
    cid = declare(live, "gang", tenants=TENANTS)
    # -N 2 -c 4: each node's share is the large type, which fills a server.
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "4", "--nodes", "2",
                    "--account", "physics")
    assert answer["decision"] == "placed", answer
    assert answer["type"] == "large" and answer["nodes"] == "2" and answer["mem_mb"] == "2000"
    assert answer["node"] == "n1,n2"
    job = answer["job"]
    assert hs.headroom_ids(job) == [job[:-len(".[0-1]")] + ".0", job[:-len(".[0-1]")] + ".1"]
    # One logged decision, the dry run before it leaves no trace.
    [event] = logged(live, cid)
    gang = job[:-len(".[0-1]")]
    assert event["kind"] == "gang" and event["request"]["tenant"] == "physics"
    assert event["event_id"] == "gang-" + gang
    assert [m["job_id"] for m in event["request"]["members"]] == hs.headroom_ids(job)
    # physics holds its whole quota now: a second 2-node job is refused with the numbers.
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "1", "--nodes", "2",
                    "--account", "physics")
    assert answer["decision"] == "rejected", answer
    assert answer["message"] == (
        "quota_exceeded (job type small, 2 nodes): account physics would exceed its nominal "
        "quota by cpu=2 (in use cpu=8 memory=4000; nominal cpu=8 memory=8000; borrowed cpu=0 "
        "memory=0)"), answer


def test_a_gang_the_cluster_cannot_place_whole_is_rejected_naming_the_node(live, tmp_path,
                                                                           capsys):
    cid = declare(live, "too-wide", tenants=[
        {"name": "physics", "nominal": {"cpu": 16, "memory": 16000}}])
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "4", "--nodes", "4",
                    "--account", "physics")
    assert answer["decision"] == "rejected", answer
    assert answer["message"].startswith(
        "no_server_fits (job type large, 4 nodes; node 4 of 4 did not fit)"), answer
    [event] = logged(live, cid)  # Headroom's refusal is logged, as any decision
    assert event["decision"] == "rejected"
    assert live[1].get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0


def test_a_gang_two_of_whose_nodes_would_share_a_server_is_refused_unbooked(live, tmp_path,
                                                                             capsys):
    """First fit puts both 1-CPU members on rack-0; Slurm would run the second elsewhere."""
    cid = declare(live, "shared", tenants=TENANTS)
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "1", "--nodes", "2",
                    "--account", "physics")
    assert answer["decision"] == "refused", answer
    assert "several of this job's 2 nodes on one server (rack-0)" in answer["message"]
    assert logged(live, cid) == []
    assert live[1].get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0


def test_a_multi_node_job_on_a_queued_cluster_is_refused_saying_the_plugin_runs_no_gangs_there(
        live, tmp_path, capsys):
    queued = declare(live, "queued", policy={"kind": "first_fit_queue"})
    answer = submit(live, tmp_path, capsys, queued, "--cpus", "4", "--nodes", "2")
    assert answer["decision"] == "refused", answer
    assert "this plugin runs gangs on placement clusters only" in answer["message"]
    assert "first_fit_queue" in answer["message"]
    assert logged(live, queued) == []


def test_a_multi_node_job_on_a_cluster_without_tenants_is_a_gang_without_tenant(
        live, tmp_path, capsys):
    plain = declare(live, "plain-gang")
    answer = submit(live, tmp_path, capsys, plain, "--cpus", "4", "--nodes", "2",
                    "--account", "physics")
    assert answer["decision"] == "placed" and answer["node"] == "n1,n2", answer
    [event] = logged(live, plain)
    assert event["kind"] == "gang" and event["request"].get("tenant") is None, event


@pytest.fixture
def slurm_tools(tmp_path, monkeypatch):
    """Fake squeue/scontrol/scancel on PATH: squeue lists a 2-node job 42 and a job 43;
    scontrol answers ``show job`` for them and records updates; scancel records its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    jobs = {"42": "headroom:slurm-g.[0-1]", "43": "headroom:slurm-one"}
    (bin_dir / "squeue").write_text("#!/bin/sh\n" + "".join(
        f"echo '{j} {c}'\n" for j, c in jobs.items()))
    (bin_dir / "scontrol").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = show ]; then\n'
        + "".join(f'  [ "$4" = {j} ] && echo "JobId={j} AdminComment={c} Comment=x"\n'
                  for j, c in jobs.items())
        + f'  exit 0\nfi\necho "scontrol $*" >> {calls}\n')
    (bin_dir / "scancel").write_text(f'#!/bin/sh\necho "scancel $*" >> {calls}\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return calls


def test_a_multi_node_job_departs_every_member_and_a_single_one_still_departs(
        live, tmp_path, capsys, slurm_tools):
    server, client = live
    cid = declare(live, "depart", tenants=TENANTS)
    posted(client, f"/v1/clusters/{cid}/gangs", {
        "event_id": "g", "gang_id": "slurm-g", "tenant": "physics", "members": [
            {"job_id": "slurm-g.0", "job_type": "large"},
            {"job_id": "slurm-g.1", "job_type": "large"}]})
    posted(client, f"/v1/clusters/{cid}/arrivals", {
        "event_id": "a", "job_id": "slurm-one", "job_type": "small", "tenant": "chem"})
    conf = tmp_path / "headroom.conf"
    conf.write_text(f"url = {server.url}\ncluster_id = {cid}\napi_key = {server.key}\n")
    for slurm_job in ("42", "43", "42"):  # the second 42 is a re-run: a replay
        assert hs.main(["--config", str(conf), "depart", "--job", slurm_job]) == 0
    departed = [(e["request"]["job_id"], e["decision"]) for e in logged(live, cid)
                if e["kind"] == "departure"]
    assert departed == [("slurm-g.0", "released"), ("slurm-g.1", "released"),
                        ("slurm-one", "released")]
    assert client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0


@pytest.mark.parametrize("token, ids", [
    ("slurm-a", ["slurm-a"]),
    ("slurm-a.[0-2]", ["slurm-a.0", "slurm-a.1", "slurm-a.2"]),
    ("slurm-a.[x-y]", ["slurm-a.[x-y]"]),
])
def test_admin_comment_tokens_name_the_members(token, ids):
    assert hs.headroom_ids(token) == ids
    if len(ids) > 1:
        assert hs.admin_token("slurm-a", len(ids)) == token


def test_jobs_headroom_preempts_are_cancelled_in_slurm_after_the_hook(live, tmp_path, capsys,
                                                                      slurm_tools):
    """A lender within its nominal quota reclaims what a borrower took: Headroom preempts the
    borrower's newest job, and the helper has a detached process cancel the Slurm job holding
    it (a multi-node job goes whole), once slurmctld serves scancel again."""
    server, client = live
    cid = declare(live, "reclaim", tenants=[
        {"name": "web", "nominal": {"cpu": 4, "memory": 4000}, "cohort": "uni"},
        {"name": "ml", "nominal": {"cpu": 8, "memory": 8000}, "cohort": "uni"}])
    # web borrows: the gang slurm-g (what squeue shows as Slurm job 42) on two servers.
    posted(client, f"/v1/clusters/{cid}/arrivals", {
        "event_id": "w", "job_id": "slurm-w", "job_type": "large", "tenant": "web"})
    posted(client, f"/v1/clusters/{cid}/gangs", {
        "event_id": "g", "gang_id": "slurm-g", "tenant": "web", "members": [
            {"job_id": "slurm-g.0", "job_type": "large"},
            {"job_id": "slurm-g.1", "job_type": "large"}]})
    answer = submit(live, tmp_path, capsys, cid, "--cpus", "4", "--account", "ml")
    assert answer["decision"] == "placed", answer
    assert answer["message"].endswith("; preempted 1 job(s): slurm-g.1"), answer
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "scancel" not in (
            slurm_tools.read_text() if slurm_tools.exists() else ""):
        time.sleep(0.2)
    assert slurm_tools.read_text().splitlines() == [
        "scontrol update JobId=42 Comment=headroom preempted slurm-g.1 (reclaim)",
        "scancel 42"], (tmp_path / "headroom-slurm.log").read_text()
