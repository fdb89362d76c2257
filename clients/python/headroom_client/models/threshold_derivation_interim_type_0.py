from enum import StrEnum


class ThresholdDerivationInterimType0(StrEnum):
    ADMIT_NOTHING = "admit_nothing"
    TABLE_STRICTER_SLA = "table_stricter_sla"

    def __str__(self) -> str:
        return str(self.value)
