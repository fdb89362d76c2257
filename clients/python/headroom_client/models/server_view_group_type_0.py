from enum import StrEnum


class ServerViewGroupType0(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"

    def __str__(self) -> str:
        return str(self.value)
