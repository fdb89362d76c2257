from enum import StrEnum


class ReservationPolicyKind(StrEnum):
    FTL = "ftl"
    PERCENTILE = "percentile"
    QUANTILE_TRACKING = "quantile_tracking"
    THOR = "thor"

    def __str__(self) -> str:
        return str(self.value)
