from enum import StrEnum


class AdmissionRequestOperation(StrEnum):
    CONNECT = "CONNECT"
    CREATE = "CREATE"
    DELETE = "DELETE"
    UPDATE = "UPDATE"

    def __str__(self) -> str:
        return str(self.value)
