"""A server operator's first day, README.md followed literally: "Settings" (every OFC_* and
DISCORD_* variable, ``.env``), "Backups and checks" (``ofc-bot backup``, ``restore``,
``check``, regular backups).  Every command is run for real (a subprocess, or the function
the command calls) on databases in temporary folders.

The tests "Was a defect (fixed)" assert what README promises and failed when written (as
strict xfails): each docstring says what the operator did, what they saw, why it was wrong
and where it came from.  The others are behaviours checked along the way that held.

Some cases need a path the operator's user cannot read or write.  The tests run as root
here, who reads and writes everything, so those commands run under ``setpriv`` without
CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH: root then obeys the permission bits like any other
user (skipped where that cannot be arranged).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.maintenance import backup, regular_backup, regular_backups
from bot.store import Store

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = {  # a start whose settings pass fails at once on this: "Cannot reach Discord"
    "DISCORD_API_BASE": "http://127.0.0.1:1/api/v10",
    "DISCORD_GATEWAY_URL": "ws://127.0.0.1:1/",
}
NO_SUCH_HOME = "~ofc-no-such-user-4711"
"""``~user`` of a user that does not exist (an operator's typo of ``~/``)."""


# ------------------------------------------------------------------------------- helpers
def _env(**settings: str) -> dict[str, str]:
    """The process environment without any OFC_* / DISCORD_* setting, plus ``settings``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OFC_", "DISCORD_"))}
    env.update(settings)
    return env


NO_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


def with_mode(path: Path, mode: int) -> None:
    os.chmod(path, mode)


def ofc_bot(*argv: str, cwd: Path, env: dict[str, str], as_user: bool = False,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``ofc-bot ARGV`` in ``cwd`` (no .env there unless the test wrote one); ``as_user``:
    without root's power to ignore permission bits."""
    cmd = [sys.executable, "-m", "bot", *argv]
    if as_user:
        cmd = [*NO_OVERRIDE, *cmd]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _permissions_apply() -> bool:
    """Whether a command run under ``NO_OVERRIDE`` is refused a folder it may not write."""
    if shutil.which("setpriv") is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    if subprocess.run([*NO_OVERRIDE, "true"], capture_output=True).returncode != 0:
        return False  # (setpriv not allowed here)
    probe = Path(f"/tmp/.ofc-operator-review-{os.getpid()}")
    probe.mkdir(mode=0o555, exist_ok=True)
    try:
        r = subprocess.run([*NO_OVERRIDE, sys.executable, "-c",
                            f"open({str(probe / 'x')!r}, 'w')"], capture_output=True)
        return r.returncode != 0
    except OSError:
        return False
    finally:
        with_mode(probe, 0o755)
        shutil.rmtree(probe, ignore_errors=True)


needs_permissions = pytest.mark.skipif(
    not _permissions_apply(),
    reason="needs setpriv and root to run a command that permission bits apply to")


def new_database(path: Path) -> Path:
    """A database as the bot leaves it: created, migrated (WAL mode), closed."""
    async def create() -> None:
        store = await Store.open(str(path))
        await store.close()

    asyncio.run(create())
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A temporary folder whose permissions the test may take away (given back after)."""
    yield tmp_path
    for p in [tmp_path, *tmp_path.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            with_mode(p, 0o755)


def one_line_naming(err: str, setting: str) -> bool:
    """README: "A bad value stops the start with one line saying which setting and why"."""
    lines = [line for line in err.splitlines() if line.strip()]
    return len(lines) == 1 and setting in lines[0] and "Traceback" not in err


# ================================================================== settings: paths
@pytest.mark.parametrize("command,setting", [
    ((), "OFC_DATABASE"),
    ((), "OFC_BACKUP_DIR"),
    (("check",), "OFC_DATABASE"),
], ids=["start-database", "start-backup-dir", "check-database"])
def test_a_home_folder_of_no_user_is_a_bad_setting_not_a_traceback(
        folder: Path, command: tuple[str, ...], setting: str) -> None:
    """Was a defect (fixed).

    The operator writes ``OFC_DATABASE=~ofc/ofc.sqlite3`` (or ``OFC_BACKUP_DIR=~ofc/bk``)
    in .env, meaning the home of a user ``ofc`` that does not exist on this machine (or a
    slip for ``~/``), and runs ``make run`` / ``ofc-bot check``.

    They see a Python traceback ending in ``RuntimeError: Could not determine home
    directory.`` (exit status 1), with no word of which setting is wrong.

    README, "Settings": "A bad value stops the start with one line saying which setting and
    why (exit status 2), before connecting: ... a database path whose folder does not exist
    (`~` is expanded)"; "Backups and checks": ``check`` exits "2 when it cannot check".

    From ``bot/settings.py``: ``_database`` and ``_backup_dir`` call
    ``Path(value).expanduser()``, which raises RuntimeError for ``~user`` of no user; only
    SettingsError is caught (``bot/__main__.py`` ``main`` and ``_maintain``).  (``ofc-bot
    play --images`` catches exactly this RuntimeError: ``bot/play.py``.)"""
    value = f"{NO_SUCH_HOME}/ofc.sqlite3" if setting == "OFC_DATABASE" else f"{NO_SUCH_HOME}/bk"
    env = _env(DISCORD_TOKEN="abc.def.ghi", **UNREACHABLE, **{setting: value})
    r = ofc_bot(*command, cwd=folder, env=env)
    assert r.returncode == 2, r.stderr
    assert one_line_naming(r.stderr, setting), r.stderr


@needs_permissions
@pytest.mark.parametrize("case", ["start-database", "start-backup-dir", "check-database",
                                  "unreadable-dotenv"])
def test_a_path_the_bot_may_not_enter_is_a_bad_setting_not_a_traceback(
        folder: Path, case: str) -> None:
    """Was a defect (fixed).

    The bot runs as its own user (systemd ``User=ofc``) and the operator points
    ``OFC_DATABASE`` (or ``OFC_BACKUP_DIR``) into a folder that user may not enter, e.g.
    ``/root/ofc.sqlite3`` or another user's home; or leaves ``.env`` readable by root only
    (``chmod 600``).  Then ``make run`` or ``ofc-bot check``.

    They see a traceback ending in ``PermissionError: [Errno 13] Permission denied:
    '/root/ofc.sqlite3'`` (exit status 1): no line saying which setting, no status 2.

    README, "Settings": "A bad value stops the start with one line saying which setting and
    why (exit status 2), before connecting: ... a database path whose folder does not exist
    ..."; "Backups and checks": ``check`` exits "2 when it cannot check".

    From ``bot/settings.py``: ``_database`` (``path.is_dir()``), ``_backup_dir``
    (``path.exists()``) and ``Settings.environment`` (``dotenv_values`` of an unreadable
    .env) let PermissionError through (pathlib's ``is_dir``/``exists`` only swallow ENOENT,
    ENOTDIR, EBADF, ELOOP); ``bot/maintenance.py`` ``_existing`` (``path.is_file()``) does
    the same for ``ofc-bot check --database``; ``bot/__main__.py`` catches only
    SettingsError / MaintenanceError."""
    locked = folder / "locked"
    (locked / "bk").mkdir(parents=True)
    env = _env(DISCORD_TOKEN="abc.def.ghi", **UNREACHABLE)
    argv: tuple[str, ...] = ()
    setting = "OFC_DATABASE"
    if case == "start-database":
        env["OFC_DATABASE"] = str(locked / "ofc.sqlite3")
    elif case == "start-backup-dir":
        env["OFC_DATABASE"] = str(new_database(folder / "ofc.sqlite3"))
        env["OFC_BACKUP_DIR"] = str(locked / "bk")
        setting = "OFC_BACKUP_DIR"
    elif case == "check-database":
        argv = ("check", "--database", str(locked / "ofc.sqlite3"))
        setting = "ofc.sqlite3"
    else:
        (folder / ".env").write_text("DISCORD_TOKEN=abc.def.ghi\n", encoding="utf-8")
        with_mode(folder / ".env", 0o000)
        setting = ".env"
    with_mode(locked, 0o000)
    r = ofc_bot(*argv, cwd=folder, env=env, as_user=True)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert setting in r.stderr and "ermission" in r.stderr, r.stderr


@needs_permissions
def test_a_database_file_the_bot_cannot_write_stops_the_start(folder: Path) -> None:
    """Was a defect (fixed).

    The operator restores a backup as root (``sudo ofc-bot restore ...``: the new file is
    root's, mode 644) or copies one from read-only media (mode 444), and the bot, running as
    its own user, starts on it: ``make run``.

    They see nothing wrong at the start: the database check passes and the bot goes on to
    connect (here: "Cannot reach Discord", the Discord stand-in being unreachable); with
    Discord it would come up and fail every move with "try again", since nothing can be
    written.

    README, "Settings": "A bad value stops the start with one line saying which setting and
    why (exit status 2), before connecting: ... a database file the bot cannot use (not a
    database, or written by a newer version)".  A database the bot cannot write is one it
    cannot use.

    From ``bot/__main__.py`` ``_open_database`` / ``bot/store`` ``Store.open``: SQLite opens
    a read-only file read-only without an error, and with no migration due nothing is
    written; only the lock file (``<file>.lock``, in a folder the bot may write) is."""
    db = new_database(folder / "ofc.sqlite3")
    with_mode(db, 0o444)
    env = _env(DISCORD_TOKEN="abc.def.ghi", OFC_DATABASE=str(db), **UNREACHABLE)
    r = ofc_bot(cwd=folder, env=env, as_user=True)
    assert r.returncode == 2, r.stderr
    assert "Cannot reach Discord" not in r.stderr, r.stderr
    assert "OFC_DATABASE" in r.stderr, r.stderr


@needs_permissions
def test_a_backup_folder_the_bot_cannot_write_stops_the_start(folder: Path) -> None:
    """Was a defect (fixed).

    The operator sets ``OFC_BACKUP_DIR=/var/backups/ofc`` (made by root, 755) for a bot that
    runs as its own user, and ``make run``.

    They see a normal start; the only trace is a log line (ERROR, "the regular backup of
    ofc.sqlite3 into /var/backups/ofc failed (cannot open
    /var/backups/ofc/.ofc-20261127-233402.sqlite3.partial-13635: unable to open database
    file); trying again in 60 minutes"), repeated every hour for ever: the server plays on
    without a single backup while the operator believes it has them.

    README, "Settings": "A bad value stops the start with one line saying which setting and
    why (exit status 2), before connecting"; ``OFC_BACKUP_DIR``: "a folder (it must exist)".
    A folder that exists but cannot take a backup is refused today only when it is missing
    or a file; the cheap check that it is writable (as ``ofc-bot play --images`` does with a
    temporary file) is not made.

    From ``bot/settings.py`` ``_backup_dir`` (``path.is_dir()`` only)."""
    db = new_database(folder / "ofc.sqlite3")
    bk = folder / "bk"
    bk.mkdir(mode=0o555)
    env = _env(DISCORD_TOKEN="abc.def.ghi", OFC_DATABASE=str(db), OFC_BACKUP_DIR=str(bk),
               **UNREACHABLE)
    r = ofc_bot(cwd=folder, env=env, as_user=True)
    assert r.returncode == 2, r.stderr
    assert one_line_naming(r.stderr, "OFC_BACKUP_DIR"), r.stderr


# ================================================================ backups and checks
def _damage_an_index(src: Path, dst: Path, index: str = "tables_by_guild") -> Path:
    """A copy of ``src`` with one index page overwritten (a disk fault, a bad copy)."""
    shutil.copyfile(src, dst)
    with sqlite3.connect(dst) as db:
        page = int(db.execute("PRAGMA page_size").fetchone()[0])
        root = int(db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                              (index,)).fetchone()[0])
    db.close()
    with open(dst, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\x0d" + b"\xff" * 60)
    return dst


def test_check_of_a_damaged_database_lists_the_damage_not_a_traceback(folder: Path) -> None:
    """Was a defect (fixed).

    The operator's ``ofc-bot backup`` refuses: "the copy of ofc.sqlite3 is not sound
    (...: database disk image is malformed): run ofc-bot check on the database".  They do
    as told: ``ofc-bot check``.

    They see a traceback ending in ``sqlite3.DatabaseError: database disk image is
    malformed`` raised from ``_contents``: not the list of what is wrong.  (The status, 1,
    is the traceback's, not the check's.)

    README, "Backups and checks": "``ofc-bot check``: SQLite's integrity and foreign-key
    checks, then the books ... Exit status 0 when all is sound, 1 with the list of what is
    not".  A damaged database is the very case ``check`` is for.

    From ``bot/maintenance.py`` ``check``: ``problems = _integrity(db, path)`` then
    ``contents = _contents(db, path)`` unguarded; its ``SELECT COUNT(*) FROM tables`` reads
    the damaged index (a covering index: the same for players and hands)."""
    good = new_database(folder / "good.sqlite3")
    bad = _damage_an_index(good, folder / "ofc.sqlite3")
    made = ofc_bot("backup", "copy.sqlite3", cwd=folder, env=_env())
    assert made.returncode == 2 and "run ofc-bot check" in made.stderr, made.stderr
    r = ofc_bot("check", cwd=folder, env=_env())
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 1, r.stderr
    assert "malformed" in r.stderr and str(bad.name) in r.stderr


@needs_permissions
@pytest.mark.parametrize("command", ["check", "backup"])
def test_a_database_the_operator_may_only_read_is_not_called_foreign(
        folder: Path, command: str) -> None:
    """Was a defect (fixed).

    The bot (its own user) is stopped, its database closed cleanly (no ``-wal``/``-shm``
    beside it).  The operator, logged in as themselves, runs ``ofc-bot check --database
    /srv/ofc/ofc.sqlite3`` (README: "read only") or ``ofc-bot backup``; they may read the
    file but not write in its folder (or it is on a read-only snapshot).

    They see "ofc-bot check: /srv/ofc/ofc.sqlite3 is not an OFC Table database (attempt to
    write a readonly database)", status 2.  It is the bot's sound database; what failed is
    that SQLite's read-only open of a WAL database needs to create its ``-shm`` beside it.
    An operator told their database is "not an OFC Table database" may well restore over
    it or start a fresh one.

    README, "Backups and checks": ``check`` exits "2 when it cannot check (no database
    there, not an OFC Table database, ...)"; the status is right, the reason given is not.

    From ``bot/maintenance.py`` ``_ours``: ``except sqlite3.DatabaseError`` (of which
    OperationalError, "attempt to write a readonly database", "unable to open database
    file", "database is locked" are all kinds) raises "is not an OFC Table database"."""
    srv = folder / "srv"
    srv.mkdir()
    db = new_database(srv / "ofc.sqlite3")
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    with_mode(srv, 0o555)
    argv = ("check",) if command == "check" else ("backup", str(folder / "copy.sqlite3"))
    r = ofc_bot(*argv, "--database", str(db), cwd=folder, env=_env(), as_user=True)
    assert r.returncode in (0, 2), r.stderr
    assert "not an OFC Table database" not in r.stderr, r.stderr


def test_regular_backups_of_databases_with_other_names_leave_each_other_alone(
        folder: Path) -> None:
    """Was a defect (fixed).

    Two bots on one machine (two communities), databases ``/srv/a/ofc.sqlite3`` and
    ``/srv/b/ofc.db``, both with ``OFC_BACKUP_DIR=/var/backups/ofc`` and
    ``OFC_BACKUP_KEEP=1`` (or the default 7, over a longer time).

    Each bot's regular backup is ``ofc-<date>-<time>.sqlite3``: the two cannot be told
    apart, each bot counts the other's backups as its own, so its keep deletes the other
    database's backups (here the first database is left with none at all), and its next
    backup waits for the other's period (``RegularBackups.due_in`` reads the newest "ofc-"
    file).  Restoring "ofc-20261127-..." may put the other server's database in place.

    README, "Backups and checks": "They are named after the database's file
    (`ofc.sqlite3`: `ofc-<date>-<time>.sqlite3`, UTC), so bots whose databases have other
    names can share the folder".  ``ofc.sqlite3`` and ``ofc.db`` are other names.

    From ``bot/maintenance.py`` ``_name_of`` (``Path(database).stem``), used by
    ``regular_backup`` and ``regular_backups``."""
    a_dir, b_dir, bk = folder / "a", folder / "b", folder / "bk"
    for d in (a_dir, b_dir, bk):
        d.mkdir()
    a = new_database(a_dir / "ofc.sqlite3")
    b = new_database(b_dir / "ofc.db")
    now = time.time()
    a_backup, _contents, _gone = regular_backup(a, bk, 1, now)
    b_backup, _contents, gone = regular_backup(b, bk, 1, now + 5)
    assert a_backup.exists(), f"{b.name}'s backup deleted {a.name}'s only one: {gone}"
    assert [p for _t, p in regular_backups(bk, b)] == [b_backup]
    assert [p for _t, p in regular_backups(bk, a)] == [a_backup]


# ------------------------------------------------------------------ what holds (passing)
def test_backup_check_restore_round_trip_with_spaces_and_url_characters(folder: Path) -> None:
    """Paths with a space, ``#``, ``%`` and ``?`` (the commands open SQLite by URI): backup,
    check and restore each work, and the restore keeps the database as it was beside it."""
    odd = folder / "my bot #1 %20?"
    odd.mkdir()
    db = new_database(odd / "ofc db.sqlite3")
    r = ofc_bot("backup", "backups? #1.sqlite3", "--database", str(db), cwd=odd, env=_env())
    assert r.returncode == 0 and "schema version" in r.stdout, r.stderr
    r = ofc_bot("check", "--database", "backups? #1.sqlite3", cwd=odd, env=_env())
    assert r.returncode == 0 and "is sound" in r.stdout, r.stderr
    r = ofc_bot("restore", "backups? #1.sqlite3", cwd=odd,
                env=_env(OFC_DATABASE="ofc db.sqlite3"))
    assert r.returncode == 0 and "before-restore-" in r.stdout, r.stderr
    assert len(list(odd.glob("ofc db.sqlite3.before-restore-*"))) == 1


def test_a_restore_over_a_damaged_database_keeps_its_files_and_restores(folder: Path) -> None:
    """README: the database as it was is kept, "when it is damaged ..., its files as they
    are", then the backup takes its place; the result checks sound."""
    good = new_database(folder / "good.sqlite3")
    saved = folder / "saved.sqlite3"
    backup(good, saved)
    db = _damage_an_index(good, folder / "ofc.sqlite3")
    damaged = db.read_bytes()
    r = ofc_bot("restore", str(saved), cwd=folder, env=_env())
    assert r.returncode == 0, r.stderr
    (kept,) = folder.glob("ofc.sqlite3.before-restore-*[0-9]")
    assert kept.read_bytes() == damaged
    assert ofc_bot("check", cwd=folder, env=_env()).returncode == 0


def test_bad_values_from_dotenv_example_copied_as_is_say_which_setting(folder: Path) -> None:
    """``.env.example`` copied to ``.env`` with only the token set gives a start that gets
    as far as connecting; a few typical slips each give one line naming the setting and
    status 2."""
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    (folder / ".env").write_text(text.replace("DISCORD_TOKEN=\n", "DISCORD_TOKEN=abc.def\n"),
                                 encoding="utf-8")
    r = ofc_bot(cwd=folder, env=_env(**UNREACHABLE))
    assert r.returncode == 2 and "Cannot reach Discord" in r.stderr, r.stderr
    for key, value in (("OFC_BACKUP_KEEP", "0"), ("OFC_BACKUP_HOURS", "-1"),
                       ("OFC_LOG_LEVEL", "warn"), ("OFC_BACKUP_DIR", "nowhere"),
                       ("OFC_DATABASE", "no/such/folder/ofc.sqlite3")):
        r = ofc_bot(cwd=folder, env=_env(**UNREACHABLE, **{key: value}))
        assert r.returncode == 2 and one_line_naming(r.stderr, key), (key, r.stderr)
