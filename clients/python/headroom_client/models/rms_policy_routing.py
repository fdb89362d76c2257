from enum import StrEnum


class RmsPolicyRouting(StrEnum):
    CENTRAL = "central"
    JSQ = "jsq"
    PO2 = "po2"

    def __str__(self) -> str:
        return str(self.value)
