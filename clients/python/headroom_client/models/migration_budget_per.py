from enum import StrEnum


class MigrationBudgetPer(StrEnum):
    CLUSTER = "cluster"
    SERVER = "server"

    def __str__(self) -> str:
        return str(self.value)
