from enum import StrEnum


class RmsPolicyMaxJobsRule(StrEnum):
    CONFIGURATIONS = "configurations"
    ONE_TYPE = "one_type"

    def __str__(self) -> str:
        return str(self.value)
