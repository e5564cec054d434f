import asyncio
import errno
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import discord.gateway
import discord.http
import pytest

from bot.__main__ import main
from bot.settings import Settings, SettingsError, apply_discord_endpoints

KEYS = ("DISCORD_TOKEN", "OFC_DATABASE", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL",
        "OFC_DEV_GUILD_ID", "OFC_LOG_LEVEL", "OFC_NEXT_HAND_DELAY", "OFC_EDIT_COALESCE",
        "OFC_AI_PROCESSES")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> pytest.MonkeyPatch:
    for key in KEYS:  # recorded, so whatever .env loading sets is undone afterwards
        monkeypatch.setenv(key, "x")
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)  # no .env here
    return monkeypatch


def test_without_token_explains_setup_and_points_to_play(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "DISCORD_TOKEN" in err and "applications.commands" in err and "ofc-bot play" in err


def test_settings_from_env_and_dotenv(clean_env: pytest.MonkeyPatch, tmp_path: object) -> None:
    with open(".env", "w") as f:
        f.write("DISCORD_TOKEN=abc\nOFC_DEV_GUILD_ID=42\nOFC_DATABASE=/tmp/x.sqlite3\n")
    clean_env.setenv("DISCORD_API_BASE", "http://127.0.0.1:9/api/v10/")
    s = Settings.from_env()
    assert s.discord_token == "abc" and s.dev_guild_id == 42 and s.database == "/tmp/x.sqlite3"
    assert s.api_base == "http://127.0.0.1:9/api/v10"
    assert s.gateway_url == "wss://gateway.discord.gg/" and s.log_level == "INFO"


def test_ai_processes_setting(clean_env: pytest.MonkeyPatch) -> None:
    assert Settings.from_env().ai_processes == 1  # the AI thinks in one worker process
    clean_env.setenv("OFC_AI_PROCESSES", "0")
    assert Settings.from_env().ai_processes == 0  # threads of the bot's process
    for bad, why in (("two", "a number"), ("-1", "0 to 16"), ("17", "0 to 16")):
        clean_env.setenv("OFC_AI_PROCESSES", bad)
        with pytest.raises(SettingsError, match=f"OFC_AI_PROCESSES must be {why}"):
            Settings.from_env()


def test_bad_settings_are_explained(clean_env: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    clean_env.setenv("OFC_DEV_GUILD_ID", "my-server")
    with pytest.raises(SettingsError, match="OFC_DEV_GUILD_ID must be a number"):
        Settings.from_env()
    assert main([]) == 2
    assert "Bad setting" in capsys.readouterr().err


def test_endpoints_are_applied() -> None:
    old_base, old_gw = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    try:
        apply_discord_endpoints(Settings(api_base="http://127.0.0.1:1/api/v10",
                                         gateway_url="ws://127.0.0.1:1/gateway"))
        assert discord.http.Route.BASE == "http://127.0.0.1:1/api/v10"
        assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:1/gateway"
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gw


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "ofc-bot play" in capsys.readouterr().out


def test_unknown_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plya"]) == 2
    err = capsys.readouterr().err
    assert "unknown argument 'plya'" in err and "ofc-bot play" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_times_must_be_finite_and_not_negative(clean_env: pytest.MonkeyPatch, value: str) -> None:
    clean_env.setenv("OFC_NEXT_HAND_DELAY", value)
    with pytest.raises(SettingsError, match="OFC_NEXT_HAND_DELAY must be a number of seconds"):
        Settings.from_env()


def test_the_database_path_is_checked_before_connecting(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_env.setenv("OFC_DATABASE", str(tmp_path / "missing" / "x.sqlite3"))
    with pytest.raises(SettingsError, match="does not exist"):
        Settings.from_env()
    clean_env.setenv("OFC_DATABASE", str(tmp_path))
    with pytest.raises(SettingsError, match="is a folder"):
        Settings.from_env()
    clean_env.setenv("HOME", str(tmp_path))
    clean_env.setenv("OFC_DATABASE", "~/ofc.sqlite3")
    assert Settings.from_env().database == str(tmp_path / "ofc.sqlite3")


def test_a_dotenv_that_is_not_utf8(clean_env: pytest.MonkeyPatch) -> None:
    Path(".env").write_bytes("OFC_LOG_LEVEL=INFO # caf\xe9\n".encode("latin-1"))
    with pytest.raises(SettingsError, match="not UTF-8"):
        Settings.from_env()


def test_a_refused_token_or_no_network_is_explained(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.app import OFCBot

    clean_env.setenv("DISCORD_TOKEN", "abc.def.ghi")
    for error, expected in ((discord.LoginFailure("Improper token"), "Discord refused"),
                            (OSError("Network is unreachable"), "Cannot reach Discord")):
        def fail(self: OFCBot, *args: object, error: Exception = error, **kw: object) -> None:
            raise error

        clean_env.setattr(OFCBot, "run", fail)
        assert main([]) == 2
        assert expected in capsys.readouterr().err


def test_a_gateway_out_of_reach_is_explained(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """discord.py's reconnect after a first gateway connection that failed raises an
    AttributeError (it reads the websocket it never had): said as the network error."""
    from bot.app import OFCBot

    def fail(self: OFCBot, *args: object, **kw: object) -> None:
        raise AttributeError("a bug of another kind")

    def fail_with_context(self: OFCBot, *args: object, **kw: object) -> None:
        try:
            raise OSError("Connect call failed ('127.0.0.1', 1)")
        except OSError:
            raise AttributeError("'NoneType' object has no attribute 'sequence'")  # noqa: B904

    clean_env.setenv("DISCORD_TOKEN", "abc.def.ghi")
    clean_env.setattr(OFCBot, "run", fail_with_context)
    assert main([]) == 2
    assert "Cannot reach Discord's gateway" in capsys.readouterr().err
    clean_env.setattr(OFCBot, "run", fail)  # an AttributeError of another kind: raised
    with pytest.raises(AttributeError):
        main([])


def test_a_database_it_cannot_use_is_said_in_a_line(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Not a database, or one from a newer version: one line and status 2, before connecting."""
    from bot.app import OFCBot

    def never(self: OFCBot, *args: object, **kw: object) -> None:
        raise AssertionError("connected with a database it cannot use")

    clean_env.setattr(OFCBot, "run", never)
    clean_env.setenv("DISCORD_TOKEN", "abc.def.ghi")
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database, not at all. " * 40)
    clean_env.setenv("OFC_DATABASE", str(garbage))
    assert main([]) == 2
    assert "Cannot use the database OFC_DATABASE=" in capsys.readouterr().err
    newer = tmp_path / "newer.sqlite3"
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 999")
    clean_env.setenv("OFC_DATABASE", str(newer))
    assert main([]) == 2
    assert "newer than this bot" in capsys.readouterr().err


def test_a_second_bot_on_the_same_database_stops_at_once(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two bots on one database would resume the same tables and play them twice: the second
    says which process holds it, status 2, before connecting; once that one is gone (killed:
    the system frees its lock) a bot starts."""
    from bot.app import OFCBot

    runs: list[str] = []
    clean_env.setattr(OFCBot, "run", lambda self, *a, **kw: runs.append("ran"))
    clean_env.setenv("DISCORD_TOKEN", "abc.def.ghi")
    db = tmp_path / "ofc.sqlite3"
    clean_env.setenv("OFC_DATABASE", str(db))
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from bot.instance import InstanceLock; "
         f"lock = InstanceLock({str(db)!r}); lock.acquire(); print('held', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2])
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert main([]) == 2
        err = capsys.readouterr().err
        assert f"(pid {holder.pid}) is already running on the database" in err and not runs
        assert not db.exists()  # not even opened
    finally:
        holder.kill()
        holder.wait()
    assert main([]) == 0 and runs == ["ran"]
    assert main([]) == 0 and runs == ["ran", "ran"]  # released at the end of each run


async def _bot_sent_sigterm(seen: list[str], running: Any = None) -> None:
    """A bot's main task (``running.main_task`` set when given) whose table task takes and
    gives back a lock all the time, sent SIGTERM: cancelled, it stops that task, finds the
    lock free (nobody left it held) and says "closed in order"."""
    if running is not None:
        running.main_task = asyncio.current_task()
    lock = asyncio.Lock()

    async def table() -> None:
        while True:
            async with lock:
                await asyncio.sleep(0)

    task = asyncio.create_task(table())
    await asyncio.sleep(0.05)
    signal.raise_signal(signal.SIGTERM)
    try:
        await asyncio.sleep(5)
    except asyncio.CancelledError:  # the main task, cancelled: the bot closes in order
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        async with lock:  # nobody holds it
            seen.append("closed in order")
        raise


def test_sigterm_in_the_running_bot_cancels_its_main_task_as_ctrl_c_does() -> None:
    """Inside ``asyncio.run`` (discord.py's ``Client.run``) SIGTERM goes to asyncio's SIGINT
    handler: the main task is cancelled (the bot closes in order) and no KeyboardInterrupt
    lands in another task.  It used to raise KeyboardInterrupt in whatever ran: caught while
    a task acquired the store's lock, the lock stayed held and the stop hung on closing the
    database (the latency bench's bot, once, under load)."""
    from bot.__main__ import _stop_on_sigterm

    seen: list[str] = []
    before = signal.getsignal(signal.SIGTERM)
    ctrl_c = signal.signal(signal.SIGINT, signal.default_int_handler)  # (as a terminal's:
    try:  # pytest run as a script's background job starts with Ctrl-C ignored)
        _stop_on_sigterm()
        with pytest.raises(KeyboardInterrupt):  # (asyncio.run says so once it is done)
            asyncio.run(_bot_sent_sigterm(seen))
    finally:
        signal.signal(signal.SIGTERM, before)
        signal.signal(signal.SIGINT, ctrl_c)
    assert seen == ["closed in order"]


def test_sigterm_stops_a_bot_whose_ctrl_c_is_ignored_in_order() -> None:
    """A bot started as a script's background job (``make run &`` in a script, ``nohup``
    with ``&``) has Ctrl-C ignored (the shell does it), so asyncio installs no handler of its
    own: SIGTERM cancels the bot's main task itself, the bot closes in order.  (Was a defect
    (fixed): it raised KeyboardInterrupt in whatever task ran, the hang that
    ``test_sigterm_in_the_running_bot_cancels_its_main_task_as_ctrl_c_does`` describes; the
    test above failed when pytest itself ran so.)"""
    import bot.__main__ as entry

    seen: list[str] = []
    running = SimpleNamespace(main_task=None)
    before = signal.getsignal(signal.SIGTERM)
    ctrl_c = signal.signal(signal.SIGINT, signal.SIG_IGN)
    entry._SERVING.append(running)
    try:
        entry._stop_on_sigterm()
        with pytest.raises(asyncio.CancelledError):  # (``_run`` takes it as a clean stop)
            asyncio.run(_bot_sent_sigterm(seen, running))
    finally:
        entry._SERVING.remove(running)
        signal.signal(signal.SIGTERM, before)
        signal.signal(signal.SIGINT, ctrl_c)
    assert seen == ["closed in order"]


@pytest.mark.parametrize("ctrl_c", ["default", "ignored"])
def test_the_real_bot_stops_on_sigterm_in_order(ctrl_c: str, tmp_path: Path) -> None:
    """``python -m bot`` connected to the stand-in Discord stops on SIGTERM with its steps
    logged in order and status 0, whether Ctrl-C works in it or is ignored (a background
    job of a script)."""
    from tests.e2e.fakediscord import FakeDiscord

    async def run() -> tuple[int | None, str]:
        async with FakeDiscord() as fake:
            guild = fake.add_guild("Stop")
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("OFC_", "DISCORD_"))}
            env.update(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
                       DISCORD_GATEWAY_URL=fake.gateway_url, OFC_AI_PROCESSES="0",
                       OFC_DATABASE=str(tmp_path / "ofc.sqlite3"),
                       OFC_DEV_GUILD_ID=str(guild.id), PYTHONUNBUFFERED="1",
                       PYTHONPATH=str(Path(__file__).resolve().parents[2]))
            ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) \
                if ctrl_c == "ignored" else None
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=tmp_path, env=env, preexec_fn=ignore,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE)
            assert proc.stderr is not None
            lines: list[str] = []
            while not any(" connected as " in x for x in lines):
                raw = await asyncio.wait_for(proc.stderr.readline(), 120)
                assert raw, "\n".join(lines)
                lines.append(raw.decode(errors="replace"))
            proc.send_signal(signal.SIGTERM)
            rest = await asyncio.wait_for(proc.stderr.read(), 60)
            await proc.wait()
            return proc.returncode, "".join(lines) + rest.decode(errors="replace")

    code, log = asyncio.run(run())
    assert code == 0, log
    steps = re.findall(r" ofc\.bot: (stopping: [^\n]*|stopped)$", log, re.M)
    assert steps[0] == "stopping: the tables' timers and tasks" and steps[-1] == "stopped", log
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log


def test_sigterm_stops_the_bot_as_ctrl_c_does() -> None:
    from bot.__main__ import _stop_on_sigterm

    before = signal.getsignal(signal.SIGTERM)
    try:
        _stop_on_sigterm()
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, before)


def test_an_empty_variable_does_not_hide_the_dotenv_value(clean_env: pytest.MonkeyPatch) -> None:
    Path(".env").write_text("DISCORD_TOKEN=from-file\nOFC_LOG_LEVEL=debug\n")
    clean_env.setenv("DISCORD_TOKEN", "")  # e.g. `export DISCORD_TOKEN=` in a shell profile
    clean_env.setenv("OFC_LOG_LEVEL", "warning")  # a real value in the environment wins
    s = Settings.from_env()
    assert s.discord_token == "from-file" and s.log_level == "WARNING"
    clean_env.setenv("DISCORD_TOKEN", "   ")
    Path(".env").write_text("")
    assert Settings.from_env().discord_token is None  # blank is not a token


@pytest.mark.parametrize("level", ["DEBUG", "INFO", "WARNING"])
def test_debug_logging_is_the_bots_own_never_the_libraries(level: str) -> None:
    """discord.py's and aiosqlite's debug records hold DM bodies and SQL parameters (private
    cards, the hand's seed): OFC_LOG_LEVEL=DEBUG turns on only the ``ofc.*`` loggers."""
    import logging

    from bot.__main__ import setup_logging

    root, ours = logging.getLogger(), logging.getLogger("ofc")
    saved = root.level, ours.level
    try:
        setup_logging(level)
        for library in ("discord.http", "discord.gateway", "aiosqlite"):
            assert not logging.getLogger(library).isEnabledFor(logging.DEBUG)
        number = logging.getLevelName(level)
        assert logging.getLogger("ofc.service").getEffectiveLevel() == number
        assert logging.getLogger("discord.client").isEnabledFor(logging.WARNING)
        assert logging.getLogger("aiosqlite").isEnabledFor(logging.INFO) == (level != "WARNING")
    finally:
        root.setLevel(saved[0])
        ours.setLevel(saved[1])


def test_the_invite_asks_for_what_the_bot_uses() -> None:
    """The invite link's permissions (README and the no-token help) are exactly the ones the
    README names: the table works in channels and threads and finds its old pings."""
    wanted = discord.Permissions(
        view_channel=True, send_messages=True, send_messages_in_threads=True, embed_links=True,
        attach_files=True, read_message_history=True,
    ).value
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    main_py = (Path(__file__).parents[2] / "bot" / "__main__.py").read_text(encoding="utf-8")
    for text in (readme, main_py):
        found = {int(x) for x in re.findall(r"permissions=(\d+)", text)}
        assert found == {wanted}
    assert f"Permissions ({wanted})" in readme


def test_commands_match_what_discord_returns() -> None:
    from bot.app import commands_match

    wanted = [{"name": "ofc", "type": 1, "description": "Open Face", "nsfw": False,
               "default_member_permissions": None, "contexts": [0], "integration_types": None,
               "options": [{"name": "new", "type": 1, "description": "Open a table",
                            "options": [{"name": "stake", "type": 4, "description": "units",
                                         "required": False, "min_value": 0}]}]},
              {"name": "ofc-admin", "type": 1, "description": "Managers",
               "default_member_permissions": 32, "options": []}]
    # what Discord returns: ids, versions, strings for permissions, defaults left out
    published = [{"id": "9", "application_id": "1", "version": "3", "name": "ofc-admin",
                  "type": 1, "description": "Managers", "default_member_permissions": "32",
                  "dm_permission": True, "integration_types": [0]},
                 {"id": "8", "application_id": "1", "version": "3", "name": "ofc", "type": 1,
                  "description": "Open Face", "contexts": [0], "nsfw": False,
                  "integration_types": [0], "default_member_permissions": None,
                  "options": [{"name": "new", "type": 1, "description": "Open a table",
                               "options": [{"name": "stake", "type": 4, "description": "units",
                                            "min_value": 0}]}]}]
    assert commands_match(wanted, published)
    changed = [dict(published[0], description="Other"), published[1]]
    assert not commands_match(wanted, changed)
    assert not commands_match(wanted, published[:1])  # a command missing
    assert not commands_match(wanted[:1], published)  # one no longer wanted
    opened = [dict(published[0], default_member_permissions=None), published[1]]
    assert not commands_match(wanted, opened)
    closed = [published[0], dict(published[1], default_member_permissions="32")]
    assert not commands_match(wanted, closed)  # None: everyone, not Discord's default
    option = [published[0], dict(published[1], options=[])]
    assert not commands_match(wanted, option)
    assert not commands_match([], ["not a command"])
    # a field the new version dropped (discord.py leaves it out) is still on Discord's copy
    stake = published[1]["options"][0]["options"][0]
    for field, value in (("choices", [{"name": "1", "value": 1}]), ("min_length", 2)):
        kept = dict(published[1], options=[dict(published[1]["options"][0],
                                                options=[dict(stake, **{field: value})])])
        assert not commands_match(wanted, [published[0], kept])
    # 0 is a value, not an empty field
    no_min = dict(published[1], options=[dict(published[1]["options"][0],
                                              options=[{k: v for k, v in stake.items()
                                                        if k != "min_value"}])])
    assert not commands_match(wanted, [published[0], no_min])


@pytest.mark.skipif(os.name == "nt", reason="flock")
def test_a_filesystem_without_locks_is_not_reported_as_another_bot(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Only a lock held elsewhere reads as "another bot is running": a file system without
    lock support (``ENOLCK``, some network mounts) is said as it is (found by a review)."""
    from bot import instance

    def no_locks(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    clean_env.setattr(instance.fcntl, "flock", no_locks)
    clean_env.setenv("DISCORD_TOKEN", "abc.def.ghi")
    clean_env.setenv("OFC_DATABASE", str(tmp_path / "ofc.sqlite3"))
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "cannot lock" in err and "No locks available" in err and "Another" not in err
