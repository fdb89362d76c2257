"""Run the real service (``headroom serve``) as a child process on a free port."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx

from app.config import LIMITS_OFF_ENV

ROOT = Path(__file__).resolve().parents[1]
READY_SECONDS = 120


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, database_url: str, workers: int = 1, extra_args: tuple[str, ...] = (),
                 env: dict[str, str | None] | None = None,
                 headroom: tuple[str, ...] = (sys.executable, "-m", "app.cli"),
                 cwd: Path = ROOT, ca_file: Path | None = None):
        """``env`` values of None remove a variable; ``headroom`` is the command to run (an
        installed ``headroom`` script, say) and ``cwd`` where. ``ca_file``: the server serves
        HTTPS (HEADROOM_TLS_* in ``env``), and clients trust this CA."""
        self.port = free_port()
        self.url = f"{'https' if ca_file else 'http'}://127.0.0.1:{self.port}"
        self.verify: ssl.SSLContext | bool = \
            ssl.create_default_context(cafile=str(ca_file)) if ca_file else True
        self.cmd = [*headroom, "serve", "--port", str(self.port),
                    "--workers", str(workers), *extra_args]
        # The request limits are off unless ``env`` sets them (docs/operations.md, "Request
        # limits").
        # Nor does it calibrate moment thresholds or run what-ifs in the background unless
        # ``env`` asks (tests/service/test_calibrator.py): no test's CPU goes to another's job.
        merged = {**os.environ, **LIMITS_OFF_ENV, "HEADROOM_CALIBRATION_WORKERS": "0",
                  "HEADROOM_WHAT_IF_WORKERS": "0",
                  "HEADROOM_DATABASE_URL": database_url, "HEADROOM_LOG_LEVEL": "warning",
                  **(env or {})}
        self.env = {k: v for k, v in merged.items() if v is not None}
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self.log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"headroom-{self.port}.log"

    def __enter__(self) -> LiveServer:
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(self.cmd, cwd=self.cwd, env=self.env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        # Generous: on a loaded 2-core machine two workers took 30 s to import and start.
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/readyz", timeout=1,
                             verify=self.verify).status_code == 200:
                    self.key = self._admin_key()
                    self.headers = {"Authorization": f"Bearer {self.key}"}
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.__exit__()
        raise RuntimeError(f"server not ready in {READY_SECONDS} s: "
                           f"{self.log_path.read_text()[-2000:]}")

    def _admin_key(self) -> str:
        from app.config import Settings
        from app.service.auth import create_key
        from app.service.context import ServiceContext

        # The server's own settings (its database URL, and how to reach it: pooling, timeouts).
        ours = {k.removeprefix("HEADROOM_").lower(): v for k, v in self.env.items()
                if k.startswith("HEADROOM_")}
        ctx = ServiceContext.from_settings(Settings(**ours))
        try:
            return create_key(ctx, "default", ["admin"])["key"]
        finally:
            ctx.close()

    def workers(self) -> list[int]:
        """The pids of uvicorn's worker processes (started with multiprocessing's spawn), or of
        the single process serving."""
        assert self.proc is not None
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, check=False,
                             text=True).stdout
        kids = [int(p) for p in out.split()]
        return [k for k in kids if "spawn_main" in _cmdline(k)] or [self.proc.pid]

    def client(self, timeout: float = 30) -> httpx.Client:
        """An httpx client for this server carrying its admin key."""
        return httpx.Client(base_url=self.url, timeout=timeout, headers=self.headers,
                            verify=self.verify)

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._log.close()
