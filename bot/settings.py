"""Settings from the environment and ``.env`` (python-dotenv)."""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dotenv import dotenv_values

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"


class SettingsError(ValueError):
    pass


def _int(name: str, value: str | None) -> int | None:
    if value is None or value.strip() == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {value!r}") from None


def _float(name: str, value: str | None, default: float, unit: str = "seconds", *,
           above_zero: bool = False) -> float:
    if value is None or value.strip() == "":
        return default
    try:
        number = float(value)
    except ValueError:
        raise SettingsError(f"{name} must be a number of {unit}, got {value!r}") from None
    if not math.isfinite(number) or number < 0 or (above_zero and number == 0):
        least = "above 0" if above_zero else "0 or more"
        raise SettingsError(f"{name} must be a number of {unit}, {least}, got {value!r}")
    return number


def _processes(value: str | None) -> int:
    number = _int("OFC_AI_PROCESSES", value)
    if number is None:
        return 1
    if not 0 <= number <= 16:
        raise SettingsError(f"OFC_AI_PROCESSES must be 0 to 16 worker processes, got {number}")
    return number


def _path(setting: str, value: str) -> Path:
    """``value`` as a path, ``~`` expanded (``~user`` of no user is a bad setting)."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        raise SettingsError(f"{setting}: {value!r} starts with the home folder of a user this "
                            "machine does not have (for your own, write ~/)") from None


def _looked_at(setting: str, value: str, path: Path) -> tuple[bool, bool]:
    """Whether ``path`` exists and is a folder (a folder the bot may not enter is a bad
    setting: pathlib's ``exists`` and ``is_dir`` let that error through)."""
    try:
        return path.exists(), path.is_dir()
    except OSError as e:
        raise SettingsError(f"{setting}: cannot look at {value!r} ({e.strerror}): the bot's "
                            "user needs to enter its folders") from None


def _writable(setting: str, value: str, folder: Path) -> None:
    """A file can be made in ``folder`` (made and deleted at once), else a bad setting."""
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".ofc-probe-"):
            pass
    except OSError as e:
        raise SettingsError(f"{setting}: the bot cannot write in {str(folder)!r} "
                            f"({e.strerror})") from None


def _database(value: str) -> str:
    """The database path (``~`` expanded), refused when its folder does not exist or it is a
    folder (found now, not after connecting to Discord)."""
    if value == ":memory:":
        return value
    path = _path("OFC_DATABASE", value)
    if _looked_at("OFC_DATABASE", value, path)[1]:
        raise SettingsError(f"OFC_DATABASE is a folder, not a file: {value!r}")
    if not _looked_at("OFC_DATABASE", value, path.parent)[1]:
        raise SettingsError(f"OFC_DATABASE: the folder {str(path.parent)!r} does not exist")
    return str(path)


def _backup_dir(value: str | None, database: str) -> str | None:
    """The folder regular backups go to (``~`` expanded; it must exist), none: no backups."""
    if not value:
        return None
    if database == ":memory:":
        raise SettingsError("OFC_BACKUP_DIR: an in-memory database (OFC_DATABASE=:memory:) "
                            "has nothing to back up")
    path = _path("OFC_BACKUP_DIR", value)
    exists, is_dir = _looked_at("OFC_BACKUP_DIR", value, path)
    if exists and not is_dir:
        raise SettingsError(f"OFC_BACKUP_DIR is a file, not a folder: {value!r}")
    if not is_dir:
        raise SettingsError(f"OFC_BACKUP_DIR: the folder {value!r} does not exist")
    _writable("OFC_BACKUP_DIR", value, path)  # (else it would only log a failure every hour)
    return str(path)


def _backup_keep(value: str | None) -> int:
    number = _int("OFC_BACKUP_KEEP", value)
    if number is None:
        return 7
    if number < 1:
        raise SettingsError(f"OFC_BACKUP_KEEP must be 1 or more backups, got {number}")
    return number


@dataclass(frozen=True)
class Settings:
    discord_token: str | None = None
    database: str = "./ofc.sqlite3"
    api_base: str = DEFAULT_API_BASE
    gateway_url: str = DEFAULT_GATEWAY_URL
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    next_hand_delay: float = 5.0
    """Seconds between a showdown and the next deal."""
    edit_coalesce: float = 0.4
    """Table-message edits within this window are merged into one."""
    ai_processes: int = 1
    """Worker processes the AI thinks in (0: threads of the bot's process; ``bot.thinker``)."""
    backup_dir: str | None = None
    """The folder of the regular backups (``bot.maintenance.RegularBackups``); none: none."""
    backup_hours: float = 24.0
    """Hours between two regular backups."""
    backup_keep: int = 7
    """Regular backups kept (the oldest go)."""

    @staticmethod
    def environment(env_file: str | Path | None = ".env") -> dict[str, str]:
        """The settings' values: ``env_file``'s, then the environment's over them (a variable
        set empty there does not hide the file's value)."""
        from_file: dict[str, str | None] = {}
        if env_file is not None and Path(env_file).exists():
            try:
                from_file = dotenv_values(env_file, encoding="utf-8")
            except UnicodeDecodeError:
                raise SettingsError(f"{env_file} is not UTF-8 text: save it as UTF-8") from None
            except OSError as e:
                raise SettingsError(f"{env_file} cannot be read ({e.strerror}): the bot's user "
                                    "needs to read it") from None
        env = {k: v.strip() for k, v in from_file.items() if v and v.strip()}
        env.update({k: v.strip() for k, v in os.environ.items() if v.strip()})
        return env

    @classmethod
    def database_from_env(cls, env_file: str | Path | None = ".env") -> str:
        """``OFC_DATABASE`` alone (``ofc-bot backup``, ``restore``, ``check``: the other
        settings, e.g. a backup folder on a disk not mounted, are not theirs to refuse)."""
        return _database(cls.environment(env_file).get("OFC_DATABASE") or "./ofc.sqlite3")

    @classmethod
    def from_env(cls, env_file: str | Path | None = ".env") -> Settings:
        env = cls.environment(env_file)
        level = (env.get("OFC_LOG_LEVEL") or "INFO").upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise SettingsError(f"OFC_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {level}")
        database = _database(env.get("OFC_DATABASE") or "./ofc.sqlite3")
        return cls(
            discord_token=env.get("DISCORD_TOKEN") or None,
            database=database,
            api_base=(env.get("DISCORD_API_BASE") or DEFAULT_API_BASE).rstrip("/"),
            gateway_url=env.get("DISCORD_GATEWAY_URL") or DEFAULT_GATEWAY_URL,
            dev_guild_id=_int("OFC_DEV_GUILD_ID", env.get("OFC_DEV_GUILD_ID")),
            log_level=level,
            next_hand_delay=_float("OFC_NEXT_HAND_DELAY", env.get("OFC_NEXT_HAND_DELAY"), 5.0),
            edit_coalesce=_float("OFC_EDIT_COALESCE", env.get("OFC_EDIT_COALESCE"), 0.4),
            ai_processes=_processes(env.get("OFC_AI_PROCESSES")),
            backup_dir=_backup_dir(env.get("OFC_BACKUP_DIR"), database),
            backup_hours=_float("OFC_BACKUP_HOURS", env.get("OFC_BACKUP_HOURS"), 24.0, "hours",
                                above_zero=True),
            backup_keep=_backup_keep(env.get("OFC_BACKUP_KEEP")),
        )


def apply_discord_endpoints(settings: Settings) -> None:
    """Point discord.py's REST client and gateway at the configured endpoints (a REST proxy in
    production, the loopback stand-in in tests)."""
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = settings.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)
