from enum import StrEnum


class RmsPolicyClock(StrEnum):
    CLIENT = "client"
    WALL = "wall"

    def __str__(self) -> str:
        return str(self.value)
