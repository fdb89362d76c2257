from enum import StrEnum


class JobOutStatus(StrEnum):
    FINISHED = "finished"
    QUEUED = "queued"
    RUNNING = "running"
    WITHDRAWN = "withdrawn"

    def __str__(self) -> str:
        return str(self.value)
