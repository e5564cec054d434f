"""``ofc-bot backup``, ``restore`` and ``check`` (``bot.maintenance``) on a database the table
service wrote: a backup taken while the service plays, a restore that puts it back (refused
while a bot runs), and a check that finds books that do not balance."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.instance import InstanceLock
from bot.maintenance import MaintenanceError, RegularBackups, backup, check, restore
from bot.store import Store
from bot.store.store import load_migrations

from .test_service import ALICE, BOB, CH, G, finish_by_autoplay, make

LATEST = len(load_migrations())  # (the schema version a store opened now has)


async def _play(path: Path, hands: int, *, seed: str = "care") -> Store:
    """Open the service on ``path`` and play ``hands`` heads-up hands (units move); the store
    is left open (a bot still running)."""
    svc, _rec, store = await make(path, seed_factory=lambda: seed)
    await svc.recover()  # (a table left open by an earlier run resumes)
    if not svc.tables:
        await svc.new_table(G, CH, ALICE, "alice", fantasyland=False)
        await svc.join(G, CH, BOB, "bob")
        await svc.start(CH, ALICE)
    for _ in range(hands):
        await finish_by_autoplay(svc)
        deadline = time.monotonic() + 4
        while svc.table_in_channel(CH).hand is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # the next deal
    await svc.shutdown()
    return store


def _count(path: Path, sql: str) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute(sql).fetchone()[0])


DONE = "SELECT COUNT(*) FROM hands WHERE status = 'done'"


async def run(*argv: str) -> int:
    """``ofc-bot ARGV`` (a command of its own: its own event loop, in a thread)."""
    return await asyncio.to_thread(main, list(argv))


async def problems(path: Path) -> list[str]:
    return (await asyncio.to_thread(check, path))[1]


async def test_a_backup_taken_while_the_bot_writes_is_whole_and_restores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 3)
    try:
        # the bot's connection is open, its last writes maybe only in the -wal file
        assert await run("backup", str(tmp_path / "b.sqlite3"), "--database", str(db)) == 0
        said = capsys.readouterr().out
        assert "3 hands at 1 tables, 2 players" in said and f"schema version {LATEST}" in said
    finally:
        await store.close()
    copy = tmp_path / "b.sqlite3"
    assert _count(copy, DONE) == 3 and not list(tmp_path.glob(".b.sqlite3.partial*"))
    assert not (tmp_path / "b.sqlite3-wal").exists()  # one file: nothing beside it
    assert await problems(copy) == []
    # more hands are played, then the backup is put back: they are gone, the rest as it was
    store = await _play(db, 2)
    await store.close()
    assert _count(db, DONE) == 5
    assert await run("restore", str(copy), "--database", str(db)) == 0
    said = capsys.readouterr().out
    assert "Restored" in said and "3 hands" in said and "before-restore-" in said
    assert _count(db, DONE) == 3
    (kept,) = tmp_path.glob("ofc.sqlite3.before-restore-*")
    assert _count(kept, DONE) == 5  # the database as it was
    # and the bot opens the restored database and plays on from it
    store = await _play(db, 1)
    await store.close()
    assert _count(db, DONE) == 4 and await problems(db) == []


async def test_a_restore_is_refused_while_a_bot_runs_on_the_database(tmp_path: Path) -> None:
    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 1)
    await store.close()
    backup(db, tmp_path / "b.sqlite3")
    running = InstanceLock(str(db))
    running.acquire()
    try:
        with pytest.raises(MaintenanceError, match="running on .*stop it first"):
            restore(tmp_path / "b.sqlite3", db)
    finally:
        running.release()
    assert not list(tmp_path.glob("*.before-restore-*"))  # nothing was touched


async def test_check_finds_books_that_do_not_balance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 1)
    await store.close()
    assert await run("check", "--database", str(db)) == 0
    assert "is sound and its books balance: 1 hands" in capsys.readouterr().out
    with sqlite3.connect(db) as con:  # units that come from nowhere and go below zero
        con.execute("INSERT INTO ledger (guild_id, user_id, account, kind, amount, created_at)"
                    " VALUES (?, 999, 'balance', 'start', -50, 0)", (G,))
    assert await run("check", "--database", str(db)) == 1
    said = capsys.readouterr().err
    assert "1 problem(s) found" in said and "user 999: negative balance -50" in said
    # and a backup of it says so too before it is trusted: it is copied (books are the
    # operator's to mend), but check is what tells
    backup(db, tmp_path / "b.sqlite3")
    assert await problems(tmp_path / "b.sqlite3") == ["guild 10 user 999: negative balance -50"]


def test_what_is_not_a_database_or_not_there_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    for argv in (["check", "--database", str(junk)],
                 ["backup", str(tmp_path / "x"), "--database", str(junk)],
                 ["restore", str(junk), "--database", str(tmp_path / "db")]):
        assert main(argv) == 2
        assert "is not an OFC Table database" in capsys.readouterr().err
    assert main(["check", "--database", str(tmp_path / "none")]) == 2
    assert "no database at" in capsys.readouterr().err
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE notes (x)")
    assert main(["check", "--database", str(other)]) == 2
    assert "no tables, hands, ledger" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "db").exists()


async def test_a_backup_never_overwrites_by_mistake(tmp_path: Path) -> None:
    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 1)
    await store.close()
    dest = tmp_path / "b.sqlite3"
    dest.write_text("an older backup")
    with pytest.raises(MaintenanceError, match="exists: name a new file, or --force"):
        backup(db, dest)
    assert dest.read_text() == "an older backup"
    assert backup(db, dest, force=True).hands == 1
    for own in ("", "-wal", "-shm", ".lock"):  # a live database's own files, links followed
        with pytest.raises(MaintenanceError, match="is the database's own file"):
            backup(db, f"{db}{own}", force=True)
    (tmp_path / "link").symlink_to(db)
    with pytest.raises(MaintenanceError, match="is the database's own file"):
        backup(db, tmp_path / "link", force=True)
    with pytest.raises(MaintenanceError, match="is the database's own file, not a backup"):
        restore(db, tmp_path / "link")
    with pytest.raises(MaintenanceError, match="is a folder"):
        backup(db, tmp_path)
    with pytest.raises(MaintenanceError, match="no folder"):
        backup(db, tmp_path / "nowhere" / "b.sqlite3")
    assert _count(db, DONE) == 1


async def test_check_asks_for_a_migration_first_and_refuses_a_newer_database(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 1)
    await store.close()
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA user_version = 8")
    with pytest.raises(MaintenanceError, match="start the bot once"):
        await problems(db)
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA user_version = 99")
    with pytest.raises(MaintenanceError, match="newer than this bot"):
        await problems(db)
    with pytest.raises(MaintenanceError, match="newer than this bot"):
        restore(db, tmp_path / "new.sqlite3")


# ------------------------------------------------------------------ regular backups
class Time:
    """A clock and a sleep that moves it (no real waiting); the bot stops (CancelledError)
    at the sleep after the ``sleeps``-th."""

    def __init__(self, now: float, sleeps: int = 6) -> None:
        self.now = now
        self.sleeps = sleeps
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if len(self.slept) > self.sleeps:
            raise asyncio.CancelledError  # (the bot stopping)
        self.now += seconds


async def test_regular_backups_come_every_period_and_the_oldest_go(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 1)
    await store.close()
    folder = tmp_path / "backups"
    folder.mkdir()
    (folder / "notes.txt").write_text("the operator's own file")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    (folder / f".ofc-20260101-000000.sqlite3.partial-{gone.stdout.strip()}").write_text(
        "left by a bot killed while it wrote")
    clock = Time(1_800_000_000.0)  # 2027-01-15 08:00:00 UTC
    backups = RegularBackups(str(db), str(folder), 6.0, 3, clock=clock, sleep=clock.sleep)
    with caplog.at_level("INFO", logger="ofc.backup"), pytest.raises(asyncio.CancelledError):
        await backups.run()
    # the first at once (none there), then every 6 hours: 6 backups, the last 3 kept
    assert clock.slept == [0.0] + [6 * 3600.0] * 6
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["notes.txt", "ofc-20270116-020000.sqlite3", "ofc-20270116-080000.sqlite3",
                     "ofc-20270116-140000.sqlite3"]
    assert await problems(folder / names[-1]) == []
    assert "backed up to" in caplog.text and "1 hands at 1 tables" in caplog.text
    assert "deleted the oldest: ofc-20270115-" in caplog.text
    # a bot started again 2 hours after the last backup waits the 4 hours left
    clock.now += 2 * 3600.0
    clock.slept.clear()
    assert backups.due_in() == 4 * 3600.0


async def test_a_regular_backup_that_fails_is_said_and_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    clock = Time(1_800_000_000.0)
    backups = RegularBackups(str(tmp_path / "gone.sqlite3"), str(folder), 24.0, 7,
                             clock=clock, sleep=clock.sleep)
    with caplog.at_level("INFO", logger="ofc.backup"), pytest.raises(asyncio.CancelledError):
        await backups.run()
    assert clock.slept == [0.0, 3600.0] * 3 + [0.0]  # again within the hour, each time
    assert "the regular backup of" in caplog.text and "no database at" in caplog.text
    assert "trying again in 60 minutes" in caplog.text and not list(folder.iterdir())


def test_backups_of_an_in_memory_database_are_refused(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    from bot.settings import Settings, SettingsError

    monkeypatch.setenv("OFC_DATABASE", ":memory:")
    monkeypatch.setenv("OFC_BACKUP_DIR", str(tmp_path))
    with pytest.raises(SettingsError, match="nothing to back up"):
        Settings.from_env(env_file=None)
    monkeypatch.setenv("OFC_DATABASE", str(tmp_path / "ofc.sqlite3"))
    monkeypatch.setenv("OFC_BACKUP_HOURS", "0.5")
    s = Settings.from_env(env_file=None)
    assert (s.backup_dir, s.backup_hours, s.backup_keep) == (str(tmp_path), 0.5, 7)


async def test_a_backup_stopped_leaves_nothing_that_looks_whole(tmp_path: Path) -> None:
    """The bot stopping (``RegularBackups.stop``): a backup being checked is interrupted at
    once, one being copied ends after its copy; either way no backup file is left."""
    from bot.maintenance import Stop

    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 1)
    await store.close()
    stop = Stop()
    stop.set()
    with pytest.raises(MaintenanceError, match="was stopped"):
        backup(db, tmp_path / "b.sqlite3", stop=stop)
    assert not [p.name for p in tmp_path.iterdir() if not p.name.startswith("ofc.sqlite3")]


async def test_check_and_backup_of_a_stopped_bots_database_leave_nothing_beside_it(
    tmp_path: Path,
) -> None:
    """A read-only look at a WAL database makes SQLite create its ``-wal`` and ``-shm``, and
    they were left beside a stopped bot's database after ``check`` and ``backup`` (empty,
    harmless, but not the operator's).  Now they are removed again, unless something opened
    the database meanwhile: beside a running bot they stay (they are its), and it plays on."""
    db = tmp_path / "ofc.sqlite3"
    store = await _play(db, 1)
    await store.close()
    side = [tmp_path / "ofc.sqlite3-wal", tmp_path / "ofc.sqlite3-shm"]
    assert not any(p.exists() for p in side)
    contents, problems = await asyncio.to_thread(check, db)
    assert problems == [] and contents is not None and contents.hands == 1
    assert not any(p.exists() for p in side)
    await asyncio.to_thread(backup, db, tmp_path / "b.sqlite3")
    assert not any(p.exists() for p in side)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.sqlite3", "ofc.sqlite3"]
    store = await Store.open(db)  # the bot again
    try:
        assert (await asyncio.to_thread(check, db))[1] == []
        assert all(p.exists() for p in side)
        assert await store.balance(G, ALICE) + await store.balance(G, BOB) > 0
    finally:
        await store.close()
