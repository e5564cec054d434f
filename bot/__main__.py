"""``ofc-bot``: run the Discord bot (``ofc-bot``), play in the terminal (``ofc-bot play``),
solve a fantasyland hand (``ofc-bot solve``), or look after the database (``ofc-bot backup``,
``restore``, ``check``: ``bot.maintenance``)."""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .settings import Settings

NO_TOKEN = """\
OFC Table needs a Discord bot token to connect (DISCORD_TOKEN is not set).

  1. Open https://discord.com/developers/applications and press "New Application".
  2. Under "Bot", press "Reset Token" and copy the token.
  3. Put it in a file named .env in the folder you start the bot from (next to the
     Makefile for `make run`):   DISCORD_TOKEN=your-token
     (see .env.example for every setting).
  4. Invite the bot to your server with this URL (replace APP_ID with the
     application's id from "General Information"):
     https://discord.com/oauth2/authorize?client_id=APP_ID&scope=bot+applications.commands&permissions=274878024704
  5. Run `make run` again.

No Discord at hand? Play against the computer in this terminal:  make play   (ofc-bot play)
"""


def setup_logging(level: str) -> None:
    """``OFC_LOG_LEVEL`` for the bot's own loggers (``ofc.*``); the libraries log at INFO or
    above, never DEBUG: discord.py's and aiosqlite's debug records carry message bodies and SQL
    parameters, i.e. private cards and the hand's seed."""
    number = logging.getLevelName(level.upper())
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger().setLevel(max(number, logging.INFO))
    logging.getLogger("ofc").setLevel(number)


def _stacks_on_sigusr1() -> None:
    """``kill -USR1 <pid>`` writes every thread's stack to stderr (the log), to see where a
    bot that hangs is; nothing where there is no SIGUSR1 or stderr is not a real file."""
    if hasattr(signal, "SIGUSR1"):
        with contextlib.suppress(AttributeError, OSError, ValueError):  # e.g. captured stderr
            faulthandler.register(signal.SIGUSR1, all_threads=True)


def _as_ctrl_c(signum: int, frame: Any) -> None:
    """SIGTERM does what Ctrl-C does at that moment: in the running bot, asyncio's own SIGINT
    handler (it cancels the bot's main task, which then closes everything in order); before
    or after, a KeyboardInterrupt.  (It raised KeyboardInterrupt in the running bot too, in
    whatever task ran at that moment: one caught acquiring the store's lock left it held,
    and the stop then waited for ever to close the database.)"""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not _as_ctrl_c:
        handler(signal.SIGINT, frame)
        return
    task = _SERVING[-1].main_task if _SERVING else None
    if task is not None and not task.done():  # Ctrl-C ignored (a background job of a
        # script: the shell ignores SIGINT there, so asyncio installed no handler): cancelled
        # as asyncio's own handler does, the bot closes in order
        task.cancel()
        task.get_loop().call_soon_threadsafe(lambda: None)  # (wakes the loop)
        return
    raise KeyboardInterrupt


_SERVING: list[Any] = []
"""The bot being run (``_run``): its ``main_task`` is known once it started."""


def _stop_on_sigterm() -> Any:
    """``kill``, ``systemctl stop`` and ``docker stop`` (SIGTERM) stop the bot as Ctrl-C does:
    the tables' timers and tasks, the commands, the connection and the database, in order.
    Returns the handler it replaced (None: none was replaced)."""
    if hasattr(signal, "SIGTERM"):
        with contextlib.suppress(ValueError):  # not the main thread
            return signal.signal(signal.SIGTERM, _as_ctrl_c)
    return None


async def _open_database(path: str) -> None:
    """Open (create, migrate) the database once before connecting, so that one the bot cannot
    use is said in a line, not found in the middle of the start."""
    import sqlite3

    from .store import Store

    store = await Store.open(path)
    await store.close()
    if path == ":memory:":
        return
    # a file it may read but not write (restored as root, read-only media) opens without an
    # error, and every move would fail: a write rolled back finds it (sqlite3.Error)
    with contextlib.closing(sqlite3.connect(path, timeout=5, isolation_level=None)) as db:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE ofc_write_probe (x)")
        finally:
            db.execute("ROLLBACK")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "play":
        try:
            from .play import main as play_main
        except KeyboardInterrupt:  # Ctrl-C while it loads
            print("Bye.")
            return 0

        return play_main(args[1:])
    if args and args[0] == "solve":
        from .play import solve_main

        return solve_main(args[1:])
    if args and args[0] in ("backup", "restore", "check"):
        return _maintain(args[0], args[1:])
    usage = ("usage: ofc-bot            run the Discord bot (settings from the environment/.env)\n"
             "       ofc-bot play ...   play against the computer in the terminal "
             "(ofc-bot play --help)\n"
             "       ofc-bot solve CARDS...  the best setting of a fantasyland hand "
             "(ofc-bot solve --help)\n"
             "       ofc-bot backup FILE     copy the database, even while the bot runs\n"
             "       ofc-bot restore FILE    put a backup back (the bot stopped)\n"
             "       ofc-bot check           check the database and its books")
    if args and args[0] in ("-h", "--help", "help"):
        print(usage)
        return 0
    if args:
        print(f"ofc-bot: unknown argument {args[0]!r}\n{usage}", file=sys.stderr)
        return 2
    from .settings import Settings, SettingsError

    try:
        settings = Settings.from_env()
    except SettingsError as e:
        print(f"Bad setting: {e}", file=sys.stderr)
        return 2
    if not settings.discord_token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    setup_logging(settings.log_level)
    _stacks_on_sigusr1()
    from .instance import AlreadyRunning, InstanceLock

    instance = InstanceLock(settings.database)
    try:
        instance.acquire()
    except AlreadyRunning as e:
        print(f"Another OFC Table bot{f' (pid {e.pid})' if e.pid else ''} is already running on "
              f"the database OFC_DATABASE={settings.database} (two would play its tables twice): "
              "stop it first, or give this one a database of its own.", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"Cannot use the database OFC_DATABASE={settings.database}: cannot lock "
              f"{instance.path}: {e}", file=sys.stderr)
        return 2
    try:
        return _run(settings)
    finally:
        instance.release()


MAINTENANCE = {
    "backup": "Copy the database (OFC_DATABASE) into a new file: a consistent snapshot, "
              "taken while the bot runs or not.",
    "restore": "Put a backup in place of the database (OFC_DATABASE). Stop the bot first; the "
               "database as it was is kept beside it (<database>.before-restore-<time>).",
    "check": "Check the database (OFC_DATABASE; read only, the bot may run): SQLite's "
             "integrity, then the books (every hand's units sum to zero, no negative balance, "
             "every settled hand complete). Exit status 1 when something is wrong.",
}


def maintenance_parser(command: str) -> Any:
    """The argument parser of ``ofc-bot backup``, ``restore`` or ``check``."""
    import argparse

    parser = argparse.ArgumentParser(prog=f"ofc-bot {command}", description=MAINTENANCE[command])
    if command != "check":
        parser.add_argument("file", metavar="FILE",
                            help="the backup file to write" if command == "backup" else
                            "the backup to put back")
    if command == "backup":
        parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    parser.add_argument("--database", metavar="PATH",
                        help="the database (default: OFC_DATABASE, else ./ofc.sqlite3)")
    return parser


def _maintain(command: str, argv: list[str]) -> int:
    """``ofc-bot backup FILE [--force]``, ``ofc-bot restore FILE``, ``ofc-bot check``; each
    takes ``--database PATH`` (default: ``OFC_DATABASE``, from the environment or .env)."""
    from .maintenance import MaintenanceError, backup, check, restore
    from .settings import Settings, SettingsError

    ns = maintenance_parser(command).parse_args(argv)
    try:
        database = ns.database or Settings.database_from_env()
    except SettingsError as e:
        print(f"Bad setting: {e}", file=sys.stderr)
        return 2
    try:
        if command == "backup":
            contents = backup(database, ns.file, force=ns.force)
            print(f"Backed up {database} to {ns.file}: {contents.describe()}.")
        elif command == "restore":
            contents, kept = restore(ns.file, database)
            print(f"Restored {ns.file} into {database}: {contents.describe()}."
                  + (f"\nThe database as it was: {kept}" if kept else ""))
        else:
            held, problems = check(database)
            if problems:
                print(f"{database}: {len(problems)} problem(s) found:", file=sys.stderr)
                for line in problems:
                    print(f"  - {line}", file=sys.stderr)
                return 1
            assert held is not None  # (read whenever nothing is wrong)
            print(f"{database} is sound and its books balance: {held.describe()}.")
    except MaintenanceError as e:
        print(f"ofc-bot {command}: {e}", file=sys.stderr)
        return 2
    return 0


def _run(settings: Settings) -> int:
    """The bot on ``settings`` until it stops (the database is its own: ``main``)."""
    import asyncio
    import sqlite3

    import aiohttp
    import discord

    from .app import OFCBot
    from .store import StoreError

    try:
        asyncio.run(_open_database(settings.database))
    except (sqlite3.Error, StoreError, OSError) as e:
        print(f"Cannot use the database OFC_DATABASE={settings.database}: {e}", file=sys.stderr)
        return 2
    assert settings.discord_token  # (main says what to do without one)
    previous = _stop_on_sigterm()
    bot = OFCBot(settings)
    _SERVING.append(bot)
    try:
        bot.run(settings.discord_token, log_handler=None)
    except asyncio.CancelledError:  # its main task, cancelled by SIGTERM: closed in order
        pass
    except discord.LoginFailure:
        print("Discord refused DISCORD_TOKEN: copy the bot's token again (Developer Portal > "
              "your application > Bot > Reset Token) into .env.", file=sys.stderr)
        return 2
    except (aiohttp.ClientError, OSError) as e:
        print(f"Cannot reach Discord ({settings.api_base}, {settings.gateway_url}): {e}",
              file=sys.stderr)
        return 2
    except AttributeError as e:
        # discord.py (2.7) reconnecting after a first gateway connection that failed reads the
        # websocket it never had: the network error is this one's context
        cause = e.__context__
        if bot.ws is None and isinstance(cause, (aiohttp.ClientError, OSError)):
            print(f"Cannot reach Discord's gateway ({settings.gateway_url}): {cause}",
                  file=sys.stderr)
            return 2
        raise
    finally:
        _SERVING.remove(bot)
        if previous is not None:  # (main called from another program: its handler back)
            signal.signal(signal.SIGTERM, previous)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
