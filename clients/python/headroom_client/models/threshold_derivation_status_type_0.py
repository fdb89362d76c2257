from enum import StrEnum


class ThresholdDerivationStatusType0(StrEnum):
    CALIBRATED = "calibrated"
    CALIBRATING = "calibrating"

    def __str__(self) -> str:
        return str(self.value)
