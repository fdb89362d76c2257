from enum import StrEnum


class TickOutDecision(StrEnum):
    ADVANCED = "advanced"
    IDLE = "idle"

    def __str__(self) -> str:
        return str(self.value)
