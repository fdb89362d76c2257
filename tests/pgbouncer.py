"""A real PgBouncer in transaction pooling mode, started for a test (issue #60).

Debian's pgbouncer (1.18) refuses to run as root, so it runs as the ``postgres`` OS user, in
its own session, from a private directory; ``close()`` (also registered with atexit) kills it.
The settings that matter for Headroom are those of deploy/pgbouncer/pgbouncer.ini, which the
harness reads and points at the given Postgres (``host:port``): the shipped file is the one
tested.
"""

from __future__ import annotations

import atexit
import configparser
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

from tests.live import ROOT, free_port

SHIPPED = ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini"
OS_USER = "postgres"


def missing_tools() -> list[str]:
    return [t for t in ("pgbouncer", "runuser") if shutil.which(t) is None]


class PgBouncer:
    def __init__(self, server: str, pool_size: int = 4):
        """``server``: the Postgres (or the proxy to its primary) as ``host:port``."""
        self.host, self.server_port = server.rsplit(":", 1)
        self.port = free_port()
        self.pool_size = pool_size
        self.base = Path(tempfile.mkdtemp(prefix="headroom-pgbouncer-"))
        self.proc: subprocess.Popen | None = None
        self.out = None
        atexit.register(self.close)

    def config(self) -> str:
        shipped = configparser.ConfigParser(interpolation=None)
        shipped.read(SHIPPED)
        settings = dict(shipped["pgbouncer"])
        settings.update({
            "listen_addr": "127.0.0.1", "listen_port": str(self.port),
            "unix_socket_dir": "", "auth_type": "trust",
            "auth_file": str(self.base / "userlist.txt"),
            "logfile": str(self.base / "pgbouncer.log"), "pidfile": "",
            "default_pool_size": str(self.pool_size),
            "admin_users": OS_USER,
        })
        lines = ["[databases]",
                 f"* = host={self.host} port={self.server_port} user={OS_USER}",
                 "", "[pgbouncer]", *(f"{k} = {v}" for k, v in settings.items())]
        return "\n".join(lines) + "\n"

    def start(self, within: float = 30.0) -> PgBouncer:
        pw = pwd.getpwnam(OS_USER)
        os.chmod(self.base, 0o755)
        (self.base / "userlist.txt").write_text(f'"{OS_USER}" ""\n')
        ini = self.base / "pgbouncer.ini"
        ini.write_text(self.config())
        for f in (self.base, ini, self.base / "userlist.txt"):
            os.chown(f, pw.pw_uid, pw.pw_gid)
        self.out = (self.base / "stdout.log").open("ab")
        self.proc = subprocess.Popen(["runuser", "-u", OS_USER, "--", "pgbouncer", str(ini)],
                                     stdout=self.out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                with self.admin() as conn:
                    conn.execute("SHOW VERSION")
                return self
            except psycopg.OperationalError:
                time.sleep(0.1)
        raise RuntimeError(f"pgbouncer did not start: {self.log()[-2000:]}")

    def url(self, dbname: str) -> str:
        return f"postgresql+psycopg://{OS_USER}@127.0.0.1:{self.port}/{dbname}"

    def admin(self) -> psycopg.Connection:
        """PgBouncer's admin console (SHOW POOLS, SHOW SERVERS, ...)."""
        return psycopg.connect(host="127.0.0.1", port=self.port, user=OS_USER,
                               dbname="pgbouncer", autocommit=True, connect_timeout=2)

    def servers(self, dbname: str) -> int:
        """Server connections PgBouncer holds open to ``dbname`` now."""
        return self._count("SHOW SERVERS", dbname)

    def clients(self, dbname: str) -> int:
        """Client connections PgBouncer has for ``dbname`` now."""
        return self._count("SHOW CLIENTS", dbname)

    def _count(self, show: str, dbname: str) -> int:
        with self.admin() as conn:
            cur = conn.execute(show)
            names = [d.name for d in cur.description]
            return sum(1 for row in cur.fetchall() if dict(zip(names, row))["database"] == dbname)

    def log(self) -> str:
        parts = []
        for name in ("pgbouncer.log", "stdout.log"):
            try:
                parts.append((self.base / name).read_text(errors="replace"))
            except OSError:
                pass
        return "\n".join(parts)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None
        if getattr(self, "out", None) is not None:
            self.out.close()
        shutil.rmtree(self.base, ignore_errors=True)
