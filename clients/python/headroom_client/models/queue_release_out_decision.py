from enum import StrEnum


class QueueReleaseOutDecision(StrEnum):
    RELEASED = "released"
    WITHDRAWN = "withdrawn"

    def __str__(self) -> str:
        return str(self.value)
