"""HAProxy in front of a test Patroni cluster: the shipped deploy/haproxy/postgres.cfg, run in
the foreground with the cluster's addresses from the environment; its one port reaches the
node whose Patroni answers GET /primary with 200."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

from tests.ha.patroni import OS_USER, PatroniCluster
from tests.live import ROOT, free_port

CONFIG = ROOT / "deploy" / "haproxy" / "postgres.cfg"


class PrimaryProxy:
    def __init__(self, cluster: PatroniCluster):
        assert len(cluster.nodes) == 3, "deploy/haproxy/postgres.cfg names three nodes"
        self.port = free_port()
        self.env = {**os.environ, "HEADROOM_PG_BIND": f"127.0.0.1:{self.port}"}
        for i, node in enumerate(cluster.nodes, 1):
            self.env[f"HEADROOM_PG_{i}"] = f"127.0.0.1:{node.pg_port}"
            self.env[f"HEADROOM_PATRONI_API_{i}"] = str(node.api_port)
        self.base = Path(tempfile.mkdtemp(prefix="headroom-pgproxy-"))
        self.proc: subprocess.Popen | None = None
        atexit.register(self.close)

    def start(self, within: float = 30.0) -> PrimaryProxy:
        binary = shutil.which("haproxy")
        assert binary, "haproxy is missing (.ci/run installs Debian's haproxy)"
        self.out = (self.base / "haproxy.log").open("ab")
        self.proc = subprocess.Popen([binary, "-db", "-f", str(CONFIG)], env=self.env,
                                     stdout=self.out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:  # until a check has found the primary
            assert self.proc.poll() is None, self.log()
            try:
                with psycopg.connect(host="127.0.0.1", port=self.port, user=OS_USER,
                                     dbname="postgres", connect_timeout=1) as conn:
                    if not conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                        return self
            except psycopg.OperationalError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"HAProxy reached no primary in {within} s: {self.log()}")

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log(self) -> str:
        try:
            return (self.base / "haproxy.log").read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.out.close()
        self.proc = None
        shutil.rmtree(self.base, ignore_errors=True)
