"""The operator's care of the database: ``ofc-bot backup``, ``ofc-bot restore``, ``ofc-bot check``.

- **backup** copies the database by SQLite's online backup into a new file, while the bot
  runs or not (a WAL database's readers never block its writer): a consistent snapshot,
  written next to the destination and renamed into place only once it is whole and passes
  SQLite's integrity check, so a backup interrupted leaves nothing that looks like one.
  Copying the file itself is not a backup: its ``-wal`` file holds the latest writes.
- **restore** puts a backup back, only while no bot runs on the database (the bot's lock,
  ``bot.instance``): the backup is copied next to the database by ``backup`` (checked: one
  that is not sound changes nothing), the database as it was is kept beside it
  (``<database>.before-restore-<time>``: a backup of it, or its files as they are when it is
  damaged), then the copy is renamed into its place, its old ``-wal`` deleted first (SQLite
  would play it into the new file).
- **check** reads the database only (it may run beside the bot): SQLite's integrity check,
  then the books (``Store.verify_ledger``: the foreign keys, every hand's units sum to zero,
  no negative balance or stack, every settled hand's rows, the standings).
- **regular backups** (``OFC_BACKUP_DIR``): the running bot backs up every
  ``OFC_BACKUP_HOURS`` into ``<name>-<date>-<time><suffix>`` (UTC; the database's file
  name with the time before its suffix: ``ofc-<date>-<time>.sqlite3``) files there, the first as it starts when the
  newest there is older than that, keeping the last ``OFC_BACKUP_KEEP``.

Each raises ``MaintenanceError`` with a sentence saying what is wrong and what to do.
"""

from __future__ import annotations

import asyncio
import calendar
import contextlib
import glob
import logging
import os
import re
import shutil
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .store import Store, StoreError
from .store.store import load_migrations

log = logging.getLogger("ofc.backup")


class MaintenanceError(Exception):
    """The operation could not be done; the message says why and what to do."""


@dataclass(frozen=True)
class Contents:
    """What a database holds, said after a backup or a restore."""

    schema: int
    tables: int
    hands: int
    players: int
    size: int  # bytes

    def describe(self) -> str:
        return (f"{self.hands:,} hands at {self.tables:,} tables, {self.players:,} players, "
                f"{self.size / 1e6:.1f} MB, schema version {self.schema}")


STAMP = "%Y%m%d-%H%M%S"
"""The UTC time in the names of regular backups and of a database kept by a restore."""


class Stop:
    """Set from another thread (the bot stopping): a backup under way ends at once if it is
    being checked (SQLite's ``interrupt``), else after its copy (one step: copied in steps,
    a backup starts over whenever the bot writes meanwhile, and might never end)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._watched: set[sqlite3.Connection] = set()

    def set(self) -> None:
        self._event.set()
        with self._lock:
            for db in self._watched:
                db.interrupt()

    def is_set(self) -> bool:
        return self._event.is_set()

    @contextlib.contextmanager
    def watching(self, db: sqlite3.Connection) -> Iterator[None]:
        with self._lock:
            self._watched.add(db)
        try:
            if self.is_set():
                db.interrupt()
            yield
        finally:
            with self._lock:
                self._watched.discard(db)


def _latest_schema() -> int:
    return load_migrations()[-1][0]


@contextlib.contextmanager
def _connect(path: Path, *, read_only: bool) -> Iterator[sqlite3.Connection]:
    uri = path.resolve().as_uri() + ("?mode=ro" if read_only else "")
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error as e:
        raise MaintenanceError(f"cannot open {path}: {e}") from None
    try:
        db.execute("PRAGMA busy_timeout = 5000")
        yield db
    finally:
        db.close()


@contextlib.contextmanager
def _tidy(path: Path) -> Iterator[None]:
    """A read-only look at a WAL database creates its ``-wal`` and ``-shm`` (SQLite needs them
    to read it) and leaves them there.  When they were not there before (nothing had the
    database open), a last connection that may write removes them as it closes (nothing is
    written; when the bot opened the database meanwhile they stay: they are its)."""
    real = path.resolve()
    side = [real.with_name(real.name + suffix) for suffix in ("-wal", "-shm")]
    before = any(p.exists() for p in side)
    try:
        yield
    finally:
        if not before and any(p.exists() for p in side):
            with contextlib.suppress(sqlite3.Error, OSError):
                db = sqlite3.connect(real.as_uri() + "?mode=rw", uri=True)
                try:
                    db.execute("PRAGMA schema_version").fetchone()
                finally:
                    db.close()


def _ours(db: sqlite3.Connection, path: Path) -> int:
    """The schema version of an OFC Table database (raises when ``path`` is not one)."""
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.OperationalError as e:  # (it could not be read: not what it holds)
        raise MaintenanceError(f"cannot read {path} ({e}){_why_not_read(e, path)}") from None
    except sqlite3.DatabaseError as e:
        if getattr(e, "sqlite_errorname", "").startswith("SQLITE_CORRUPT"):  # (a database,
            raise MaintenanceError(  # damaged: not someone else's)
                f"{path} is damaged ({e}): put a backup back with ofc-bot restore") from None
        raise MaintenanceError(f"{path} is not an OFC Table database ({e})") from None
    if version < 1 or not {"tables", "hands", "ledger"} <= names:
        raise MaintenanceError(f"{path} is not an OFC Table database (no tables, hands, ledger)")
    if version > _latest_schema():
        raise MaintenanceError(
            f"{path} is at schema version {version}, newer than this bot "
            f"({_latest_schema()}): update the bot")
    return version


def _why_not_read(e: sqlite3.OperationalError, path: Path) -> str:
    """What to do when SQLite could not read ``path``: a database in WAL mode is read beside
    its ``-shm`` file, which a user who may not write in its folder cannot create."""
    if "readonly" in str(e) or "unable to open" in str(e):
        return (f": reading it needs {path.name}-shm beside it, which this user cannot create "
                "there; run the command as the bot's user")
    return ""


def _integrity(db: sqlite3.Connection, path: Path) -> list[str]:
    """SQLite's integrity check, as sentences (none: sound; the foreign keys are the books',
    ``Store.verify_ledger``)."""
    try:
        rows = [str(r[0]) for r in db.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as e:
        return [f"{path}: {e}"]
    return [] if rows == ["ok"] else [f"{path}: {r}" for r in rows]


def _contents(db: sqlite3.Connection, path: Path) -> Contents:
    def count(sql: str) -> int:
        return int(db.execute(sql).fetchone()[0])

    return Contents(
        schema=int(db.execute("PRAGMA user_version").fetchone()[0]),
        tables=count("SELECT COUNT(*) FROM tables"),
        hands=count("SELECT COUNT(*) FROM hands WHERE status = 'done'"),
        players=count("SELECT COUNT(*) FROM players"),
        size=path.stat().st_size,
    )


def _existing(path: Path, what: str) -> Path:
    try:
        found = path.is_file()
    except OSError as e:  # (a folder this user may not enter)
        raise MaintenanceError(f"cannot look at {path} ({e.strerror})") from None
    if not found:
        raise MaintenanceError(f"no {what} at {path}")
    return path


COMPANIONS = ("", "-wal", "-shm", "-journal", ".lock")
"""The files of a database ``x``: ``x`` itself, SQLite's ``x-wal``, ``x-shm``, ``x-journal``
and the bot's lock ``x.lock`` (a backup written over one of them would break the database)."""


def _database_file(path: Path, database: Path) -> bool:
    """Whether ``path`` is one of ``database``'s own files (links followed)."""
    try:
        mine, its = path.resolve(), database.resolve()
    except OSError:  # (a loop of links)
        return False
    return any(mine == its.with_name(its.name + suffix) for suffix in COMPANIONS)


def backup(database: str | os.PathLike[str], destination: str | os.PathLike[str], *,
           force: bool = False, stop: Stop | None = None) -> Contents:
    """Copy ``database`` into the new file ``destination`` (``force``: replace one)."""
    source, dest = _existing(Path(database), "database"), Path(destination)
    if dest.is_dir():
        raise MaintenanceError(f"{dest} is a folder: name the backup file")
    if not dest.parent.is_dir():
        raise MaintenanceError(f"no folder {dest.parent} to write {dest.name} in")
    if _database_file(dest, source):
        raise MaintenanceError(f"{dest} is the database's own file: name another file")
    if dest.exists() and not force:
        raise MaintenanceError(f"{dest} exists: name a new file, or --force to replace it")
    partial = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:
        with _tidy(source), _connect(source, read_only=True) as src:
            _ours(src, source)
            with _connect(partial, read_only=False) as out, (
                    stop.watching(out) if stop is not None else contextlib.nullcontext()):
                try:
                    src.backup(out)
                except sqlite3.Error as e:
                    raise MaintenanceError(f"cannot back up {source}: {e}") from None
                problems = _integrity(out, dest)
                if stop is not None and stop.is_set():
                    raise MaintenanceError(f"the backup of {source} was stopped")
                if problems:
                    raise MaintenanceError(
                        f"the copy of {source} is not sound ({problems[0]}): "
                        "run ofc-bot check on the database")
                out.execute("PRAGMA journal_mode = DELETE")  # one file, nothing beside it
        os.replace(partial, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    with _connect(dest, read_only=True) as db:
        return _contents(db, dest)


def restore(backup_file: str | os.PathLike[str], database: str | os.PathLike[str],
            *, now: float | None = None) -> tuple[Contents, Path | None]:
    """Put ``backup_file`` in place of ``database`` (the bot must be stopped): its contents,
    and where the database as it was went (None: there was none)."""
    from .instance import AlreadyRunning, InstanceLock

    source, target = _existing(Path(backup_file), "backup"), Path(database)
    if not target.parent.is_dir():
        raise MaintenanceError(f"no folder {target.parent} for the database {target.name}")
    if _database_file(source, target):
        raise MaintenanceError(f"{source} is the database's own file, not a backup")
    lock = InstanceLock(str(target))  # (beside the real file: a link finds the bot's lock)
    try:
        lock.acquire()
    except AlreadyRunning as e:
        raise MaintenanceError(
            f"a bot{f' (pid {e.pid})' if e.pid else ''} is running on {target}: stop it "
            "first (a restore under it would be overwritten by its next write)") from None
    except OSError as e:
        raise MaintenanceError(f"cannot lock {lock.path}: {e}") from None
    real = target.resolve()  # (a link stays a link: the file it names is replaced)
    staged = real.with_name(f".{real.name}.restoring-{os.getpid()}")
    try:
        try:  # the backup copied next to the database and checked: nothing changed yet
            backup(source, staged, force=True)
        except MaintenanceError as e:
            raise MaintenanceError(f"{e} (nothing changed)") from None
        kept = _keep(target, time.time() if now is None else now) if target.exists() else None
        try:
            # the old database's -wal goes first: SQLite would play it into the new file
            for end in ("-wal", "-shm", "-journal"):
                Path(f"{real}{end}").unlink(missing_ok=True)
            os.replace(staged, real)
        except OSError as e:
            raise MaintenanceError(
                f"cannot write {target}: {e}"
                + (f" (the database as it was is in {kept})" if kept else "")) from None
        with _connect(real, read_only=True) as db:
            return _contents(db, real), kept
    finally:
        staged.unlink(missing_ok=True)
        lock.release()


def _keep(target: Path, now: float) -> Path:
    """The database about to be replaced, kept beside it as
    ``<name>.before-restore-<UTC date>-<time>`` (``-2``, ``-3``... after one of that second):
    a backup of it when it can be read, else (damaged, or not a database of ours) its files
    as they are, its ``-wal`` beside the copy."""
    stamp = time.strftime(STAMP, time.gmtime(now))
    kept = target.with_name(f"{target.name}.before-restore-{stamp}")
    more = 1
    while any(kept.with_name(kept.name + end).exists() for end in ("", "-wal")):
        more += 1
        kept = target.with_name(f"{target.name}.before-restore-{stamp}-{more}")
    try:
        backup(target, kept)
    except MaintenanceError:
        try:
            shutil.copyfile(target, kept)
            if Path(f"{target}-wal").exists():
                shutil.copyfile(f"{target}-wal", f"{kept}-wal")
        except OSError as e:
            raise MaintenanceError(
                f"cannot keep {target} as it was in {kept}: {e} (nothing changed)") from None
    return kept


def check(database: str | os.PathLike[str]) -> tuple[Contents | None, list[str]]:
    """Read ``database`` (never written) and say what is wrong with it: ``[]`` when sound
    (then with what it holds; none when that could not be read)."""
    path = _existing(Path(database), "database")
    with _tidy(path):
        return _checked(path)


def _checked(path: Path) -> tuple[Contents | None, list[str]]:
    with _connect(path, read_only=True) as db:
        version = _ours(db, path)
        if version < _latest_schema():
            raise MaintenanceError(
                f"{path} is at schema version {version}, this bot's is {_latest_schema()}: "
                "start the bot once (it migrates the database), then check it")
        problems = _integrity(db, path)
        try:
            contents: Contents | None = _contents(db, path)
        except sqlite3.DatabaseError as e:  # (damaged where the counts read)
            contents = None
            problems = problems or [f"{path}: {e}"]
    if not problems:  # (the books are read only from a sound file)
        problems = asyncio.run(_books(path))
    return contents, problems


async def _books(path: Path) -> list[str]:
    import aiosqlite

    db = await aiosqlite.connect(path.resolve().as_uri() + "?mode=ro", uri=True,
                                 isolation_level=None)
    try:
        db.row_factory = sqlite3.Row
        await db.execute("PRAGMA busy_timeout = 5000")
        try:
            return await Store(db, str(path)).verify_ledger()
        except (sqlite3.Error, StoreError) as e:
            return [f"{path}: {e}"]
    finally:
        await db.close()


# ------------------------------------------------------------------ regular backups
RETRY = 3600.0
"""Seconds before a regular backup that failed is tried again (at most its period)."""


def _name_of(database: str | os.PathLike[str]) -> tuple[str, str]:
    """What the names of ``database``'s regular backups start and end with, the time in
    between: its file's name with the time before its suffix (``ofc.sqlite3``:
    ``ofc-<time>.sqlite3``; ``ofc.db``: ``ofc-<time>.db``), so that databases of other
    names (``ofc.db`` beside ``ofc.sqlite3`` too) can share a folder."""
    path = Path(database)
    return f"{path.stem or 'ofc'}-", path.suffix


def _pattern(database: str | os.PathLike[str]) -> re.Pattern[str]:
    """The names of ``database``'s regular backups, the time their group."""
    start, end = _name_of(database)
    return re.compile(re.escape(start) + r"(\d{8}-\d{6})" + re.escape(end))


def regular_backups(folder: str | os.PathLike[str],
                    database: str | os.PathLike[str] = "ofc.sqlite3") -> list[tuple[float, Path]]:
    """The regular backups of ``database`` in ``folder`` (``<name>-<UTC date>-<time><suffix>``),
    oldest first, with their times; a name that is no time (``ofc-20260230-...``) is no
    regular backup."""
    pattern = _pattern(database)
    found = []
    for path in Path(folder).iterdir():
        m = pattern.fullmatch(path.name)
        if m and path.is_file():
            try:
                found.append((float(calendar.timegm(time.strptime(m[1], STAMP))), path))
            except ValueError:
                continue
    return sorted(found)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: alive)
        return True
    return True


def regular_backup(database: str | os.PathLike[str], folder: str | os.PathLike[str],
                   keep: int, now: float, stop: Stop | None = None,
                   ) -> tuple[Path, Contents, list[Path]]:
    """Back ``database`` up into ``folder`` as ``<name>-<now><suffix>``; its regular backups
    there beyond the last ``keep`` go, and the parts of its backups left by a process that is
    no more: the backup, what it holds, and what was deleted."""
    start, end = _name_of(database)
    dest = Path(folder) / f"{start}{time.strftime(STAMP, time.gmtime(now))}{end}"
    pattern = _pattern(database)
    for part in Path(folder).glob(f".{glob.escape(start)}*.partial-*"):
        name, _, pid = part.name[1:].rpartition(".partial-")
        if pattern.fullmatch(name) and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                part.unlink()
    contents = backup(database, dest, stop=stop)
    gone = [path for _when, path in regular_backups(folder, database)[:-keep]]
    for path in gone:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return dest, contents, gone


class RegularBackups:
    """The running bot's backups: ``await run()`` until cancelled.  A backup is copied in a
    thread (the event loop plays on); one that fails is logged and tried again within an
    hour, the bot never stopped by it.  Cancelled (or ``stop()``), it interrupts a backup
    being checked (``Stop``): the bot's exit waits at most for a copy under way."""

    def __init__(self, database: str, folder: str, hours: float, keep: int, *,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.database, self.folder, self.keep = database, folder, keep
        self.period = hours * 3600.0
        self.clock, self.sleep = clock, sleep
        self._stop = Stop()

    def due_in(self) -> float:
        """Seconds until the next backup: the newest in the folder plus the period (at most
        the period: one named in the future, taken while the clock was wrong, is not waited
        for)."""
        try:
            found = regular_backups(self.folder, self.database)
        except OSError:
            return 0.0
        if not found:
            return 0.0
        return min(self.period, max(0.0, found[-1][0] + self.period - self.clock()))

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        try:
            await self._run()
        except asyncio.CancelledError:
            self.stop()
            raise
        except BaseException:  # (never silently: the bot runs on without backups)
            log.exception("the regular backups of %s stopped", self.database)
            raise

    async def _run(self) -> None:
        while True:
            await self.sleep(self.due_in())
            when = self.clock()
            try:
                dest, contents, gone = await asyncio.to_thread(
                    regular_backup, self.database, self.folder, self.keep, when, self._stop)
            except Exception as e:  # (a full disk, a folder gone...): the bot plays on
                if self._stop.is_set():
                    raise asyncio.CancelledError from None
                log.error("the regular backup of %s into %s failed (%s); trying again in "
                          "%.0f minutes", self.database, self.folder, e,
                          min(RETRY, self.period) / 60)
                await self.sleep(min(RETRY, self.period))
                continue
            log.info("backed up to %s: %s%s", dest, contents.describe(),
                     f" (deleted the oldest: {', '.join(p.name for p in gone)})" if gone else "")
            if self.due_in() <= 0:  # (a period shorter than a second: not two in one)
                await self.sleep(1.0)
