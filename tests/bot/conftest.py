"""Fixtures shared by the tests of the bot package."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh store (an empty database file, migrated) closed after the test."""
    s = await Store.open(tmp_path / "ofc.db")
    try:
        yield s
    finally:
        await s.close()
