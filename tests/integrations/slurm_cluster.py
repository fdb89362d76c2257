"""Real Slurm daemons for a test: munged, slurmctld and one slurmd per node, all on 127.0.0.1.

Debian's Slurm is built without --enable-multiple-slurmd, yet 22.05 runs several slurmd on one
host when each node has its own ``Port`` and the daemon is told its name (``slurmd -N``), with
``%n`` in the per-node paths; no network namespace is needed. Every path and port is private to
the test (a temp dir, free ports), so parallel runs do not collide, and every daemon is a child
in its own session, stopped by its pid at the end.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.live import free_port

SLURM_TOOLS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo")


def missing_tools() -> list[str]:
    return [t for t in SLURM_TOOLS if shutil.which(t) is None
            and not Path("/usr/sbin", t).exists()]


class SlurmCluster:
    def __init__(self, root: Path, nodes: dict[str, dict[str, int]], extra: str = "",
                 env: dict[str, str] | None = None):
        self.root = root
        self.nodes = nodes
        self.conf = root / "slurm.conf"
        self.munge_socket = root / "munge" / "munge.sock"
        self.jobcomp = root / "jobcomp.txt"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf), **(env or {})}
        self.procs: list[subprocess.Popen] = []
        self.extra = extra

    def _write_conf(self) -> None:
        r = self.root
        lines = [
            "ClusterName=headroomtest",
            "SlurmctldHost=localhost(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={r / 'state'}",
            f"SlurmdSpoolDir={r / 'spool'}/%n",
            f"SlurmctldPidFile={r / 'slurmctld.pid'}",
            f"SlurmdPidFile={r / 'slurmd-%n.pid'}",
            f"SlurmctldLogFile={r / 'slurmctld.log'}",
            f"SlurmdLogFile={r / 'slurmd-%n.log'}",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU_Memory",
            # The nodes claim more CPUs and memory than this machine has; accept the config.
            "SlurmdParameters=config_overrides",
            *([] if "JobCompType=" in self.extra else
              ["JobCompType=jobcomp/filetxt", f"JobCompLoc={self.jobcomp}"]),
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none", "ReturnToService=2",
            "SchedulerParameters=sched_interval=1",
            self.extra,
        ]
        # A fake GPU: slurmd counts gres/gpu by its device files and reported 0 for a
        # Count-only line (the node went INVAL), so each GPU is /dev/null; one per node here.
        gres = {name: size["gpus"] for name, size in self.nodes.items() if size.get("gpus")}
        assert set(gres.values()) <= {1}, "one fake GPU per node"
        if gres:
            lines.append("GresTypes=gpu")
            (r / "gres.conf").write_text("".join(f"NodeName={name} Name=gpu File=/dev/null\n"
                                                 for name in gres))
        for name, size in self.nodes.items():
            (r / "spool" / name).mkdir(parents=True, exist_ok=True)
            lines.append(f"NodeName={name} NodeAddr=127.0.0.1 Port={free_port()} "
                         f"CPUs={size['cpus']} RealMemory={size['memory_mb']} "
                         + (f"Gres=gpu:{gres[name]} " if name in gres else "") + "State=UNKNOWN")
        lines.append(f"PartitionName=main Nodes={','.join(self.nodes)} Default=YES "
                     "MaxTime=INFINITE State=UP")
        self.conf.write_text("\n".join(lines) + "\n")

    def _spawn(self, *cmd: str, log: str) -> subprocess.Popen:
        out = (self.root / log).open("wb")
        p = subprocess.Popen(cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def __enter__(self) -> SlurmCluster:
        (self.root / "state").mkdir(parents=True)
        munge = self.root / "munge"
        munge.mkdir(mode=0o700)
        key = munge / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        self._write_conf()
        try:
            self._spawn("munged", "-F", "--force", f"--socket={self.munge_socket}",
                        f"--key-file={key}", f"--pid-file={munge / 'munged.pid'}",
                        f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'seed'}",
                        log="munged.out")
            self._wait(lambda: self.munge_socket.exists(), "munged socket")
            self._spawn("slurmctld", "-D", "-i", "-f", str(self.conf), log="slurmctld.out")
            self._wait(lambda: self.run("scontrol", "ping", check=False).returncode == 0,
                       "slurmctld")
            for name in self.nodes:
                self._spawn("slurmd", "-D", "-N", name, "-f", str(self.conf),
                            log=f"slurmd-{name}.out")
            self._wait(self._all_idle, "every slurmd idle")
        except BaseException:
            self.__exit__()
            raise
        return self

    def _all_idle(self) -> bool:
        out = self.run("sinfo", "-h", "-N", "-o", "%N %T", check=False).stdout.split("\n")
        states = dict(line.split() for line in out if line.strip())
        return all(states.get(n) == "idle" for n in self.nodes)

    def _wait(self, ready, what: str, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError(f"{p.args[0]} exited {p.returncode}: {self.logs()}")
            if ready():
                return
            time.sleep(0.2)
        raise RuntimeError(f"{what} not ready in {seconds} s: {self.logs()}")

    def logs(self) -> str:
        parts = []
        for f in sorted(self.root.glob("*.log")) + sorted(self.root.glob("*.out")):
            parts.append(f"--- {f.name}\n{f.read_text(errors='replace')[-1500:]}")
        return "\n".join(parts)

    def run(self, *cmd: str, check: bool = True,
            timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, env=self.env, capture_output=True, text=True, check=check,
                              timeout=timeout)

    def __exit__(self, *exc: object) -> None:
        # Jobs first: slurmstepd daemonises out of slurmd's session, so a job still running when
        # slurmd stops outlives it (seen after a failed run: stepds still waiting 20 min later).
        if len(self.procs) > 2 and self.procs[1].poll() is None:
            self.run("scancel", "-u", "root", check=False)  # every job here is the test's
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and self.run(
                    "squeue", "-h", check=False).stdout.strip():
                time.sleep(0.3)
        # Then slurmds, the controller, munge; any stepd of this cluster left is ended by pid.
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        for pid in self._stepds():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _stepds(self) -> list[int]:
        """slurmstepd processes started for this cluster (their environment names our conf)."""
        mine = f"SLURM_CONF={self.conf}".encode()
        pids = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                if (proc / "comm").read_text().strip() == "slurmstepd" and \
                        mine in (proc / "environ").read_bytes().split(b"\0"):
                    pids.append(int(proc.name))
            except OSError:
                pass
        return pids
