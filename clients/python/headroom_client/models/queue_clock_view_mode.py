from enum import StrEnum


class QueueClockViewMode(StrEnum):
    CLIENT = "client"
    WALL = "wall"

    def __str__(self) -> str:
        return str(self.value)
