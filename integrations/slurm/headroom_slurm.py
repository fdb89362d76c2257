#!/usr/bin/env python3
"""Slurm's side of Headroom: the commands ``job_submit.lua`` and ``job_completion.sh`` run.

Standard library only, on purpose: it runs on the Slurm controller, which need not have Headroom
installed, and once per ``sbatch`` inside slurmctld's job_submit hook, so its start-up must stay
cheap: every submission waits for it (measurements in docs/integrations/slurm.md).

Commands (see docs/integrations/slurm.md):

- ``submit --cpus N --mem-mb M [--gres SPEC] [--nodes N] [--account A]``: choose the job type
  (of one node's share), post the arrival (one node) or the gang (one member per node), print
  ``key=value`` lines for the Lua hook (``decision``, ``job``, ``type``, ``node``, ``nodes``,
  ``message``). Exit status is 0 whenever it printed a decision.
- ``depart``: from ``job_completion.sh`` (jobcomp/script sets ``JOBID``, EpilogSlurmctld
  ``SLURM_JOB_ID``): post the departure of the job (of every member of a multi-node job),
  idempotent and retried, and report any migration Headroom decided on the job that moved.
- ``release [--every S]``: the poller for queued (RMS) clusters: release held jobs that
  Headroom has started, pinned to the server it started them on.
- ``cancel-preempted JOB...``: started by ``submit``, detached, when Headroom preempted jobs to
  admit one: cancels the Slurm jobs that hold them (after the hook has returned: slurmctld
  serves ``scancel`` only then).
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
    # _path: the detached cancel-preempted reads the same file.
    cfg: dict = {"dimension": {}, "node": {}, "_path": os.path.abspath(path)}
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


def numbers(vector: dict) -> str:
    return " ".join(f"{k}={float(v):g}" for k, v in sorted(vector.items()))


LIMITS = {"nominal": "its nominal quota", "borrowing_limit": "its borrowing limit",
          "cohort": "what its cohort has left to lend",
          "undeclared": "its quota, which a quota change removed,"}


def quota_text(quota: dict) -> str:
    """A ``quota_exceeded`` answer's numbers in words: whose quota, which limit, by how much."""
    limit = LIMITS.get(quota.get("limit"), quota.get("limit"))
    text = (f"account {quota.get('tenant')} would exceed {limit} "
            f"by {numbers(quota.get('short') or {})} (in use {numbers(quota.get('usage') or {})}; "
            f"nominal {numbers(quota.get('nominal') or {})}; "
            f"borrowed {numbers(quota.get('borrowed') or {})})")
    borrowers = quota.get("borrowers") or []
    if borrowers:
        text += "; borrowed from its cohort by " + ", ".join(
            f"{b['tenant']} ({numbers(b['borrowed'])})" for b in borrowers)
    return text


def rejection_text(answer: dict, what: str) -> str:
    """Headroom's reason code first (what scripts grep for), then its numbers."""
    details = dict(answer.get("details") or {})
    quota = details.pop("quota", None)
    text = f"{answer['reason']} ({what})"
    if quota:
        text += ": " + quota_text(quota)
    rest = " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}"
                    for k, v in sorted(details.items()))
    return f"{text} {rest}".strip()


def gang_ids(job_id: str, nodes: int) -> list[str]:
    """The members of a multi-node job: one per node, ``<job>.0`` .. ``<job>.<N-1>``."""
    return [f"{job_id}.{i}" for i in range(nodes)]


def admin_token(job_id: str, nodes: int) -> str:
    """What follows ``headroom:`` in the AdminComment: the job id, or for a multi-node job its
    members in Slurm's hostlist style, ``<job>.[0-3]`` (bounded length, whatever N)."""
    return job_id if nodes == 1 else f"{job_id}.[0-{nodes - 1}]"


def headroom_ids(token: str) -> list[str]:
    """The Headroom job ids an AdminComment token names (``admin_token``'s inverse)."""
    if token.endswith("]") and ".[" in token:
        base, _, span = token[:-1].rpartition(".[")
        first, _, last = span.partition("-")
        if first.isdigit() and last.isdigit():
            return [f"{base}.{i}" for i in range(int(first), int(last) + 1)]
    return [token]


def shared_server_text(servers: list[str], nodes: int) -> str:
    """Slurm runs a job's nodes on distinct nodes: given fewer distinct nodes than the job
    asks for, it adds nodes of its own choosing (Slurm 22.05, checked: ``-N 2`` pinned to
    ``n1,n1`` ran on n1 and n2), where Headroom has booked nothing. So such a job is refused."""
    twice = sorted({s for s in servers if servers.count(s) > 1})
    return (f"Headroom would put several of this job's {nodes} nodes on one server "
            f"({', '.join(twice)}), and Slurm runs each node of a job on a different machine; "
            f"ask for a larger share of each node (-c, --mem), or fewer nodes")


def problem_text(status: int, answer: dict) -> str:
    return f"HTTP {status} {answer.get('code', '')}: {answer.get('detail', '')}"


def submit(cfg: dict, args) -> int:
    nodes = max(args.nodes, 1)
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
            emit(decision="refused", message=why + (" (per node)" if nodes > 1 else ""))
            return 0
    except Unavailable as e:
        emit(decision="error", message=str(e))
        return 0
    # The Slurm account is the tenant where the cluster keeps quotas (a list, or null: whether
    # a cluster has tenants never changes after its declaration; their names may).
    tenant = None
    if cluster.get("tenants"):
        if not args.account:
            emit(decision="refused", message="this Headroom cluster keeps a quota per Slurm "
                                             "account: submit with --account=<account> (-A)")
            return 0
        tenant = args.account
    if nodes > 1 and cluster.get("family") == "queues":
        # Headroom holds a queued cluster's gang whole and starts it whole; the release
        # poller pins and releases one job per Headroom job, not a job over several.
        emit(decision="refused", message=f"a job on {nodes} nodes is a Headroom gang, and this "
                                         f"plugin runs gangs on placement clusters only (this "
                                         f"cluster's policy is "
                                         f"{cluster.get('policy', {}).get('kind')}); submit it "
                                         f"on one node")
        return 0
    job_id = "slurm-" + uuid.uuid4().hex
    members = gang_ids(job_id, nodes) if nodes > 1 else [job_id]
    if nodes == 1:
        path, body = "/arrivals", {"event_id": "arrival-" + job_id, "job_id": job_id,
                                   "job_type": job_type}
    else:
        path, body = "/gangs", {"event_id": "gang-" + job_id, "gang_id": job_id,
                                "members": [{"job_id": m, "job_type": job_type}
                                            for m in members]}
    if tenant is not None:
        body["tenant"] = tenant
    try:
        status = 200
        if nodes > 1:
            # Headroom places each member by the cluster's policy, which may put two on one
            # server; Slurm cannot run that (shared_server_text). A dry run first finds that
            # out without booking anything or preempting anyone; it commits nothing, so it
            # carries no event id. A refusal of the request itself (a queued cluster, an
            # unknown account) is the same either way and answers at once.
            status, answer = api.call("POST", path, {
                **{k: v for k, v in body.items() if k != "event_id"}, "dry_run": True})
            servers = [m["server_id"] for m in answer.get("members") or ()]
            if status == 200 and answer.get("decision") == "placed" and \
                    len(set(servers)) < nodes:
                emit(decision="refused", message=shared_server_text(servers, nodes))
                return 0
        if status == 200:
            status, answer = api.call("POST", path, body)
    except Unavailable as e:
        withdraw(cfg, members)
        emit(decision="error", message=str(e))
        return 0
    what = f"job type {job_type}" + (f", {nodes} nodes" if nodes > 1 else "")
    if status == 404 and answer.get("code") == "unknown_tenant":
        emit(decision="refused", message=f"Slurm account {tenant} has no quota on this "
                                         f"Headroom cluster ({answer.get('detail', '')})")
        return 0
    if status not in (200, 202):  # 202: a queued cluster accepted it into a queue
        emit(decision="error", message=problem_text(status, answer))
        return 0
    decision = answer["decision"]
    fields = {"decision": decision, "job": admin_token(job_id, nodes), "type": job_type}
    memory_dim = cfg["dimension"].get(MEMORY)
    for jt in cluster["job_types"]:
        if jt["name"] == job_type and memory_dim in jt["demand"]:
            # The hook gives the job exactly this much memory (per node): Slurm then accounts
            # what Headroom accounts, and a job without --mem does not take a whole node
            # (Slurm's default).
            fields["mem_mb"] = str(int(jt["demand"][memory_dim]))
    preempted = [p["job_id"] for p in answer.get("preempted") or ()]
    if nodes > 1:
        servers = [m["server_id"] for m in answer.get("members") or ()]
        if decision == "placed" and len(set(servers)) < nodes:
            # The dry run said otherwise (another client's event came between, or a random
            # policy drew differently): undo the booking within what is left of the budget.
            migrations = withdraw(cfg, members, max(api.deadline - time.monotonic(), 0) + 1.0)
            cancel_preempted(cfg, preempted, answer.get("preempted"), migrations)
            emit(decision="refused", message=shared_server_text(servers, nodes)
                 + "; its booking was undone")
            return 0
        if decision == "placed":
            fields["node"] = ",".join(cfg["node"].get(s, s) for s in servers)
            fields["nodes"] = str(nodes)
    else:
        servers = [answer.get("server_id")]
        if decision in ("placed", "started"):
            fields["node"] = cfg["node"].get(servers[0], servers[0])
    if decision == "rejected":
        failed = answer.get("failed")
        if nodes > 1 and failed:
            what += f"; node {members.index(failed['job_id']) + 1} of {nodes} did not fit"
        fields["message"] = rejection_text(answer, what)
    elif decision == "queued" and answer.get("reason") == "waiting_for_quota":
        # Slurm shows it in the job's Comment while it is held: whose quota it waits for,
        # and by how much it is short.
        quota = (answer.get("details") or {}).get("quota") or {}
        fields["message"] = (f"waiting_for_quota at position {answer.get('position')} of "
                             f"account {tenant}: {quota_text(quota)}")
    elif decision == "queued":
        fields["message"] = f"queued at position {answer.get('position')}"
    else:
        fields["message"] = f"{answer.get('reason', decision)} on {','.join(servers)}"
    if preempted:
        fields["message"] += f"; preempted {len(preempted)} job(s): {' '.join(preempted)}"
        cancel_preempted(cfg, preempted, answer.get("preempted"), [])
    emit(**fields)
    return 0


def withdraw(cfg: dict, job_ids: list[str], budget: float = 1.0) -> list[dict]:
    """Free what Headroom booked for jobs Slurm will not run under these ids: an arrival (or
    gang) whose answer was lost (Headroom slow, not down: it may have decided it), or a gang
    Slurm cannot run as placed. A 404 or 409 means it was never booked. Best effort within
    ``budget`` (one more second after a lost answer): a departure that fails here leaves a
    booked job for an operator (docs/integrations/slurm.md, limits). Returns the migrations
    the departures caused (DRA)."""
    migrations = []
    api = Headroom(cfg, budget)
    for job in job_ids:
        try:
            status, answer = api.call("POST", "/departures",
                                      {"event_id": "departure-" + job, "job_id": job})
        except Unavailable:
            break
        if status == 200 and answer.get("migration"):
            migrations.append(answer["migration"])
    return migrations


def log_path(cfg: dict) -> str:
    return cfg.get("log") or os.environ.get("HEADROOM_SLURM_LOG", "/var/log/slurm/headroom.log")


def cancel_preempted(cfg: dict, job_ids: list[str], preempted, migrations: list[dict]) -> None:
    """Headroom preempted these jobs (a lender reclaiming its quota, say) to admit another:
    they hold no slot in Headroom any more, so Slurm must stop them too. The hook cannot wait
    for that (slurmctld serves ``scancel`` only once the hook has returned), so a detached
    ``cancel-preempted`` does it, writing what it did to ``log`` (the config's)."""
    if not job_ids and not migrations:
        return
    why = {p["job_id"]: p for p in preempted or ()}
    argv = [sys.executable, os.path.abspath(__file__), "--config", cfg["_path"],
            "cancel-preempted", *job_ids]
    for m in migrations:
        argv += ["--migration", json.dumps(m)]
    for job in job_ids:
        reason = why.get(job, {}).get("reason")
        if reason:
            argv += ["--reason", f"{job}={reason}"]
    try:
        log = open(log_path(cfg), "ab")  # noqa: SIM115 (the child's; closed here after start)
    except OSError:
        log = subprocess.DEVNULL
    try:
        # Its own session, and none of the hook's pipe: the hook reads until EOF, and
        # timeout(1) signals the helper's process group.
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         start_new_session=True, close_fds=True)
    except OSError as e:
        print(f"cannot start cancel-preempted {' '.join(job_ids)}: {e}", file=sys.stderr)
    finally:
        if log is not subprocess.DEVNULL:
            log.close()


def cancel_preempted_command(cfg: dict, args) -> int:
    """Cancel the Slurm jobs holding Headroom jobs it preempted; a multi-node job goes whole
    (its other members depart when it ends, through the completion script as always)."""
    reasons = dict(r.split("=", 1) for r in args.reason)
    status = 0
    for raw in args.migration:
        try:
            report_migration(cfg, json.loads(raw), sys.stderr)
        except (OSError, subprocess.SubprocessError) as e:
            print(f"cancel-preempted: reporting {raw}: {e}", file=sys.stderr)
            status = 1
    if not args.jobs:
        return status
    wanted = set(args.jobs)
    out = subprocess.run(["squeue", "-h", "-O", "JobID:20,admin_comment:300"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 2 or not parts[1].startswith(ADMIN_COMMENT_PREFIX):
            continue
        hit = sorted(wanted & set(headroom_ids(parts[1][len(ADMIN_COMMENT_PREFIX):])))
        if not hit:
            continue
        note = "headroom preempted " + ", ".join(
            f"{j} ({reasons[j]})" if j in reasons else j for j in hit)
        try:
            scontrol("update", f"JobId={parts[0]}", f"Comment={note}")
            subprocess.run(["scancel", parts[0]], check=True, capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            print(f"cancel-preempted {parts[0]}: {e}", file=sys.stderr)
            status = 1
            continue
        print(f"{note}: cancelled Slurm job {parts[0]}", file=sys.stderr, flush=True)
        wanted -= set(hit)
    for job in sorted(wanted):
        print(f"cancel-preempted: {job} is no Slurm job here (ended already?)", file=sys.stderr)
    return status


def scontrol(*args: str) -> str:
    return subprocess.run(["scontrol", *args], check=True, capture_output=True, text=True,
                          timeout=30).stdout


def headroom_jobs(slurm_job_id: str) -> list[str] | None:
    """The Headroom job ids the hook recorded in the job's AdminComment: one, or a multi-node
    job's members (``headroom:<job>.[0-3]``). Only Slurm's administrators can change an
    AdminComment, unlike Comment, so a user cannot redirect the departure."""
    for field in scontrol("show", "job", "-o", slurm_job_id).split():
        if field.startswith("AdminComment=" + ADMIN_COMMENT_PREFIX):
            return headroom_ids(field.split("=", 1)[1][len(ADMIN_COMMENT_PREFIX):])
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
        if len(parts) == 3 and parts[2].startswith(ADMIN_COMMENT_PREFIX) and \
                job in headroom_ids(parts[2][len(ADMIN_COMMENT_PREFIX):]):
            slurm_id, state = parts[0], parts[1]
            if state == "PENDING" and parts[2] != ADMIN_COMMENT_PREFIX + job:
                note += "; one node of a multi-node job not started yet, not re-pinned"
            elif state == "PENDING":
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
        jobs = headroom_jobs(slurm_job_id)
    except (OSError, subprocess.SubprocessError) as e:
        print(f"depart {slurm_job_id}: cannot read its AdminComment: {e}", file=sys.stderr)
        return 1
    if jobs is None:
        return 0  # admitted while Headroom was unreachable with on_error=accept: nothing to free
    # The script may run again (slurmctld restart, requeue): the event ids make that a replay.
    # A multi-node job's members depart one by one, within one retry budget.
    api = Headroom(cfg, float(cfg.get("departure_retry_seconds", 60)))
    failed = 0
    for job in jobs:
        try:
            status, answer = api.call("POST", "/departures",
                                      {"event_id": "departure-" + job, "job_id": job})
        except Unavailable as e:
            print(f"depart {slurm_job_id} ({job}): {e}", file=sys.stderr)
            failed = 1
            continue
        if status == 404:
            continue  # Headroom does not know it (the cluster was deleted): nothing to free
        if status == 409 and answer.get("code") == "job_not_running":
            continue  # it left already (finished, preempted, withdrawn): nothing to free
        if status not in (200, 202):
            print(f"depart {slurm_job_id} ({job}): HTTP {status} {answer}", file=sys.stderr)
            failed = 1
            continue
        if answer.get("decision") == "withdrawn":
            # Cancelled while Headroom still had it queued (held in Slurm): it left the queue
            # without ever starting, so the release poller will never pin it.
            print(f"depart {slurm_job_id} ({job}): withdrawn from Headroom's queue",
                  file=sys.stderr)
        if answer.get("migration"):
            report_migration(cfg, answer["migration"], sys.stderr)
    return failed


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
    p.add_argument("--account", help="the job's Slurm account: its tenant where the cluster "
                                     "declares tenants")
    p = sub.add_parser("depart")
    p.add_argument("--job", help="Slurm job id (default: $JOBID, then $SLURM_JOB_ID)")
    p = sub.add_parser("release")
    p.add_argument("--every", type=float, default=0, help="repeat every this many seconds")
    p = sub.add_parser("cancel-preempted")
    p.add_argument("jobs", nargs="*", help="Headroom job ids it preempted")
    p.add_argument("--reason", action="append", default=[], help="JOB=REASON, for the Comment")
    p.add_argument("--migration", action="append", default=[], help="a migration to report")
    args = parser.parse_args(argv)
    try:
        cfg = read_config(args.config)
    except ConfigError as e:
        if args.command == "submit":
            emit(decision="error", message=str(e))
            return 0
        print(e, file=sys.stderr)
        return 2
    return {"submit": submit, "depart": depart, "release": release,
            "cancel-preempted": cancel_preempted_command}[args.command](cfg, args)


if __name__ == "__main__":
    sys.exit(main())
