from enum import StrEnum


class HeldJobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
