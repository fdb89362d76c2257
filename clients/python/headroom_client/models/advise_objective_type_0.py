from enum import StrEnum


class AdviseObjectiveType0(StrEnum):
    ACCEPTANCE = "acceptance"
    COST_PER_PERIOD = "cost_per_period"
    QUEUE_WAIT = "queue_wait"
    REWARD_RATE = "reward_rate"
    UTILIZATION = "utilization"

    def __str__(self) -> str:
        return str(self.value)
