#!/usr/bin/env python3
"""Slurm's side of Headroom: the commands ``job_submit.lua`` and ``job_completion.sh`` run.

Standard library only, on purpose: it runs on the Slurm controller, which need not have Headroom
installed, and once per ``sbatch`` inside slurmctld's job_submit hook, so its start-up must stay
cheap: every submission waits for it (measurements in docs/integrations/slurm.md).

Commands (see docs/integrations/slurm.md):

- ``submit --cpus N --mem-mb M [--gres SPEC] [--nodes N]``: choose the job type, post the arrival,
  print ``key=value`` lines for the Lua hook (``decision``, ``job``, ``type``, ``node``,
  ``message``). Exit status is 0 whenever it printed a decision.
- ``depart``: from ``job_completion.sh`` (jobcomp/script sets ``JOBID``, EpilogSlurmctld
  ``SLURM_JOB_ID``): post the job's departure, idempotent and retried, and report any migration
  Headroom decided on the job that moved.
- ``release [--every S]``: the poller for queued (RMS) clusters: release held jobs that
  Headroom has started, pinned to the server it started them on.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import time
import uuid
from urllib.parse import urlsplit

DEFAULT_CONFIG = "/etc/slurm/headroom.conf"
# The Headroom job id is this prefix and the token the hook stores in the job's AdminComment.
ADMIN_COMMENT_PREFIX = "headroom:"
# Slurm's name for a job's memory in MB; GRES are "gres/<name>" as in Slurm's TRES names.
MEMORY = "memory_mb"


class ConfigError(Exception):
    pass


class Unavailable(Exception):
    """Headroom did not answer usefully in time: the caller applies ``on_error``."""


def read_config(path: str) -> dict:
    """``key = value`` lines; ``#`` starts a comment. Shared with the Lua hook, hence no JSON."""
    cfg: dict = {"dimension": {}, "node": {}}
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = (part.strip() for part in line.partition("="))
        if not sep or not key:
            raise ConfigError(f"{path}:{n}: expected key = value")
        group, dot, name = key.partition(".")
        if dot and group in ("dimension", "node"):
            cfg[group][name] = value
        else:
            cfg[key] = value
    for required in ("url", "cluster_id"):
        if not cfg.get(required):
            raise ConfigError(f"{path}: {required} is not set")
    if not cfg["dimension"]:
        cfg["dimension"] = {"cpu": "cpu", MEMORY: "memory"}
    if "api_key_file" in cfg and "api_key" not in cfg:
        try:
            cfg["api_key"] = open(cfg["api_key_file"], encoding="utf-8").read().strip()
        except OSError as e:
            raise ConfigError(f"cannot read {cfg['api_key_file']}: {e.strerror}") from None
    return cfg


def parse_gres(spec: str) -> dict[str, int]:
    """Slurm's ``tres_per_node`` (``gres:gpu:2,gres:gpu:a100:1``, or ``gpu:2``) as counts per
    ``gres/<name>``; the GRES type (``a100``) is dropped: Headroom's dimensions are plain counts."""
    counts: dict[str, int] = {}
    for item in filter(None, (s.strip() for s in spec.split(","))):
        parts = item.split(":")
        if parts[0] == "gres":
            parts = parts[1:]
        if not parts or not parts[0]:
            raise ValueError(f"cannot read the GRES request {item!r}")
        count = 1
        if len(parts) > 1 and parts[-1].isdigit():
            count = int(parts[-1])
        name = "gres/" + parts[0]
        counts[name] = counts.get(name, 0) + count
    return counts


def choose_job_type(request: dict[str, float], cluster: dict, dimensions: dict[str, str]):
    """The smallest declared job type whose demand covers ``request`` in every dimension.

    ``request`` is keyed by Slurm resource (``cpu``, ``memory_mb``, ``gres/gpu``); ``dimensions``
    maps those to the cluster's dimensions. Smallest: least total demand as a share of the
    largest server's capacity per dimension (so a type is not "small" for being small in the
    dimension with the biggest numbers, MB); ties by name, so the choice is deterministic.
    Returns ``(name, None)`` or ``(None, why)``.
    """
    for resource, amount in request.items():
        if amount > 0 and resource not in dimensions:
            return None, (f"the job asks for {resource}={amount:g}, which this Headroom "
                          f"cluster does not model")
    capacity: dict[str, float] = {}
    for pool in cluster.get("server_pools") or ():
        for dim, value in pool["capacity"].items():
            capacity[dim] = max(capacity.get(dim, 0), float(value))
    best = None
    for jt in cluster.get("job_types") or ():
        demand = jt["demand"]
        if all(float(demand.get(dimensions[r], 0)) >= amount for r, amount in request.items()):
            size = sum(float(v) / capacity[d] for d, v in demand.items() if capacity.get(d))
            if best is None or (size, jt["name"]) < best[:2]:
                best = (size, jt["name"])
    if best is None:
        asked = " ".join(f"{r}={a:g}" for r, a in sorted(request.items()))
        declared = ", ".join(
            f"{jt['name']}(" + " ".join(f"{d}={v:g}" for d, v in sorted(jt["demand"].items())) + ")"
            for jt in cluster.get("job_types") or ())
        return None, f"no declared job type covers {asked}; declared: {declared}"
    return best[1], None


class Headroom:
    """Just enough of Headroom's HTTP API, with a deadline over all retries."""

    def __init__(self, cfg: dict, budget: float):
        url = urlsplit(cfg["url"])
        # http.client, not urllib.request: 30 ms of imports instead of 160 ms (python3
        # -X importtime, this machine), paid by every sbatch.
        self.https = url.scheme == "https"
        self.netloc = url.netloc
        self.base = url.path.rstrip("/") + "/v1/clusters/" + cfg["cluster_id"]
        self.key = cfg.get("api_key")
        self.deadline = time.monotonic() + budget

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        """Retries connection errors, 429 and 5xx until the deadline; other answers return.
        Every write this integration makes carries an ``event_id``, so a retry is safe."""
        delay = 0.1
        last = "no attempt"
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise Unavailable(f"Headroom did not answer in time ({last})")
            headers = {"Content-Type": "application/json"}
            if self.key:
                headers["Authorization"] = "Bearer " + self.key
            connection = (http.client.HTTPSConnection if self.https
                          else http.client.HTTPConnection)(self.netloc, timeout=max(left, 0.05))
            try:
                connection.request(method, self.base + path, headers=headers,
                                   body=None if body is None else json.dumps(body))
                response = connection.getresponse()
                payload = response.read()
                try:
                    doc = json.loads(payload or b"{}")
                except ValueError:
                    doc = {"detail": payload[:200].decode("utf-8", "replace")}
                if response.status != 429 and response.status < 500:
                    return response.status, doc
                last = f"HTTP {response.status}"
            except (OSError, http.client.HTTPException) as e:  # refused, reset, timeout
                last = type(e).__name__ + ": " + str(e)
            finally:
                connection.close()
            time.sleep(min(delay, max(self.deadline - time.monotonic(), 0)))
            delay = min(delay * 2, 2.0)


def emit(**fields: str) -> None:
    # The Lua hook reads one key=value per line; values never contain a newline.
    for key, value in fields.items():
        print(f"{key}={' '.join(str(value).split())}")


def submit(cfg: dict, args) -> int:
    if args.nodes > 1:
        emit(decision="refused", message=f"Headroom places a job on one node; this job asks "
                                         f"for {args.nodes}")
        return 0
    try:
        request = {"cpu": float(args.cpus), MEMORY: float(args.mem_mb), **parse_gres(args.gres)}
    except ValueError as e:
        emit(decision="refused", message=str(e))
        return 0
    request = {r: a for r, a in request.items() if a > 0 or r in cfg["dimension"]}
    api = Headroom(cfg, float(cfg.get("timeout_seconds", 5)))
    try:
        status, cluster = api.call("GET", "")
        if status != 200:
            raise Unavailable(f"cluster {cfg['cluster_id']}: HTTP {status} "
                              f"{cluster.get('code', '')} {cluster.get('detail', '')}")
        job_type, why = choose_job_type(request, cluster, cfg["dimension"])
        if job_type is None:
            emit(decision="refused", message=why)
            return 0
    except Unavailable as e:
        emit(decision="error", message=str(e))
        return 0
    job_id = "slurm-" + uuid.uuid4().hex
    try:
        status, answer = api.call("POST", "/arrivals", {
            "event_id": "arrival-" + job_id, "job_id": job_id, "job_type": job_type})
    except Unavailable as e:
        withdraw(cfg, job_id)
        emit(decision="error", message=str(e))
        return 0
    if status not in (200, 202):  # 202: a queued cluster accepted it into a queue
        emit(decision="error", message=f"HTTP {status} {answer.get('code', '')}: "
                                       f"{answer.get('detail', '')}")
        return 0
    decision = answer["decision"]
    server = answer.get("server_id")
    fields = {"decision": decision, "job": job_id, "type": job_type}
    memory_dim = cfg["dimension"].get(MEMORY)
    for jt in cluster["job_types"]:
        if jt["name"] == job_type and memory_dim in jt["demand"]:
            # The hook gives the job exactly this much memory: Slurm then accounts what Headroom
            # accounts, and a job without --mem does not take a whole node (Slurm's default).
            fields["mem_mb"] = str(int(jt["demand"][memory_dim]))
    if decision in ("placed", "started"):
        fields["node"] = cfg["node"].get(server, server)
    if decision == "rejected":
        numbers = " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}"
                           for k, v in sorted((answer.get("details") or {}).items()))
        fields["message"] = f"{answer['reason']} (job type {job_type}) {numbers}".strip()
    elif decision == "queued":
        fields["message"] = f"queued at position {answer.get('position')}"
    else:
        fields["message"] = f"{answer.get('reason', decision)} on {server}"
    emit(**fields)
    return 0


def withdraw(cfg: dict, job_id: str) -> None:
    """The arrival may have been decided with its answer lost (Headroom slow, not down): Slurm
    will not run this job under that id either way, so free whatever Headroom booked. A 404
    means it never arrived. Best effort, one more second: a departure that fails here leaves a
    booked job for an operator (docs/integrations/slurm.md, limits)."""
    try:
        Headroom(cfg, 1.0).call("POST", "/departures",
                                {"event_id": "departure-" + job_id, "job_id": job_id})
    except Unavailable:
        pass


def scontrol(*args: str) -> str:
    return subprocess.run(["scontrol", *args], check=True, capture_output=True, text=True,
                          timeout=30).stdout


def headroom_job(slurm_job_id: str) -> str | None:
    """The Headroom job id the hook recorded in the job's AdminComment (only Slurm's
    administrators can change it, unlike Comment, so a user cannot redirect the departure)."""
    for field in scontrol("show", "job", "-o", slurm_job_id).split():
        if field.startswith("AdminComment=" + ADMIN_COMMENT_PREFIX):
            return field.split("=", 1)[1][len(ADMIN_COMMENT_PREFIX):]
    return None


def report_migration(cfg: dict, migration: dict, log) -> None:
    """Slurm cannot move a running job; say so where operators look (the moved job's Comment,
    shown by ``squeue -O comment`` and ``scontrol show job``, and the completion script's
    log). A moved job that has not started yet is re-pinned, so Slurm starts it where Headroom
    now has it."""
    job = migration["job_id"]
    node_from = cfg["node"].get(migration["from_server_id"], migration["from_server_id"])
    node_to = cfg["node"].get(migration["to_server_id"], migration["to_server_id"])
    note = f"headroom migrated {job} from {node_from} to {node_to}"
    out = subprocess.run(["squeue", "-h", "-O", "JobID:20,State:20,admin_comment:300"],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == ADMIN_COMMENT_PREFIX + job:
            slurm_id, state = parts[0], parts[1]
            if state == "PENDING":
                scontrol("update", f"JobId={slurm_id}", f"ReqNodeList={node_to}")
                note += "; not started yet, re-pinned"
            else:
                note += "; Slurm cannot live-migrate, it keeps running where it is"
            scontrol("update", f"JobId={slurm_id}", f"Comment={note}")
    print(note, file=log)


def depart(cfg: dict, args) -> int:
    slurm_job_id = args.job or os.environ.get("JOBID") or os.environ.get("SLURM_JOB_ID")
    if not slurm_job_id:
        print("depart: no job id (--job, JOBID or SLURM_JOB_ID)", file=sys.stderr)
        return 2
    try:
        job = headroom_job(slurm_job_id)
    except (OSError, subprocess.SubprocessError) as e:
        print(f"depart {slurm_job_id}: cannot read its AdminComment: {e}", file=sys.stderr)
        return 1
    if job is None:
        return 0  # admitted while Headroom was unreachable with on_error=accept: nothing to free
    # The script may run again (slurmctld restart, requeue): the event id makes that a replay.
    api = Headroom(cfg, float(cfg.get("departure_retry_seconds", 60)))
    try:
        status, answer = api.call("POST", "/departures",
                                  {"event_id": "departure-" + job, "job_id": job})
    except Unavailable as e:
        print(f"depart {slurm_job_id} ({job}): {e}", file=sys.stderr)
        return 1
    if status == 404:
        return 0  # Headroom does not know it (the cluster was deleted): nothing to free
    if status == 409 and answer.get("code") == "job_not_running":
        return 0  # it left already (finished, or withdrawn by an earlier departure): nothing to free
    if status not in (200, 202):
        print(f"depart {slurm_job_id} ({job}): HTTP {status} {answer}", file=sys.stderr)
        return 1
    if answer.get("decision") == "withdrawn":
        # Cancelled while Headroom still had it queued (held in Slurm): it left the queue
        # without ever starting, so the release poller will never pin it.
        print(f"depart {slurm_job_id} ({job}): withdrawn from Headroom's queue", file=sys.stderr)
    if answer.get("migration"):
        report_migration(cfg, answer["migration"], sys.stderr)
    return 0


def release(cfg: dict, args) -> int:
    """Queued clusters: Slurm holds the job (priority 0) until Headroom starts it; then this
    pins it to the server Headroom started it on and releases it. ``--every S`` repeats the
    pass until killed (run it as a service next to slurmctld); a failed pass is logged and
    retried, so a Headroom restart does not stop the poller."""
    while True:
        try:
            release_once(cfg)
        except (OSError, subprocess.SubprocessError, Unavailable) as e:
            if not args.every:
                raise
            print(f"release: {e}", file=sys.stderr, flush=True)
        if not args.every:
            return 0
        time.sleep(args.every)


def release_once(cfg: dict) -> None:
    out = subprocess.run(["squeue", "-h", "-t", "PENDING", "-O",
                          "JobID:20,Reason:30,admin_comment:300"],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    api = Headroom(cfg, float(cfg.get("timeout_seconds", 5)))
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 3 or not parts[2].startswith(ADMIN_COMMENT_PREFIX):
            continue
        slurm_id, job = parts[0], parts[2][len(ADMIN_COMMENT_PREFIX):]
        if parts[1] not in ("JobHeldAdmin", "JobHeldUser"):
            continue
        status, answer = api.call("GET", "/jobs/" + job)
        if status == 200 and answer.get("status") == "running" and answer.get("server_id"):
            node = cfg["node"].get(answer["server_id"], answer["server_id"])
            scontrol("update", f"JobId={slurm_id}", f"ReqNodeList={node}",
                     f"Comment=headroom: started on {node}")
            scontrol("release", slurm_id)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="headroom-slurm", description=__doc__.split("\n")[0])
    parser.add_argument("--config", default=os.environ.get("HEADROOM_SLURM_CONF",
                                                           DEFAULT_CONFIG))
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("submit")
    p.add_argument("--cpus", type=int, required=True)
    p.add_argument("--mem-mb", type=int, default=0)
    p.add_argument("--gres", default="")
    p.add_argument("--nodes", type=int, default=1)
    p = sub.add_parser("depart")
    p.add_argument("--job", help="Slurm job id (default: $JOBID, then $SLURM_JOB_ID)")
    p = sub.add_parser("release")
    p.add_argument("--every", type=float, default=0, help="repeat every this many seconds")
    args = parser.parse_args(argv)
    try:
        cfg = read_config(args.config)
    except ConfigError as e:
        if args.command == "submit":
            emit(decision="error", message=str(e))
            return 0
        print(e, file=sys.stderr)
        return 2
    return {"submit": submit, "depart": depart, "release": release}[args.command](cfg, args)


if __name__ == "__main__":
    sys.exit(main())
