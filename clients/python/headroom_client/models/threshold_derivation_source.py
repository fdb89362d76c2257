from enum import StrEnum


class ThresholdDerivationSource(StrEnum):
    CALIBRATION = "calibration"
    DECLARED = "declared"
    TABLE = "table"

    def __str__(self) -> str:
        return str(self.value)
