from enum import StrEnum


class ReservationPolicyKind(StrEnum):
    FTL = "ftl"
    PERCENTILE = "percentile"
    THOR = "thor"

    def __str__(self) -> str:
        return str(self.value)
