from enum import StrEnum


class QueueGangOutDecision(StrEnum):
    QUEUED = "queued"
    STARTED = "started"

    def __str__(self) -> str:
        return str(self.value)
