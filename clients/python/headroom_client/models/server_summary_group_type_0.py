from enum import StrEnum


class ServerSummaryGroupType0(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"

    def __str__(self) -> str:
        return str(self.value)
