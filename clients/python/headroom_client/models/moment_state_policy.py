from enum import StrEnum


class MomentStatePolicy(StrEnum):
    FIRST_MOMENT = "first_moment"
    SECOND_MOMENT = "second_moment"
    THRESHOLD = "threshold"

    def __str__(self) -> str:
        return str(self.value)
