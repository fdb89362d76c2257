"""Slurm enforces Headroom's decisions, for real (issue #17).

Real munged, slurmctld (with integrations/slurm/job_submit.lua and job_completion.sh) and
three slurmd on 127.0.0.1, a real ``headroom serve`` on Postgres, and a mixed stream of ``sbatch``
sleep jobs. Checked: every placed job ran on the node Headroom chose; every rejected job was
refused by sbatch with Headroom's reason; every departure reached Headroom; Headroom's books
match squeue while jobs run and at the end; a dead Headroom neither hangs sbatch nor is ignored
unless on_error=accept says so. ``.ci/run`` installs Slurm and munge, so CI fails, never skips.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import IN_CI
from tests.integrations.slurm_cluster import SlurmCluster, missing_tools
from tests.live import LiveServer, free_port

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

INTEGRATION = Path(__file__).resolve().parents[2] / "integrations" / "slurm"
NODES = {"n1": {"cpus": 4, "memory_mb": 4000}, "n2": {"cpus": 4, "memory_mb": 4000},
         "n3": {"cpus": 4, "memory_mb": 4000, "gpus": 1}}
SERVER_OF_NODE = {"n1": "rack-0", "n2": "rack-1", "n3": "rack-2"}
TIMEOUT = 3


@pytest.fixture(scope="module")
def slurm_tools():
    missing = missing_tools()
    if missing:
        if IN_CI:
            pytest.fail(f"Slurm tools missing: {missing}; .ci/run installs them", pytrace=False)
        pytest.skip(f"Slurm tools missing: {missing} (apt-get install slurmctld slurmd munge)")


def write_conf(path: Path, url: str, cluster_id: str, key: str, on_error: str = "reject",
               server_of_node: dict[str, str] = SERVER_OF_NODE) -> None:
    path.write_text("\n".join([
        f"url = {url}", f"cluster_id = {cluster_id}", f"api_key = {key}",
        f"timeout_seconds = {TIMEOUT}", f"on_error = {on_error}",
        "departure_retry_seconds = 20", f"log = {path.parent / 'headroom-slurm.log'}",
        f"helper = {INTEGRATION / 'headroom_slurm.py'}",
        "dimension.cpu = cpu", "dimension.memory_mb = memory", "dimension.gres/gpu = gpu",
        *(f"node.{server} = {node}" for node, server in server_of_node.items()),
    ]) + "\n")


def declare(client, policy: dict, tenants: list[dict] | None = None, name: str = "") -> str:
    r = client.post("/v1/clusters", json={
        "name": name or f"slurm-{policy['kind']}",
        "dimensions": ["cpu", "memory"],
        "server_pools": [{"name": "rack", "count": 3, "capacity": {"cpu": 4, "memory": 4000}}],
        "job_types": [
            {"name": "small", "demand": {"cpu": 1, "memory": 500}, "reward": 1},
            {"name": "medium", "demand": {"cpu": 2, "memory": 1000}, "reward": 2},
            {"name": "large", "demand": {"cpu": 4, "memory": 2000}, "reward": 5},
        ],
        "policy": policy,
        **({"tenants": tenants} if tenants else {}),
    })
    assert r.status_code == 201, r.text
    return r.json()["id"]


def sbatch(slurm: SlurmCluster, out: Path, seconds: float, *opts: str):
    start = time.monotonic()
    r = slurm.run("sbatch", "--parsable", "-o", str(out / "%j.out"), *opts,
                  "--wrap", f"echo $SLURMD_NODENAME; sleep {seconds}", check=False)
    return r, time.monotonic() - start


def admin_comment(slurm: SlurmCluster, job: str) -> str:
    show = slurm.run("scontrol", "show", "job", "-o", job).stdout
    return re.search(r"AdminComment=headroom:(\S+)", show).group(1)


def events(client, cid: str) -> list[dict]:
    items, cursor = [], None
    while True:
        page = client.get(f"/v1/clusters/{cid}/events",
                          params={"limit": 500, **({"cursor": cursor} if cursor else {})}).json()
        items += page["items"]
        cursor = page.get("next_cursor")
        if not cursor:
            return items


def headroom_books(client, cid: str) -> dict[str, str]:
    """Headroom job id -> server id, from each server's own record."""
    books = {}
    for server in SERVER_OF_NODE.values():
        for job in client.get(f"/v1/clusters/{cid}/servers/{server}").json()["jobs"]:
            books[job] = server
    return books


def slurm_books(slurm: SlurmCluster) -> dict[str, str]:
    """Headroom job id -> node, for every job Slurm still has (running: its node; pending: the
    node it is pinned to)."""
    out = slurm.run("squeue", "-h", "-O", "JobID:20,State:20,NodeList:20,ReqNodes:20").stdout
    books = {}
    for line in out.splitlines():
        # Fixed-width columns, not words: a pending job's NodeList is blank, and splitting on
        # whitespace then read its ReqNodes as the NodeList (seen when slurmd was slow to
        # start the jobs under load).
        job, state, nodelist, reqnodes = (line[i:i + 20].strip() for i in range(0, 80, 20))
        books[admin_comment(slurm, job)] = reqnodes if state == "PENDING" else nodelist
        assert books[admin_comment(slurm, job)], out
    return books


class Rig:
    """One Headroom server and one Slurm cluster for the module (starting them is most of the
    cost); each test declares its own Headroom cluster and points the hook's config at it."""

    def __init__(self, live, slurm, root: Path):
        self.live, self.slurm = live, slurm
        self.conf = root / "headroom.conf"
        self.hlog = root / "headroom-slurm.log"
        self.out = root / "out"


@pytest.fixture(scope="module")
def rig(slurm_tools, pg_url, tmp_path_factory):
    root = tmp_path_factory.mktemp("slurm")
    conf = root / "headroom.conf"
    completion = root / "job_completion.sh"
    # slurmctld gives the jobcomp script a bare environment: this wrapper names the files a site
    # would keep at their default paths (/etc/slurm/slurm.conf, /etc/slurm/headroom.conf).
    completion.write_text(f"#!/bin/sh\nexport SLURM_CONF={root / 'slurm.conf'} "
                          f"HEADROOM_SLURM_CONF={conf} "
                          f"HEADROOM_SLURM_LOG={root}/headroom-slurm.log\n"
                          f"exec {INTEGRATION / 'job_completion.sh'}\n")
    completion.chmod(0o755)
    shutil.copy(INTEGRATION / "job_submit.lua", root / "job_submit.lua")
    (root / "out").mkdir()
    extra = f"JobSubmitPlugins=lua\nJobCompType=jobcomp/script\nJobCompLoc={completion}"
    with LiveServer(pg_url, extra_args=("--no-migrate",)) as live, \
            SlurmCluster(root, NODES, extra, env={"HEADROOM_SLURM_CONF": str(conf)}) as slurm:
        yield Rig(live, slurm, root)


def test_slurm_enforces_headroom(rig):
    with rig.live.client() as client:
        cid = declare(client, {"kind": "first_fit"})
        write_conf(rig.conf, rig.live.url, cid, rig.live.key)
        run_stream(rig.slurm, client, cid, rig.out, rig.conf, rig.live)


def run_stream(slurm, client, cid, out, conf, live):
    # First fit over n1..n3 (4 CPUs each): medium+small fill n1 to 3 CPUs, the larges take n2
    # and n3, so the next medium fits nowhere (rejected), a small still fits n1, the next does
    # not. Shapes are Slurm's own: -c, --mem, --mem-per-cpu, no memory at all.
    stream = [
        ("medium", ("-c", "2", "--mem=800"), 40, "placed"),
        ("small", ("-c", "1",), 40, "placed"),                       # no --mem: gets 500 MB
        ("large", ("-c", "3", "--mem=2000"), 30, "placed"),          # 3 CPUs round up to large
        ("large", ("-n", "2", "-c", "2", "--mem-per-cpu=300"), 30, "placed"),
        ("medium", ("-c", "2", "--mem=1000"), 5, "rejected"),
        ("small", ("-c", "1", "--mem=100"), 40, "placed"),
        ("small", ("-c", "1", "--mem=100"), 5, "rejected"),
    ]
    submitted: dict[str, str] = {}  # Slurm job id -> Headroom job id
    for expected_type, opts, seconds, expected in stream:
        r, _ = sbatch(slurm, out, seconds, *opts)
        if expected == "placed":
            assert r.returncode == 0, (opts, r.stderr, slurm.logs())
            job = r.stdout.strip().split(";")[0]
            submitted[job] = admin_comment(slurm, job)
        else:
            assert r.returncode != 0, (opts, r.stdout)
            # sbatch prints the hook's message: Headroom's reason code and its numbers.
            assert "headroom rejected this job: no_server_fits" in r.stderr, r.stderr
            assert f"(job type {expected_type})" in r.stderr, r.stderr

    # Shapes no declared type covers are refused with the reason, before Headroom decides.
    for opts, why in [(("-c", "5"), "no declared job type covers cpu=5"),
                      (("-c", "1", "--mem=3000"), "no declared job type covers")]:
        r, _ = sbatch(slurm, out, 1, *opts)
        assert r.returncode != 0 and "headroom cannot admit this job" in r.stderr, r.stderr
        assert why in r.stderr, r.stderr
    # A 2-node job is one gang (test_accounts_are_tenants_...): no server has a CPU left.
    r, _ = sbatch(slurm, out, 1, "-N", "2")
    assert r.returncode != 0, r.stdout
    assert "headroom rejected this job: no_server_fits (job type small, 2 nodes; node 1 of 2 " \
           "did not fit)" in r.stderr, r.stderr

    # While they run (the sleeps outlast the submissions on a loaded 2-core machine),
    # Headroom and Slurm hold the same jobs on the same nodes.
    log = events(client, cid)
    arrivals = {e["request"]["job_id"]: e for e in log if e["kind"] == "arrival"}
    placed = {j: e["response"]["server_id"] for j, e in arrivals.items()
              if e["decision"] == "placed"}
    assert sorted(placed) == sorted(submitted.values())
    assert [e["decision"] for e in arrivals.values()].count("rejected") == 2
    assert [arrivals[j]["request"]["job_type"] for j in submitted.values()] == [
        "medium", "small", "large", "large", "small"]
    books = headroom_books(client, cid)
    assert {j: SERVER_OF_NODE[n] for j, n in slurm_books(slurm).items()} == books

    # The larges finish first; their departures free n2 and n3, so a large is placed again.
    wait_for(lambda: all(headroom_books(client, cid).get(j) is None
                         for j, t in zip(submitted.values(), ("m", "s", "l", "l", "s"))
                         if t == "l"), 60, "departures of the large jobs")
    # It outlasts the outage below: a completion script started then would read the dead
    # address.
    r, _ = sbatch(slurm, out, 20, "-c", "4", "--mem=2000")
    assert r.returncode == 0, r.stderr
    job = r.stdout.strip()
    submitted[job] = admin_comment(slurm, job)

    # Cancelled before it started: slurmctld's completion script still runs for it, so the
    # slot Headroom booked is freed (EpilogSlurmctld would never run for this job).
    r, _ = sbatch(slurm, out, 1, "-c", "1", "--begin=now+600")
    assert r.returncode == 0, r.stderr
    never = r.stdout.strip()
    hnever = admin_comment(slurm, never)
    assert hnever in headroom_books(client, cid)
    slurm.run("scancel", never)
    wait_for(lambda: hnever not in headroom_books(client, cid), 30,
             "the departure of a job cancelled while pending")

    # Headroom down: sbatch answers within the timeout, refusing (on_error=reject) or
    # admitting the job unpinned (on_error=accept); the config is read per submission.
    text = conf.read_text()
    dead = f"http://127.0.0.1:{free_port()}"
    conf.write_text(text.replace(live.url, dead))
    r, took = sbatch(slurm, out, 1, "-c", "1")
    assert r.returncode != 0 and "headroom is unavailable" in r.stderr, r.stderr
    assert took < TIMEOUT + 4, took
    conf.write_text(text.replace(live.url, dead).replace("on_error = reject",
                                                         "on_error = accept"))
    r, took = sbatch(slurm, out, 1, "-c", "1")
    assert r.returncode == 0, r.stderr
    unmanaged = r.stdout.strip()
    assert took < TIMEOUT + 4, took
    conf.write_text(text)

    # Everything ends; every departure reached Headroom and both sides are empty.
    wait_for(lambda: not slurm.run("squeue", "-h").stdout.strip(), 90, "every job to finish")
    wait_for(lambda: client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0, 30,
             "every departure to reach Headroom")
    log = events(client, cid)
    departed = {e["request"]["job_id"] for e in log
                if e["kind"] == "departure" and e["decision"] == "released"}
    assert departed == set(submitted.values()) | {hnever}
    placed = {e["request"]["job_id"]: e["response"]["server_id"] for e in log
              if e["kind"] == "arrival" and e["decision"] == "placed"}

    # Every placed job ran on the node Headroom chose: the job's own output and Slurm's
    # completion record both say so.
    for job, hjob in submitted.items():
        ran_on = (out / f"{job}.out").read_text().split()[0]
        assert SERVER_OF_NODE[ran_on] == placed[hjob], (job, hjob, ran_on)
        assert slurm_record(slurm, job)["NodeList"] == ran_on
    # Admitted while Headroom was down: it ran, and Headroom never booked it.
    assert slurm_record(slurm, unmanaged)["JobState"] == "COMPLETED"
    assert "AdminComment=headroom:" not in slurm.run("scontrol", "show", "job", "-o",
                                                     unmanaged).stdout


def slurm_record(slurm: SlurmCluster, job: str) -> dict[str, str]:
    """A finished job's record (slurmctld keeps it for MinJobAge, 300 s by default)."""
    show = slurm.run("scontrol", "show", "job", "-o", job).stdout
    return dict(f.split("=", 1) for f in show.split() if "=" in f)


def wait_for(check, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def test_slurm_holds_queued_jobs_until_headroom_starts_them(rig):
    """A queued cluster (the greedy first-fit queue): jobs that do not fit wait held in Slurm
    and run when Headroom starts them, on the node it starts them on."""
    slurm, out = rig.slurm, rig.out
    with rig.live.client() as client:
        cid = declare(client, {"kind": "first_fit_queue", "time_unit_seconds": 1.0})
        write_conf(rig.conf, rig.live.url, cid, rig.live.key)
        poller = subprocess.Popen(
            [str(INTEGRATION / "headroom_slurm.py"), "--config", str(rig.conf), "release",
             "--every", "0.5"], env=slurm.env, stdout=subprocess.DEVNULL,
            stderr=(rig.conf.parent / "release.log").open("ab"), start_new_session=True)
        try:
            first, queued = [], []
            for seconds in (20, 20, 20):
                r, _ = sbatch(slurm, out, seconds, "-c", "4", "--mem=2000")
                assert r.returncode == 0, r.stderr
                first.append(r.stdout.strip())
            for _ in range(2):
                r, _ = sbatch(slurm, out, 2, "-c", "4", "--mem=2000")
                assert r.returncode == 0, r.stderr
                queued.append(r.stdout.strip())
            # One more waits behind them and is cancelled while held: its completion script's
            # departure withdraws it from Headroom's queue, so Headroom never starts it.
            r, _ = sbatch(slurm, out, 2, "-c", "4", "--mem=2000")
            assert r.returncode == 0, r.stderr
            cancelled = r.stdout.strip()
            ids = {job: admin_comment(slurm, job) for job in first + queued + [cancelled]}
            r, _ = sbatch(slurm, out, 1, "-N", "2", "-c", "4", "--mem=2000")
            assert r.returncode != 0, r.stdout
            assert "headroom cannot admit this job: a job on 2 nodes is a Headroom gang, and " \
                   "this plugin runs gangs on placement clusters only" in r.stderr, r.stderr
            for job in queued + [cancelled]:
                assert client.get(f"/v1/clusters/{cid}/jobs/{ids[job]}").json()["status"] == \
                    "queued"
                state = slurm.run("squeue", "-h", "-j", job, "-O", "State:20,Reason:30").stdout
                assert state.split()[0] == "PENDING" and "JobHeld" in state, state
            slurm.run("scancel", cancelled)
            wait_for(lambda: client.get(f"/v1/clusters/{cid}/jobs/{ids[cancelled]}").json()
                     ["status"] == "withdrawn", 30, "the cancelled job's withdrawal")
            wait_for(lambda: not slurm.run("squeue", "-h").stdout.strip(), 120,
                     "every job to finish")
            wait_for(lambda: client.get(f"/v1/clusters/{cid}/state").json()["finished"] == 5,
                     30, "every departure to reach Headroom")
            state = client.get(f"/v1/clusters/{cid}/state").json()
            assert sum(state["running"].values()) == sum(state["queues"].values()) == 0, state
            assert state["withdrawn"] == 1 and state["arrived"] == 6, state
            assert not (out / f"{cancelled}.out").exists()  # it never ran
        finally:
            os.killpg(poller.pid, signal.SIGTERM)
            poller.wait(timeout=10)
        for job in first + queued:
            record = client.get(f"/v1/clusters/{cid}/jobs/{ids[job]}").json()
            assert record["status"] == "finished", record
            ran_on = (out / f"{job}.out").read_text().split()[0]
            assert SERVER_OF_NODE[ran_on] == record["server_id"], (job, record, ran_on)
        starts = {j: client.get(f"/v1/clusters/{cid}/jobs/{ids[j]}").json()["started_at"]
                  for j in first + queued}
        assert min(starts[j] for j in queued) > max(starts[j] for j in first)


def test_a_job_over_its_accounts_quota_waits_with_headrooms_reason(rig):
    """A queued cluster with quotas per account: a job over its account's quota is accepted
    and held, its Comment saying whose quota it waits for and what is short; when the
    account's running job ends, Headroom starts it and it runs."""
    slurm, out = rig.slurm, rig.out
    tenants = [{"name": "chem", "nominal": {"cpu": 1, "memory": 500}},
               {"name": "physics", "nominal": {"cpu": 8, "memory": 8000}}]
    with rig.live.client() as client:
        cid = declare(client, {"kind": "first_fit_queue", "time_unit_seconds": 1.0}, tenants,
                      name="slurm-queued-accounts")
        write_conf(rig.conf, rig.live.url, cid, rig.live.key)
        poller = subprocess.Popen(
            [str(INTEGRATION / "headroom_slurm.py"), "--config", str(rig.conf), "release",
             "--every", "0.5"], env=slurm.env, stdout=subprocess.DEVNULL,
            stderr=(rig.conf.parent / "release.log").open("ab"), start_new_session=True)
        try:
            r, _ = sbatch(slurm, out, 8, "-c", "1", "-A", "chem")
            assert r.returncode == 0, r.stderr
            first = r.stdout.strip()
            r, _ = sbatch(slurm, out, 1, "-c", "1", "-A", "chem")
            assert r.returncode == 0, r.stderr
            waiting = r.stdout.strip()
            job = admin_comment(slurm, waiting)
            view = client.get(f"/v1/clusters/{cid}/jobs/{job}").json()
            assert view["status"] == "queued" and view["reason"] == "waiting_for_quota", view
            assert view["tenant"] == "chem"
            state = slurm.run("squeue", "-h", "-j", waiting, "-O",
                              "State:20,Reason:30").stdout
            assert state.split()[0] == "PENDING" and "JobHeld" in state, state
            record = job_record(slurm, waiting)
            assert "Comment=headroom: small waiting_for_quota at position 0 of account chem: " \
                   "account chem would exceed its nominal quota by cpu=1 memory=500 (in use " \
                   "cpu=1 memory=500;" in record, record
            # physics has quota left: its job starts while chem's waits
            r, _ = sbatch(slurm, out, 1, "-c", "1", "-A", "physics")
            assert r.returncode == 0, r.stderr
            other = r.stdout.strip()
            wait_for(lambda: started(slurm, other), 60, "physics's job to start")
            assert not started(slurm, waiting)
            wait_for(lambda: not slurm.run("squeue", "-h").stdout.strip(), 120,
                     "every job to finish")
        finally:
            os.killpg(poller.pid, signal.SIGTERM)
            poller.wait(timeout=10)
        record = client.get(f"/v1/clusters/{cid}/jobs/{job}").json()
        assert record["status"] == "finished", record
        first_done = client.get(f"/v1/clusters/{cid}/jobs/{admin_comment(slurm, first)}"
                                ).json()["finished_at"]
        assert record["started_at"] >= first_done, (record, first_done)
        assert record["queued_at"] < first_done
        assert SERVER_OF_NODE[(out / f"{waiting}.out").read_text().split()[0]] == \
            record["server_id"]


def test_gres_requests_map_to_a_gpu_job_type(rig):
    """--gres=gpu:1 reaches the hook as Slurm's tres_per_node and picks the GPU job type; the
    one GPU server takes one such job and Headroom refuses the second. (Headroom's capacities
    must be positive, so this cluster is the GPU node alone.)"""
    slurm, out = rig.slurm, rig.out
    server_of_node = {"n3": "gpu-0"}
    with rig.live.client() as client:
        r = client.post("/v1/clusters", json={
            "name": "slurm-gres", "dimensions": ["cpu", "memory", "gpu"],
            "server_pools": [
                {"name": "gpu", "count": 1, "capacity": {"cpu": 4, "memory": 4000, "gpu": 1}}],
            "job_types": [
                {"name": "small", "demand": {"cpu": 1, "memory": 500, "gpu": 0}, "reward": 1},
                {"name": "gpu", "demand": {"cpu": 1, "memory": 500, "gpu": 1}, "reward": 5}],
            "policy": {"kind": "first_fit"}})
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        write_conf(rig.conf, rig.live.url, cid, rig.live.key, server_of_node=server_of_node)
        r, _ = sbatch(slurm, out, 8, "-c", "1", "--gres=gpu:1")
        assert r.returncode == 0, r.stderr
        gpu_job = r.stdout.strip()
        r, _ = sbatch(slurm, out, 1, "-c", "1", "--gres=gpu:1")
        assert r.returncode != 0, r.stdout
        assert "headroom rejected this job: no_server_fits (job type gpu)" in r.stderr, r.stderr
        r, _ = sbatch(slurm, out, 1, "-c", "1")
        assert r.returncode == 0, r.stderr
        cpu_job = r.stdout.strip()
        ids = {job: admin_comment(slurm, job) for job in (gpu_job, cpu_job)}
        wait_for(lambda: not slurm.run("squeue", "-h").stdout.strip(), 60, "both jobs to end")
        wait_for(lambda: client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0, 30,
                 "both departures")
        placed = {e["request"]["job_id"]: (e["request"]["job_type"], e["response"]["server_id"])
                  for e in events(client, cid)
                  if e["kind"] == "arrival" and e["decision"] == "placed"}
        assert placed == {ids[gpu_job]: ("gpu", "gpu-0"), ids[cpu_job]: ("small", "gpu-0")}
        for job in (gpu_job, cpu_job):
            ran_on = (out / f"{job}.out").read_text().split()[0]
            assert server_of_node[ran_on] == placed[ids[job]][1]


def job_record(slurm: SlurmCluster, job: str) -> str:
    return slurm.run("scontrol", "show", "job", "-o", job).stdout


def nodes_of(slurm: SlurmCluster, job: str) -> list[str]:
    """The nodes Slurm allocated a job (running or finished), expanded from its hostlist."""
    nodelist = re.search(r"\bNodeList=(\S+)", job_record(slurm, job)).group(1)
    return slurm.run("scontrol", "show", "hostnames", nodelist).stdout.split()


def started(slurm: SlurmCluster, job: str) -> bool:
    return re.search(r"JobState=(RUNNING|COMPLETED)", job_record(slurm, job)) is not None


def test_accounts_are_tenants_and_multi_node_jobs_are_gangs(rig):
    """The Slurm account is the job's tenant; `sbatch -N 2` is one gang of two members, run
    on exactly the two nodes Headroom chose; over its account's quota a job is refused with
    Headroom's quota_exceeded and the numbers. (Slurm without slurmdbd takes any --account
    as given: accounts need to exist only under accounting enforcement.)"""
    slurm, out = rig.slurm, rig.out
    tenants = [{"name": "physics", "nominal": {"cpu": 8, "memory": 8000}},
               {"name": "chem", "nominal": {"cpu": 1, "memory": 500}}]
    with rig.live.client() as client:
        cid = declare(client, {"kind": "first_fit"}, tenants, name="slurm-accounts")
        write_conf(rig.conf, rig.live.url, cid, rig.live.key)
        # 1-CPU shares: first fit would put both on rack-0, which Slurm cannot run as -N 2.
        r, _ = sbatch(slurm, out, 1, "-N", "2", "-c", "1", "-A", "physics")
        assert r.returncode != 0, r.stdout
        assert "headroom cannot admit this job: Headroom would put several of this job's 2 " \
               "nodes on one server (rack-0)" in r.stderr, r.stderr

        r, _ = sbatch(slurm, out, 20, "-N", "2", "-c", "4", "--mem=2000", "-A", "physics")
        assert r.returncode == 0, (r.stderr, slurm.logs())
        gang = r.stdout.strip()
        token = admin_comment(slurm, gang)
        members = [e for e in events(client, cid) if e["kind"] == "gang"]
        assert len(members) == 1 and members[0]["decision"] == "placed", members
        gang_event = members[0]
        assert gang_event["request"]["tenant"] == "physics"
        chosen = [m["server_id"] for m in gang_event["response"]["members"]]
        assert [m["job_id"] for m in gang_event["response"]["members"]] == \
            [token.removesuffix(".[0-1]") + ".0", token.removesuffix(".[0-1]") + ".1"]
        r, _ = sbatch(slurm, out, 20, "-c", "1", "-A", "chem")
        assert r.returncode == 0, r.stderr
        single = r.stdout.strip()

        # Over quota: refused at submission with the numbers, whatever the free servers.
        r, _ = sbatch(slurm, out, 1, "-c", "1", "-A", "chem")
        assert r.returncode != 0, r.stdout
        assert "headroom rejected this job: quota_exceeded (job type small): account chem " \
               "would exceed its nominal quota by cpu=1 memory=500 (in use cpu=1 memory=500;" \
               in r.stderr, r.stderr
        r, _ = sbatch(slurm, out, 1, "-N", "2", "-c", "1", "-A", "physics")
        assert r.returncode != 0, r.stdout
        assert "quota_exceeded (job type small, 2 nodes): account physics would exceed its " \
               "nominal quota by cpu=2" in r.stderr, r.stderr
        r, _ = sbatch(slurm, out, 1, "-c", "1")
        assert r.returncode != 0 and "submit with --account" in r.stderr, r.stderr

        # The gang runs on exactly its two nodes, pinned and sized per node.
        wait_for(lambda: started(slurm, gang), 60, "the 2-node job to start")
        record = job_record(slurm, gang)
        assert "NumNodes=2 " in record and "Account=physics" in record, record
        assert sorted(SERVER_OF_NODE[n] for n in nodes_of(slurm, gang)) == sorted(chosen)
        assert re.search(r"ReqNodeList=(\S+)", record).group(1) == "n[1-2]", record
        assert "MinMemoryNode=2000M" in record, record
        wait_for(lambda: started(slurm, single), 60, "the 1-node job to start")
        assert nodes_of(slurm, single) == ["n3"]

        # When it ends, both members depart.
        wait_for(lambda: not slurm.run("squeue", "-h").stdout.strip(), 90, "both jobs to end")
        wait_for(lambda: client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0, 30,
                 "every departure")
        departed = sorted(e["request"]["job_id"] for e in events(client, cid)
                          if e["kind"] == "departure" and e["decision"] == "released")
        assert departed == sorted([m["job_id"] for m in gang_event["response"]["members"]]
                                  + [admin_comment(slurm, single)])
        assert "JobState=COMPLETED" in job_record(slurm, gang)
        assert (out / f"{gang}.out").read_text().split()[0] in ("n1", "n2")


def test_a_lender_reclaims_its_quota_and_slurm_cancels_the_preempted_job(rig):
    """web borrows the cohort's unused quota; ml, within its nominal, reclaims it: Headroom
    preempts web's newest job, the helper has Slurm cancel it (after the hook returns), and
    ml's job runs on the node that frees."""
    slurm, out = rig.slurm, rig.out
    tenants = [{"name": "web", "nominal": {"cpu": 4, "memory": 4000}, "cohort": "uni"},
               {"name": "ml", "nominal": {"cpu": 8, "memory": 8000}, "cohort": "uni"}]
    with rig.live.client() as client:
        cid = declare(client, {"kind": "first_fit"}, tenants, name="slurm-reclaim")
        write_conf(rig.conf, rig.live.url, cid, rig.live.key)
        r, _ = sbatch(slurm, out, 300, "-N", "2", "-c", "4", "--mem=2000", "-A", "web")
        assert r.returncode == 0, r.stderr
        borrower_gang = r.stdout.strip()
        r, _ = sbatch(slurm, out, 300, "-c", "4", "--mem=2000", "-A", "web")
        assert r.returncode == 0, r.stderr
        newest = r.stdout.strip()
        hnewest = admin_comment(slurm, newest)
        wait_for(lambda: started(slurm, newest), 60, "web's newest job to start")
        assert nodes_of(slurm, newest) == ["n3"]

        r, _ = sbatch(slurm, out, 2, "-c", "4", "--mem=2000", "-A", "ml")
        assert r.returncode == 0, r.stderr
        lender = r.stdout.strip()
        [arrival] = [e for e in events(client, cid)
                     if e["kind"] == "arrival" and e["request"]["tenant"] == "ml"]
        assert [(p["job_id"], p["reason"]) for p in arrival["response"]["preempted"]] == \
            [(hnewest, "reclaim")]
        wait_for(lambda: "JobState=CANCELLED" in job_record(slurm, newest), 60,
                 "the preempted job's cancellation")
        assert f"Comment=headroom preempted {hnewest} (reclaim)" in job_record(slurm, newest)
        wait_for(lambda: "JobState=COMPLETED" in job_record(slurm, lender), 90,
                 "the lender's job to run")
        assert nodes_of(slurm, lender) == ["n3"]
        assert "JobState=RUNNING" in job_record(slurm, borrower_gang)
        slurm.run("scancel", borrower_gang)
        wait_for(lambda: not slurm.run("squeue", "-h").stdout.strip(), 60, "every job to end")
        wait_for(lambda: client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0, 30,
                 "every departure")
