from enum import StrEnum


class OutgrowingRowReason(StrEnum):
    CLUSTER_OVERFLOW = "cluster_overflow"
    OUTGROWING_CLUSTER = "outgrowing_cluster"

    def __str__(self) -> str:
        return str(self.value)
