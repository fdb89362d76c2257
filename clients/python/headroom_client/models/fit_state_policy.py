from enum import StrEnum


class FitStatePolicy(StrEnum):
    BEST_FIT = "best_fit"
    FIRST_FIT = "first_fit"

    def __str__(self) -> str:
        return str(self.value)
