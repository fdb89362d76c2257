from enum import StrEnum


class QueueGangOutReason(StrEnum):
    ALL_STARTED = "all_started"
    WAITING_FOR_QUOTA = "waiting_for_quota"
    WAITING_FOR_ROOM = "waiting_for_room"

    def __str__(self) -> str:
        return str(self.value)
