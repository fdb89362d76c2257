from enum import StrEnum


class DraStatePreemption(StrEnum):
    ADMIT = "admit"
    OFF = "off"
    REBUILD = "rebuild"

    def __str__(self) -> str:
        return str(self.value)
