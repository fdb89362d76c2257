from enum import StrEnum


class RmsPolicySampling(StrEnum):
    BF = "bf"
    RF = "rf"
    UNIFORM = "uniform"

    def __str__(self) -> str:
        return str(self.value)
