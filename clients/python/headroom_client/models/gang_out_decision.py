from enum import StrEnum


class GangOutDecision(StrEnum):
    PLACED = "placed"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)
