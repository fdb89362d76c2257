from enum import StrEnum


class GreedyQueueStatePolicy(StrEnum):
    BEST_FIT_QUEUE = "best_fit_queue"
    FIRST_FIT_QUEUE = "first_fit_queue"
    RANDOM_FIT_QUEUE = "random_fit_queue"

    def __str__(self) -> str:
        return str(self.value)
