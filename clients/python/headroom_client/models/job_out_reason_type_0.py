from enum import StrEnum


class JobOutReasonType0(StrEnum):
    WAITING_FOR_GANG = "waiting_for_gang"
    WAITING_FOR_QUOTA = "waiting_for_quota"

    def __str__(self) -> str:
        return str(self.value)
