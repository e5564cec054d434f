"""Domain errors of the store.  ``str(error)`` is a sentence that can be shown to a user."""

from __future__ import annotations


class StoreError(Exception):
    """Base class: the operation was refused and nothing was written."""


class NotFound(StoreError):
    """The table, seat or hand does not exist (any more)."""


class InsufficientFunds(StoreError):
    """A balance or stack is smaller than the amount asked for."""

    def __init__(self, message: str, *, have: int, need: int) -> None:
        super().__init__(message)
        self.have = have
        self.need = need


class AlreadyApplied(StoreError):
    """The hand was already settled.  Callers treat this as idempotent success."""

    def __init__(self, message: str, *, hand_id: int) -> None:
        super().__init__(message)
        self.hand_id = hand_id


class TableExists(StoreError):
    """The channel already has a table that is not closed."""

    def __init__(self, message: str, *, table_id: int | None) -> None:
        super().__init__(message)
        self.table_id = table_id


class TableClosed(StoreError):
    """The table is closing or closed: nobody can sit down."""


class TableFull(StoreError):
    """Every seat of the table is taken."""


class SeatTaken(StoreError):
    """Somebody already sits in that seat."""


class AlreadySeated(StoreError):
    """The user already sits at this table."""


class HandInProgress(StoreError):
    """The table is in the middle of a hand."""
