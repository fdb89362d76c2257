from enum import StrEnum


class LearnerViewCautiousPhaseType0(StrEnum):
    FLOOR = "floor"
    HELD = "held"

    def __str__(self) -> str:
        return str(self.value)
