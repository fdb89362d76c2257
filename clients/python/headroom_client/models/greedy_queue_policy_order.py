from enum import StrEnum


class GreedyQueuePolicyOrder(StrEnum):
    FIFO = "fifo"
    LARGE_FIRST = "large_first"
    SMALL_FIRST = "small_first"

    def __str__(self) -> str:
        return str(self.value)
