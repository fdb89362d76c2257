"""A real etcd and a three-node Patroni cluster on loopback ports chosen at runtime (issue #60).

Postgres refuses to run as root, so every Patroni (and the postmaster it starts) runs as the
``postgres`` OS user in a private directory this module creates and chowns. Every process is
started in its own session and killed by process group on ``close()`` (also registered with
atexit, so a failing test or an interrupted run leaves nothing behind). The postmasters call
setsid themselves (Patroni's postmaster.py), so they are found through their postmaster.pid
files and their groups killed too.

The timings are small so that a failover takes seconds, not the defaults' half minute:
``TIMINGS`` (ttl, loop_wait and retry_timeout in seconds; Patroni needs
loop_wait + 2 * retry_timeout <= ttl). ``primary_start_timeout: 0`` makes a crashed primary
fail over at once instead of being restarted in place, and ``synchronous_mode: true`` makes
every commit Headroom is answered wait for the sync standby, so a promotion loses none.
"""

from __future__ import annotations

import atexit
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.live import free_port

PG_BIN = Path(os.environ.get("HEADROOM_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
TIMINGS = {"ttl": 10, "loop_wait": 1, "retry_timeout": 3}
SCOPE = "headroom-ha"
OS_USER = "postgres"


def missing_tools() -> list[str]:
    """What this harness needs and the machine lacks (.ci/run installs it)."""
    missing = [t for t in ("patroni", "etcd", "etcdctl", "runuser") if shutil.which(t) is None]
    if not (PG_BIN / "postgres").exists():
        missing.append(str(PG_BIN / "postgres"))
    try:
        pwd.getpwnam(OS_USER)
    except KeyError:
        missing.append(f"OS user {OS_USER}")
    return missing


@dataclass
class Node:
    name: str
    pg_port: int
    api_port: int
    home: Path
    proc: subprocess.Popen | None = None

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


class PatroniCluster:
    def __init__(self, nodes: int = 3, base: Path | None = None):
        self.base = Path(base or tempfile.mkdtemp(prefix="headroom-ha-"))
        self.etcd_port, self.etcd_peer = free_port(), free_port()
        self.nodes = [Node(f"n{i}", free_port(), free_port(), self.base / f"n{i}")
                      for i in range(nodes)]
        self.etcd: subprocess.Popen | None = None
        self._logs: list[Any] = []
        atexit.register(self.close)

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, within: float = 120.0) -> PatroniCluster:
        os.chmod(self.base, 0o755)  # postgres must reach its own directory below
        self._start_etcd()
        pw = pwd.getpwnam(OS_USER)
        for node in self.nodes:
            node.home.mkdir()
            os.chown(node.home, pw.pw_uid, pw.pw_gid)
            os.chmod(node.home, 0o700)
            cfg = node.home / "patroni.json"  # JSON is YAML: no writer needed
            cfg.write_text(json.dumps(self._config(node), indent=1))
            os.chown(cfg, pw.pw_uid, pw.pw_gid)
        for node in self.nodes:
            self.start_node(node)
        self.wait_healthy(within)
        return self

    def _start_etcd(self) -> None:
        data = self.base / "etcd"
        client, peer = f"http://127.0.0.1:{self.etcd_port}", f"http://127.0.0.1:{self.etcd_peer}"
        self.etcd = self._spawn("etcd", [
            "etcd", "--name", "e0", "--data-dir", str(data),
            "--listen-client-urls", client, "--advertise-client-urls", client,
            "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
            "--initial-cluster", f"e0={peer}", "--log-level", "warn"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{client}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.etcd.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"etcd did not start: {self.log('etcd')[-2000:]}")

    def _config(self, node: Node) -> dict[str, Any]:
        hba = ["local all all trust", "host all all 127.0.0.1/32 trust",
               "host replication all 127.0.0.1/32 trust"]
        return {
            "scope": SCOPE, "name": node.name,
            "log": {"level": "INFO"},
            "restapi": {"listen": f"127.0.0.1:{node.api_port}",
                        "connect_address": f"127.0.0.1:{node.api_port}"},
            "etcd3": {"host": f"127.0.0.1:{self.etcd_port}"},
            "bootstrap": {
                "dcs": {**TIMINGS, "maximum_lag_on_failover": 16 * 1024 * 1024,
                        "primary_start_timeout": 0, "synchronous_mode": True,
                        "postgresql": {"use_pg_rewind": True, "use_slots": True,
                                       "parameters": {"max_connections": 200,
                                                      "wal_keep_size": "64MB",
                                                      "max_wal_senders": 10,
                                                      "max_replication_slots": 10,
                                                      # A replica that asked the new primary
                                                      # before its slot existed asks again
                                                      # soon (default 5 s): until one streams,
                                                      # no commit is acknowledged.
                                                      "wal_retrieve_retry_interval": "500ms"}}},
                "initdb": [{"encoding": "UTF8"}, "data-checksums"],
                "pg_hba": hba,
            },
            "postgresql": {
                "listen": f"127.0.0.1:{node.pg_port}",
                "connect_address": f"127.0.0.1:{node.pg_port}",
                "data_dir": str(node.data_dir), "bin_dir": str(PG_BIN),
                "pgpass": str(node.home / "pgpass"),
                "authentication": {u: {"username": OS_USER}
                                   for u in ("superuser", "replication", "rewind")},
                "parameters": {"unix_socket_directories": str(node.home),
                               "shared_buffers": "32MB", "fsync": "on"},
                "pg_hba": hba,
            },
        }

    def start_node(self, node: Node) -> None:
        node.proc = self._spawn(node.name, ["runuser", "-u", OS_USER, "--", "patroni",
                                            str(node.home / "patroni.json")])

    def stop_node(self, node: Node, timeout: float = 30) -> None:
        """Stop Patroni, which shuts its postgres down first (a clean replica restart)."""
        if node.proc is not None and node.proc.poll() is None:
            os.killpg(node.proc.pid, signal.SIGTERM)
            try:
                node.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(node.proc.pid, signal.SIGKILL)
                node.proc.wait()
        node.proc = None

    def kill_postmaster(self, node: Node) -> int:
        """SIGKILL this node's postmaster alone (its backends notice and exit); Patroni stays."""
        pid = node.postmaster_pid()
        assert pid is not None, f"{node.name} has no postmaster.pid"
        os.kill(pid, signal.SIGKILL)
        return pid

    def close(self) -> None:
        for node in self.nodes:
            try:
                self.stop_node(node, timeout=15)
            except ProcessLookupError:
                pass
            pid = node.postmaster_pid()  # a postgres Patroni left (killed before its stop)
            if pid is not None:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        if self.etcd is not None and self.etcd.poll() is None:
            os.killpg(self.etcd.pid, signal.SIGKILL)
            self.etcd.wait()
        # A postmaster Patroni was starting when it was stopped has no pid file read above:
        # anything still running from this cluster's own directory is ours to end.
        for pid in self._leftovers():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for f in self._logs:
            f.close()
        self._logs.clear()
        if not os.environ.get("HEADROOM_HA_KEEP"):  # set it to read the nodes' logs after
            shutil.rmtree(self.base, ignore_errors=True)

    def _leftovers(self) -> list[int]:
        mine = str(self.base).encode()
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if mine in (entry / "cmdline").read_bytes():
                        pids.append(int(entry.name))
                except OSError:
                    continue
        return pids

    def _spawn(self, name: str, cmd: list[str]) -> subprocess.Popen:
        log = (self.base / f"{name}.log").open("ab")
        self._logs.append(log)
        return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.base,
                                start_new_session=True)

    def log(self, name: str) -> str:
        try:
            return (self.base / f"{name}.log").read_text(errors="replace")
        except OSError:
            return ""

    # -- what Patroni says -----------------------------------------------------------------

    def members(self) -> list[dict[str, Any]]:
        """Patroni's /cluster from any node that answers (empty when none does)."""
        for node in self.nodes:
            try:
                r = httpx.get(node.api + "/cluster", timeout=1)
                if r.status_code == 200:
                    return r.json().get("members", [])
            except httpx.HTTPError:
                continue
        return []

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def leader(self) -> Node | None:
        """The running leader, or None."""
        for m in self.members():
            if m.get("role") == "leader" and m.get("state") == "running":
                return self.node(m["name"])
        return None

    def sync_standby(self) -> Node | None:
        for m in self.members():
            if m.get("role") == "sync_standby" and m.get("state") in ("running", "streaming"):
                return self.node(m["name"])
        return None

    def wait_healthy(self, within: float, exclude: str | None = None) -> tuple[Node, Node]:
        """Until a running leader and a streaming sync standby (neither named ``exclude``)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            leader, sync = self.leader(), self.sync_standby()
            if leader and sync and exclude not in (leader.name, sync.name):
                return leader, sync
            time.sleep(0.25)
        raise AssertionError(f"no leader and sync standby within {within} s: {self.members()}"
                             f"\n{self.log('n0')[-3000:]}")

    def wait_leader_other_than(self, name: str, within: float) -> Node:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            leader = self.leader()
            if leader is not None and leader.name != name:
                return leader
            time.sleep(0.1)
        raise AssertionError(f"no new leader within {within} s: {self.members()}")

    # -- how clients reach it --------------------------------------------------------------

    def url(self, dbname: str = "postgres") -> str:
        """A SQLAlchemy URL naming every node; libpq connects to the one that takes writes."""
        hosts = ",".join(f"127.0.0.1:{n.pg_port}" for n in self.nodes)
        return (f"postgresql+psycopg://{OS_USER}@/{dbname}?host={hosts}"
                "&target_session_attrs=read-write")


if __name__ == "__main__":  # by hand: python -m tests.ha.patroni
    c = PatroniCluster().start()
    try:
        t0 = time.monotonic()
        print("members:", json.dumps(c.members(), indent=1))
        print("url:", c.url())
        leader, _ = c.wait_healthy(10)
        c.kill_postmaster(leader)
        new = c.wait_leader_other_than(leader.name, 60)
        print(f"killed {leader.name}; {new.name} leads after {time.monotonic() - t0:.1f} s")
        print("members:", json.dumps(c.members(), indent=1))
    finally:
        c.close()
