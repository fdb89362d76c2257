from enum import StrEnum


class TypicalDeploymentViewDecision(StrEnum):
    ADMITTED = "admitted"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)
