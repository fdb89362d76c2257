from enum import StrEnum


class DraStateMigrations(StrEnum):
    OFF_DRAIN = "off_drain"
    OFF_NO_DRAIN = "off_no_drain"
    ON = "on"

    def __str__(self) -> str:
        return str(self.value)
