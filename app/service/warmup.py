"""Compile the families' decision paths at start, so that no request pays for it.

The moment kernel (numba) is compiled, or loaded from numba's disk cache, at its first call:
seconds on a fresh install, over 30 s on a loaded 2-core machine, which a first POST
.../deployments paid in full (past a Kubernetes webhook's 10 s). A daemon thread runs every
family's ``warm`` hook at start; /readyz answers 503 until it is done, so a load balancer or
kubelet sends no traffic before. Daemonic, so a shutdown during it does not wait for it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

log = logging.getLogger("headroom.warmup")


class Warmup:
    def __init__(self, hooks: Iterable[tuple[str, Callable[[], None]]]):
        self._hooks = list(hooks)
        self._done = threading.Event()
        self.seconds: float | None = None
        self.failed: str | None = None

    @property
    def ready(self) -> bool:
        return self._done.is_set()

    @property
    def pending(self) -> list[str]:
        return [] if self.ready else [name for name, _ in self._hooks]

    def start(self) -> None:
        threading.Thread(target=self.run, name="headroom-warmup", daemon=True).start()

    def run(self) -> None:
        started = time.perf_counter()
        for name, hook in self._hooks:
            try:
                hook()
            except Exception:  # noqa: BLE001 - a failed warm-up only costs the first request
                # the compile it would have saved; readiness must not hang on it.
                log.exception("warm-up of %s failed; its first request compiles instead", name)
                self.failed = name
        self.seconds = time.perf_counter() - started
        log.info("warm-up done", extra={"ms": round(self.seconds * 1000, 1)})
        self._done.set()
