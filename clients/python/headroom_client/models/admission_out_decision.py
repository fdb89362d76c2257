from enum import StrEnum


class AdmissionOutDecision(StrEnum):
    ADMITTED = "admitted"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)
