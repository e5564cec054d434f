"""README.md's concrete claims, pinned against the code: the command table against the
registered app commands and their options, the settings table against ``bot.settings`` and
``.env.example``, the make targets against the Makefile, ``ofc-bot play``'s options against
its parser, the rules table against ``engine.rules.Rules``, and the numbers README quotes
(clocks, retries, limits) against the constants that make them true.  A failure here means
README and the code disagree: one of them is wrong."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------------------- helpers
def section(title: str) -> str:
    """The text of README's ``## title`` section (up to the next ``## ``)."""
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert m, f"README has no section {title!r}"
    return m.group(1)


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first markdown table in ``text`` (header and rule skipped)."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert len(lines) > 2, "no table"
    return [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines[2:]]


def without_parens(text: str) -> str:
    """``text`` with every (possibly nested) parenthesised part removed."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def option_parens(cell: str) -> dict[str, str]:
    """``name`` -> the text of the parentheses right after it (top level only)."""
    out: dict[str, str] = {}
    for m in re.finditer(r"`([a-z_]+)`\s*\(", cell):
        start, depth = m.end(), 1
        i = start
        while depth and i < len(cell):
            depth += {"(": 1, ")": -1}.get(cell[i], 0)
            i += 1
        out[m.group(1)] = cell[start:i - 1]
    return out


def readme_commands() -> dict[str, dict[str, str]]:
    """README's command table: '/ofc new' -> {option: its parenthesised text}."""
    rows = table_rows(section("Commands"))
    out: dict[str, dict[str, str]] = {}
    for name_cell, options_cell, _what in rows:
        names = ticked(name_cell)
        options = {o: "" for o in ticked(without_parens(options_cell))}
        parens = option_parens(options_cell)
        for o in options:
            options[o] = parens.get(o, "")
        for name in names:
            out[name] = options
    return out


def app_commands_by_name() -> dict[str, Any]:
    from cogs.ofc import OFC, OFCAdmin

    out = {}
    for cog in (OFC, OFCAdmin):
        for c in cog.__cog_app_commands__:
            out[f"/{cog.__cog_group_name__} {c.name}"] = c
    return out


# ------------------------------------------------------------------------------- commands
def test_the_command_table_lists_exactly_the_registered_commands() -> None:
    assert set(readme_commands()) == set(app_commands_by_name())


@pytest.mark.parametrize("command", sorted(app_commands_by_name()))
def test_each_command_has_the_options_readme_names(command: str) -> None:
    readme = readme_commands()[command]
    code = [p.name for p in app_commands_by_name()[command].parameters]
    assert list(readme) == code, f"{command}: README {list(readme)} != code {code}"


def _choices_in(text: str) -> list[str]:
    """``ofc, pineapple, chinese`` / ``day: the last 24 hours, week: ..., all`` -> names."""
    return [part.split(":")[0].strip() for part in text.split(",")]


@pytest.mark.parametrize("command", sorted(app_commands_by_name()))
def test_the_choices_ranges_and_defaults_readme_gives_are_the_codes(command: str) -> None:
    readme = readme_commands()[command]
    for p in app_commands_by_name()[command].parameters:
        text = readme.get(p.name, "")
        if not text:
            continue
        if p.choices:
            assert _choices_in(text) == [c.value for c in p.choices], (command, p.name)
        m = re.match(r"(\d+)-(\d+)(?:, default (\d+))?$", text)
        if m and not p.choices:
            assert (p.min_value, p.max_value) == (int(m.group(1)), int(m.group(2))), (
                command, p.name)
            if m.group(3):
                assert p.default == int(m.group(3)), (command, p.name)
        if text.startswith("optional"):
            assert not p.required, (command, p.name)
        if text == "true/false":
            assert p.type.name == "boolean", (command, p.name)


def test_the_options_of_ofc_options_are_the_engines_option_names_plus_deck() -> None:
    from engine.rules import OPTION_NAMES

    assert list(readme_commands()["/ofc options"]) == [*OPTION_NAMES, "deck"]


def test_the_admin_group_is_for_manage_server_and_guild_only() -> None:
    import discord

    from cogs.ofc import OFC, OFCAdmin

    assert OFCAdmin.__discord_app_commands_default_permissions__ == discord.Permissions(
        manage_guild=True)
    assert OFCAdmin.__discord_app_commands_guild_only__
    assert OFC.__discord_app_commands_guild_only__


def test_removebot_offers_the_bots_as_you_type() -> None:
    bot = app_commands_by_name()["/ofc removebot"].get_parameter("bot")
    assert bot.autocomplete and not bot.required


# ------------------------------------------------------------------------------- settings
SETTING_FIELDS = {
    "DISCORD_TOKEN": "discord_token", "OFC_DATABASE": "database",
    "DISCORD_API_BASE": "api_base", "DISCORD_GATEWAY_URL": "gateway_url",
    "OFC_DEV_GUILD_ID": "dev_guild_id", "OFC_LOG_LEVEL": "log_level",
    "OFC_NEXT_HAND_DELAY": "next_hand_delay", "OFC_EDIT_COALESCE": "edit_coalesce",
    "OFC_AI_PROCESSES": "ai_processes", "OFC_BACKUP_DIR": "backup_dir",
    "OFC_BACKUP_HOURS": "backup_hours", "OFC_BACKUP_KEEP": "backup_keep",
}


def readme_settings() -> dict[str, str]:
    """README's settings table: key -> its default as written (``—`` for none)."""
    out = {}
    for key_cell, default_cell, _meaning in table_rows(section("Settings")):
        (key,) = ticked(key_cell)
        values = ticked(default_cell)
        out[key] = values[0] if values else "—"
    return out


def _env_example() -> dict[str, str]:
    out = {}
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No setting in the environment, and a current folder without ``.env``."""
    for key in SETTING_FIELDS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def keep_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``main`` past the settings sets up logging (levels, a handler) and SIGUSR1: undone
    after the test, so that the other tests see the logging they expect."""
    import faulthandler
    import logging
    import signal

    root, ofc = logging.getLogger(), logging.getLogger("ofc")
    monkeypatch.setattr(root, "level", root.level)
    monkeypatch.setattr(ofc, "level", ofc.level)
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    yield
    if hasattr(signal, "SIGUSR1"):
        faulthandler.unregister(signal.SIGUSR1)


def test_the_settings_table_lists_every_setting_the_bot_reads() -> None:
    source = (ROOT / "bot" / "settings.py").read_text(encoding="utf-8")
    read = set(re.findall(r'env\.get\("([A-Z_]+)"\)', source))
    assert set(readme_settings()) == read == set(SETTING_FIELDS)


def test_env_example_lists_them_all_with_the_readme_defaults() -> None:
    example = _env_example()
    assert set(example) == set(readme_settings())
    for key, default in readme_settings().items():
        assert example[key] == ("" if default == "—" else default), key


def test_the_defaults_are_the_readmes(clean_env: Path) -> None:
    from bot.settings import Settings

    s = Settings.from_env(env_file=None)
    for key, default in readme_settings().items():
        value = getattr(s, SETTING_FIELDS[key])
        if default == "—":
            assert value is None, key
        elif isinstance(value, float | int) and not isinstance(value, bool):
            assert value == float(default), key
        elif key == "OFC_DATABASE":
            assert Path(value) == Path(default), key
        else:
            assert value == default, key
    # the dataclass's own defaults are the same
    bare = Settings()
    for key, default in readme_settings().items():
        value = getattr(bare, SETTING_FIELDS[key])
        if default != "—" and isinstance(value, float | int):
            assert value == float(default), key


def test_the_environment_wins_but_an_empty_variable_does_not_hide_the_file(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.settings import Settings

    (clean_env / ".env").write_text("OFC_NEXT_HAND_DELAY=7\nOFC_EDIT_COALESCE=0.9\n",
                                    encoding="utf-8")
    monkeypatch.setenv("OFC_NEXT_HAND_DELAY", "3")
    monkeypatch.setenv("OFC_EDIT_COALESCE", "")
    s = Settings.from_env()
    assert (s.next_hand_delay, s.edit_coalesce) == (3.0, 0.9)


@pytest.mark.parametrize("level", ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])
def test_every_log_level_readme_names_is_accepted(clean_env: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  level: str) -> None:
    from bot.settings import Settings

    monkeypatch.setenv("OFC_LOG_LEVEL", level)
    assert Settings.from_env(env_file=None).log_level == level


@pytest.mark.parametrize(("key", "value"), [
    ("OFC_NEXT_HAND_DELAY", "soon"), ("OFC_NEXT_HAND_DELAY", "-1"),
    ("OFC_EDIT_COALESCE", "inf"), ("OFC_DEV_GUILD_ID", "my server"),
    ("OFC_AI_PROCESSES", "17"), ("OFC_AI_PROCESSES", "-1"),
    ("OFC_DATABASE", "./no/such/folder/ofc.sqlite3"), ("OFC_LOG_LEVEL", "TRACE"),
    ("OFC_BACKUP_DIR", "./no/such/folder"), ("OFC_BACKUP_HOURS", "0"),
    ("OFC_BACKUP_HOURS", "daily"), ("OFC_BACKUP_KEEP", "0"),
])
def test_a_bad_value_stops_the_start_with_exit_status_2(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    key: str, value: str,
) -> None:
    from bot.__main__ import main

    monkeypatch.setenv("DISCORD_TOKEN", "not-used")
    monkeypatch.setenv(key, value)
    assert main([]) == 2
    err = capsys.readouterr().err.strip()
    assert key in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("processes", ["0", "16"])
def test_ai_processes_0_to_16(clean_env: Path, monkeypatch: pytest.MonkeyPatch,
                              processes: str) -> None:
    from bot.settings import Settings

    monkeypatch.setenv("OFC_AI_PROCESSES", processes)
    assert Settings.from_env(env_file=None).ai_processes == int(processes)


def test_without_a_token_make_run_prints_the_setup_steps(
    clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.__main__ import main

    assert main([]) == 2
    err = capsys.readouterr().err
    assert "DISCORD_TOKEN" in err and "Reset Token" in err


# ------------------------------------------------------------------------------- setup
def test_the_invite_url_and_its_permissions() -> None:
    import discord

    from bot.__main__ import NO_TOKEN

    (url,) = re.findall(r"`(https://discord\.com/oauth2/authorize[^`]+)`",
                        section("Set up the Discord application"))
    assert url in NO_TOKEN
    assert "scope=bot+applications.commands" in url
    value = int(re.search(r"permissions=(\d+)", url).group(1))  # type: ignore[union-attr]
    assert f"Permissions ({value})" in README
    named = discord.Permissions(
        view_channel=True, send_messages=True, send_messages_in_threads=True,
        embed_links=True, attach_files=True, read_message_history=True,
    )
    assert value == named.value


def test_the_bot_uses_the_guilds_intent_only() -> None:
    import discord

    from bot.app import intents

    want = discord.Intents.none()
    want.guilds = True
    assert intents() == want


# ------------------------------------------------------------------------------- make
def _make_rules() -> dict[str, list[str]]:
    """Makefile target -> its recipe lines."""
    rules: dict[str, list[str]] = {}
    current = None
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([a-z][\w-]*):", line)
        if m:
            current = m.group(1)
            rules[current] = []
        elif line.startswith("\t") and current:
            rules[current].append(line.strip())
    return rules


def test_the_make_targets_readme_lists_are_the_makefiles() -> None:
    listed = [ticked(row[0])[0].removeprefix("make ") for row in
              table_rows(section("Make targets"))]
    phony = re.search(r"^\.PHONY:(.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert phony
    assert sorted(listed) == sorted(phony.group(1).split()) == sorted(
        t for t in _make_rules() if not t.startswith("$"))


def test_what_the_make_targets_run() -> None:
    r = _make_rules()
    assert r["run"] == ["$(VENV)/bin/ofc-bot"]
    assert r["play"] == ["$(VENV)/bin/ofc-bot play"]
    assert any("ruff check" in x for x in r["lint"])
    assert "$(VENV)/bin/mypy --strict engine renderer bot cogs" in r["lint"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test: lint$", makefile, re.M)  # make test = lint, then pytest
    assert any("pytest" in x for x in r["test"])
    assert r["bench"] == ["$(PY) -m bench.engine", "$(PY) -m bench.render",
                          "$(PY) -m bench.solver --no-stay", "$(PY) -m bench.rollouts",
                          "$(PY) -m bench.boards", "$(PY) -m bench.review"]
    assert ("| `make bench` | engine, renderer, solver, AI-rollout, leaderboard/stats and "
            "review" in README)
    assert r["bench-ai"] == ["$(PY) -m bench.ai"]
    assert r["bench-latency"] == ["$(PY) -m bench.latency"]
    assert r["gallery"] == ["$(PY) -m renderer.gallery docs/images"]
    assert r["clean"] == ["rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache"]
    assert "pip install --quiet -e '.[dev]'" in makefile


def test_the_soak_readme_describes() -> None:
    soak = (ROOT / "tests" / "bot" / "test_service_soak.py").read_text(encoding="utf-8")
    assert 'os.environ.get("OFC_SOAK_SCENARIOS", "8")' in soak
    assert 'os.environ.get("OFC_SOAK_STEPS", "170")' in soak
    assert "OFC_SOAK_FIRST_SEED" in soak
    assert "8\nscenarios of 170 random steps" in README


# ------------------------------------------------------- ofc-bot backup / restore / check
@pytest.mark.parametrize("command", ["backup", "restore", "check"])
def test_the_maintenance_commands_and_their_options_are_the_parsers(command: str) -> None:
    from bot.__main__ import maintenance_parser

    start = README.index("## Backups and checks")
    section = README[start:README.index("\n## ", start + 1)]
    parser = maintenance_parser(command)
    public = {o for a in parser._actions for o in a.option_strings
              if o.startswith("--") and o != "--help"}
    assert f"ofc-bot {command}" in section
    assert public <= set(re.findall(r"`(--[a-z-]+)", section))


# ------------------------------------------------------------------------------- ofc-bot play
def _play_paragraph() -> str:
    start = README.index("`ofc-bot play` options:")
    return README[start:README.index("Type moves", start)]


def test_ofc_bot_play_options_are_the_parsers() -> None:
    from bot.play import build_parser

    parser = build_parser()
    public = {o for a in parser._actions for o in a.option_strings
              if o.startswith("--") and a.help != "==SUPPRESS==" and o != "--help"}
    readme = set(re.findall(r"`(--[a-z-]+)", _play_paragraph()))
    assert readme == public


def test_ofc_bot_play_choices_and_defaults() -> None:
    from bot.play import build_parser

    args = build_parser().parse_args([])
    assert (args.variant, args.level, args.deck) == ("ofc", "normal", "four")
    assert Path(args.images) == Path("./play-images")
    by = {a.dest: a for a in build_parser()._actions}
    text = _play_paragraph()
    assert "--variant ofc|pineapple|chinese" in text and by["variant"].choices == (
        "ofc", "pineapple", "chinese")
    assert "--level\neasy|normal|strong" in text and tuple(by["level"].choices) == (
        "easy", "normal", "strong")
    assert "--deck four|two" in text and by["deck"].choices == ("four", "two")


@pytest.mark.parametrize(("variant", "bots", "ok"), [
    ("ofc", 0, False), ("ofc", 1, True), ("ofc", 3, True), ("ofc", 4, False),
    ("pineapple", 2, True), ("pineapple", 3, False), ("chinese", 3, True),
])
def test_ofc_bot_play_bots_1_to_3_pineapple_1_to_2(variant: str, bots: int, ok: bool) -> None:
    from engine.rules import Rules, RulesError

    if ok:
        Rules(variant=variant).check_players(bots + 1)  # what ofc-bot play checks
    else:
        from bot.play import main

        with pytest.raises(RulesError):
            Rules(variant=variant).check_players(bots + 1)
        assert main(["--variant", variant, "--bots", str(bots), "--no-images"]) == 2


@pytest.mark.parametrize(("variant", "cards", "ok"), [
    ("ofc", 13, True), ("ofc", 14, False), ("pineapple", 13, False), ("pineapple", 14, True),
    ("pineapple", 17, True), ("pineapple", 18, False), ("chinese", 13, False),
])
def test_ofc_bot_play_fantasyland_13_in_ofc_14_to_17_in_pineapple(
    variant: str, cards: int, ok: bool
) -> None:
    from engine.rules import Rules

    assert (Rules(variant=variant).fantasyland_cards_now(cards) == cards) is ok
    if not ok:
        from bot.play import main

        assert main(["--variant", variant, "--fantasyland", str(cards), "--no-images"]) == 2


@pytest.mark.parametrize(("variant", "options"), [
    ("ofc", ["strict_top=on", "scoring=1-4", "moon=on"]),
    ("ofc", ["STRICT_TOP=on", "Moon=ON"]),
    ("chinese", ["dragon=20"]),
])
def test_ofc_bot_play_option_takes_the_options_names_in_any_case(
    variant: str, options: list[str]
) -> None:
    from engine.rules import Rules

    Rules(variant=variant).with_text_options(options)


# ------------------------------------------------------------------------------- moves
@pytest.mark.parametrize("text", ["Ah", "ah", "AH", "A♥", "A♥\ufe0f", "\u200bAh", "\ufeffAh"])
def test_the_card_spellings_readme_gives(text: str) -> None:
    from engine.cards import parse_card, parse_cards

    assert str(parse_cards(text)[0]) == str(parse_card("Ah"))
    assert parse_cards("10h") == parse_cards("Th")


def test_the_row_words_readme_gives() -> None:
    from engine.notation import DISCARD, row_word

    assert [row_word(w) for w in ("top", "front", "middle", "mid", "bottom", "back")] == [
        0, 0, 1, 1, 2, 2]
    assert row_word("discard") == DISCARD


# ------------------------------------------------------------------------------- rules
def readme_rules_table() -> list[tuple[list[str], list[str], str]]:
    """(field names, their short names in parentheses, the default cell) per row."""
    out = []
    for first, default, _meaning in table_rows(section("Rules and table options")):
        fields = ticked(without_parens(first))
        shorts = [n for n in ticked(first) if n not in fields]
        out.append((fields, shorts, default))
    return out


def test_the_rules_table_names_every_option_and_its_short_name() -> None:
    from dataclasses import fields

    from engine.rules import NATURAL_NAMES, OPTION_ALIASES, OPTION_NAMES, Rules

    table_fields: set[str] = set()
    table_shorts: set[str] = set()
    for names, shorts, _ in readme_rules_table():
        table_fields.update(names)
        table_shorts.update(shorts)
    rule_fields = {f.name for f in fields(Rules)} - {"extra"}
    assert table_fields == rule_fields
    # every short name of /ofc options is either a field's own name or a listed alias
    short_to_field = {s: OPTION_ALIASES.get(s, s) for s in OPTION_NAMES}
    assert table_shorts == {s for s, f in short_to_field.items() if s != f} | {"dragon"}
    for names, shorts, _ in readme_rules_table():
        for name, short in zip(names, shorts, strict=False):
            if name == "naturals":
                assert {OPTION_ALIASES.get(s, s) for s in shorts} == set(NATURAL_NAMES)
            else:
                assert OPTION_ALIASES[short] == name


def _word(text: str) -> Any:
    text = text.strip().strip("`")
    if text in ("on", "off"):
        return text == "on"
    if text == "default":
        return None
    m = re.fullmatch(r"(\d+)(?: s)?", text)
    return int(m.group(1)) if m else text


def test_the_rules_defaults_are_the_engines() -> None:
    from engine.rules import Rules

    r = Rules()
    for names, _shorts, default in readme_rules_table():
        if names == ["scoring"]:
            assert default == "`1-6` (ofc/pineapple), `2-4` (chinese)"
            assert Rules().scoring == Rules(variant="pineapple").scoring == "1-6"
            assert Rules(variant="chinese").scoring == "2-4"
            continue
        if names == ["naturals"]:
            values = dict(re.findall(r"([a-z ]+?) (\d+)(?:,|$)", default.replace(", ", ",")))
            assert {k.strip(): int(v) for k, v in values.items()} == dict(r.naturals)
            continue
        parts = default.split(", ")
        assert len(parts) == len(names), names
        for name, part in zip(names, parts, strict=True):
            assert getattr(r, name) == _word(part), name


def test_the_variants_players() -> None:
    from engine.rules import Rules

    cell = table_rows(section("Rules and table options"))[0][2]
    assert cell == "`ofc` (2-4 players), `pineapple` (2-3), `chinese` (2-4)"
    assert [(Rules(variant=v).min_players, Rules(variant=v).max_players)
            for v in ("ofc", "pineapple", "chinese")] == [(2, 4), (2, 3), (2, 4)]


def test_the_scoring_methods() -> None:
    from engine.rules import Rules

    got = {s: (Rules(scoring=s).scoop_bonus, Rules(scoring=s).overall_bonus)  # type: ignore[arg-type]
           for s in ("1-6", "2-4", "1-4", "1-3")}
    assert got == {"1-6": (3, 0), "2-4": (0, 1), "1-4": (1, 0), "1-3": (0, 0)}


def test_stay_value_0_to_200_or_default_and_its_default_values() -> None:
    from engine.rules import RulesError, parse_stay_value
    from engine.solver import DEFAULT_STAY_VALUE

    assert parse_stay_value("default") is None
    assert parse_stay_value("0") == 0 and parse_stay_value("200") == 200
    with pytest.raises(RulesError):
        parse_stay_value("201")
    with pytest.raises(RulesError):
        parse_stay_value("1.5")
    assert dict(DEFAULT_STAY_VALUE) == {13: 10.0, 14: 14.5, 15: 21.2}
    assert "10 at 13 cards, 14.5 at 14, 21.2 at 15" in README


def test_options_timer_raises_the_set_clock_only_when_longer() -> None:
    from engine.rules import Rules

    assert Rules().changed({"timer": 90}).set_timer == 120
    assert Rules().changed({"timer": 150}).set_timer == 150
    assert Rules().changed({"timer": 150, "set_timer": 130}).set_timer == 130


@pytest.mark.parametrize(("option", "variant"), [
    ("chinese_surrender", "ofc"), ("dragon", "pineapple"), ("progressive", "ofc"),
    ("fantasyland", "chinese"),
])
def test_an_option_of_another_variant_is_refused(option: str, variant: str) -> None:
    from engine.rules import Rules, RulesError

    with pytest.raises(RulesError):
        Rules(variant=variant).changed({option: 1 if option != "fantasyland" else False})


def test_a_fantasyland_owed_when_progressive_goes_off_is_14_cards() -> None:
    from engine.rules import Rules

    off = Rules(variant="pineapple", progressive=False)
    assert [off.fantasyland_cards_now(n) for n in (14, 15, 16, 17)] == [14] * 4
    assert Rules(fantasyland=False).fantasyland_cards_now(13) == 0


# ------------------------------------------------------------------------------- the service
G, CH, ALICE, BOB, CAROL, DAVE = 10, 20, 101, 102, 103, 104


class Tick:
    """A clock that moves one second at each reading (joined_at differs per seat)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


async def _service() -> Any:
    from bot.service import TableService
    from bot.store import Store

    store = await Store.open(":memory:")
    return TableService(store, clock=Tick(), next_hand_delay=0.01), store


async def test_new_player_start_balance_1000_and_table_clock_60() -> None:
    svc, store = await _service()
    try:
        assert (await svc.balance(G, ALICE, "alice"))[0] == 1000
        t = await svc.new_table(G, CH, ALICE, "alice")
        assert (t.rules.timer, t.rules.set_timer, t.rules.away_timer) == (60, 120, 10)
    finally:
        await store.close()


@pytest.mark.parametrize(("timer", "set_timer"), [(30, 120), (60, 120), (100, 200)])
async def test_new_timer_sets_the_set_clock_to_twice_it_at_least_120(
    timer: int, set_timer: int
) -> None:
    svc, store = await _service()
    try:
        t = await svc.new_table(G, CH, ALICE, "alice", timer=timer)
        assert (t.rules.timer, t.rules.set_timer) == (timer, set_timer)
    finally:
        await store.close()


async def test_one_table_per_channel_and_stake_0_allows_buyin_0() -> None:
    from bot.service import ServiceError

    svc, store = await _service()
    try:
        with pytest.raises(ServiceError):
            await svc.new_table(G, CH, ALICE, "alice", stake=1, buyin=0)
        await svc.new_table(G, CH, ALICE, "alice", stake=0, buyin=0)
        with pytest.raises(ServiceError, match="already has a table"):
            await svc.new_table(G, CH, BOB, "bob")
    finally:
        await store.close()


async def test_when_the_host_leaves_the_human_seated_longest_hosts() -> None:
    """Seated longest, not the lowest seat: Dave takes Bob's freed seat 1 after Carol sat at
    seat 2, so Carol is the one seated longest when Alice leaves."""
    svc, store = await _service()
    try:
        await svc.new_table(G, CH, ALICE, "alice")
        await svc.join(G, CH, BOB, "bob")
        await svc.join(G, CH, CAROL, "carol")
        await svc.leave(CH, BOB)
        dave = await svc.join(G, CH, DAVE, "dave")
        t = svc.table_in_channel(CH)
        assert dave.seat_no == 1 and t.host_id == ALICE
        await svc.leave(CH, ALICE)
        assert t.host_id == CAROL
    finally:
        await store.close()


async def test_when_no_human_is_left_the_table_closes() -> None:
    from bot.service import ServiceError

    svc, store = await _service()
    try:
        await svc.new_table(G, CH, ALICE, "alice", bots=1)
        text = await svc.leave(CH, ALICE)
        assert "closed" in text
        with pytest.raises(ServiceError):
            svc.table_in_channel(CH)
    finally:
        await store.close()


async def test_history_count_is_1_to_25() -> None:
    from bot.service import ServiceError

    svc, store = await _service()
    try:
        await svc.new_table(G, CH, ALICE, "alice")
        for bad in (0, 26):
            with pytest.raises(ServiceError):
                await svc.history(CH, bad)
        assert await svc.history(CH, 25) == ([], False, 1)
    finally:
        await store.close()


# ------------------------------------------------------------------------------- numbers
def test_the_numbers_readme_quotes() -> None:
    import bot.service as service
    from bot.app import GIL_SWITCH_INTERVAL
    from bot.store.store import HISTORY_POINTS
    from bot.thinker import HANG_LIMIT
    from cogs.presenter import CLOSE_WAIT
    from engine import ai

    # Settings: stop waits at most 10 s for the tables' work, then 5 s for the edits
    assert service.SHUTDOWN_WAIT == 10.0 and CLOSE_WAIT == 5.0
    # Restarts: 2 s doubling up to 60 s; told after 3 failures; settlement 5 s, 5 failures
    assert (service.SAVE_RETRY, service.SAVE_RETRY_MAX) == (2.0, 60.0)
    waits, d = [], 0.0
    for _ in range(7):
        d = service._backoff(d)
        waits.append(d)
    assert waits == [2, 4, 8, 16, 32, 60, 60]
    assert service.SAVE_FAILURES_NOTICE == 3
    assert (service.SETTLE_RETRY, service.SETTLE_ATTEMPTS) == (5.0, 5)
    # Messages are best effort: a command waits at most 1 s for its messages
    assert service.NOTIFY_WAIT == 1.0
    # leaderboard periods; stats over the last 30 hands
    assert service.PERIODS == {"day": 24 * 3600.0, "week": 7 * 24 * 3600.0,
                               "month": 30 * 24 * 3600.0, "all": None}
    assert HISTORY_POINTS == 30
    # Performance / AI
    assert GIL_SWITCH_INTERVAL == 0.001
    assert HANG_LIMIT == 30.0
    assert ai.LEVELS == {"easy": 0.05, "normal": 0.3, "strong": 1.0}
    assert ai._CANDIDATES == {"easy": 8, "normal": 14, "strong": 24}
    assert (ai._FIRST_HALVING, ai._MAX_ROUNDS) == (32, 8192)
    assert callable(ai.warm_up)
    assert {"live_rows", "row_samples", "street_bias", "foul_extra", "lookahead_draws",
            "lookahead_moves", "lookahead_free", "first_halving",
            "opponent_foul_power"} <= set(ai.AIConfig.__dataclass_fields__)
    assert not math.isnan(GIL_SWITCH_INTERVAL)


def test_the_server_settings_defaults() -> None:
    from bot.store.models import ServerSettings

    s = ServerSettings(guild_id=1)
    assert (s.start_balance, s.default_timer) == (1000, 60)


# ------------------------------------------------------------------------------- texts
@pytest.mark.parametrize(("path", "text"), [
    ("bot/service.py", "That was already done"),
    ("cogs/views.py", '"Yes, surrender"'),
    ("cogs/views.py", 'label="Open my panel"'),
    ("renderer/table.py", '"FOULED"'),
    ("renderer/fonts.py", 'f"Player {number}"'),
    ("bot/app.py", 'log.info("stopped")'),
    ("bot/app.py", 'log.info("stopping: '),
    ("engine/board.py", 'f"the middle ({middle.describe()}) beats the bottom'),
])
def test_quoted_texts_exist(path: str, text: str) -> None:
    assert text in (ROOT / path).read_text(encoding="utf-8")


def test_the_panel_has_the_buttons_readme_names() -> None:
    views = (ROOT / "cogs" / "views.py").read_text(encoding="utf-8")
    labels = set(re.findall(r'"(Top|Middle|Bottom|Discard|Undo|Confirm)"', views))
    assert labels == {"Top", "Middle", "Bottom", "Discard", "Undo", "Confirm"}


# ------------------------------------------------------------------------------- files, flags
@pytest.mark.parametrize("path", sorted(set(re.findall(
    r"(?:\]\(|`)((?:docs|tests|engine|bot|bench|renderer)/[\w/.-]+\.(?:md|py|png|c))", README))))
def test_files_readme_names_exist(path: str) -> None:
    assert (ROOT / path).exists(), path


def _flags(module: str) -> set[str]:
    source = (ROOT / "bench" / f"{module}.py").read_text(encoding="utf-8")
    return set(re.findall(r'add_argument\(\s*"(--[a-z-]+)"', source))


def test_the_bench_flags_readme_uses_exist() -> None:
    used: dict[str, set[str]] = {}
    for m in re.finditer(r"python -m\s+bench\.(\w+)((?:[^`]|\n)*?)`", README):
        used.setdefault(m.group(1), set()).update(re.findall(r"(--[a-z-]+)", m.group(2)))
    used.setdefault("ai", set()).update({"--dump", "--paired", "--config", "--weights",
                                         "--fl-values", "--help"})
    used.setdefault("fit_value", set()).update({"--json", "--method", "--live", "--sims",
                                                 "--against", "--centered", "--hands",
                                                 "--rounds", "--ridge", "--config"})
    for module, flags in used.items():
        have = _flags(module) | {"--help"}
        assert flags <= have, (module, flags - have)


def test_leaderboard_ties_share_their_rank() -> None:
    from cogs.ofc import _ranks

    assert _ranks([9, 5, 5, 3]) == [1, 2, 2, 4]


def test_bench_ai_default_deals() -> None:
    """README: by default 60 deals at the normal level and 48 at strong."""
    source = (ROOT / "bench" / "ai.py").read_text(encoding="utf-8")
    assert "STRONG_DEALS = 48" in source
    assert "STRONG_DEALS if level == \"strong\" else 60" in source


# ------------------------------------------------------------------------------- more moves
def _req(cards: str, place: int, discard: int, is_set: bool = False) -> Any:
    from engine.cards import parse_cards
    from engine.hand import Requirement

    return Requirement(0, tuple(parse_cards(cards)), place, discard, (3, 5, 5), is_set)


def test_the_place_examples_parse_as_readme_says() -> None:
    from engine.cards import parse_cards
    from engine.notation import parse_move

    placed, dropped = parse_move("Ah Kd top 7c bottom 2s discard", _req("Ah Kd 7c 2s", 3, 1))
    assert [(str(c), r) for c, r in placed] == [("Ah", 0), ("Kd", 0), ("7c", 2)]
    assert list(dropped) == parse_cards("2s")
    # cards left over when exactly the discard count remains are discarded
    placed2, dropped2 = parse_move("Ah Kd top 7c bottom", _req("Ah Kd 7c 2s", 3, 1))
    assert (placed2, dropped2) == (placed, dropped)
    whole = "Qh Qd 2s top Kh Kd Ks 4c 3d middle 9c Tc Jc Qc Kc bottom"
    placed3, dropped3 = parse_move(whole, _req(whole.replace("top", "").replace(
        "middle", "").replace("bottom", ""), 13, 0, is_set=True))
    assert [r for _, r in placed3] == [0] * 3 + [1] * 5 + [2] * 5 and not dropped3


def test_the_foul_reason_readme_quotes() -> None:
    from engine.board import Board

    board = Board.parse("2c 3d 5h / 9c 9d Ah Kd Qs / 4c 4d As Ks Js")
    assert board.foul_reason() == "the middle (pair of nines) beats the bottom (pair of fours)"


# ------------------------------------------------------------------------------- images
def test_big_figures_are_compact_in_the_images() -> None:
    from renderer.common import compact

    assert (compact(123_000), compact(1_000_000)) == ("123K", "1.0M")


@pytest.mark.parametrize("name", ["\u3164", "\u200b\u200b", "\U00013000\U00013001"])
def test_a_name_with_nothing_visible_is_drawn_as_player_n(name: str) -> None:
    from renderer.fonts import MAX_MARKS, shown_name

    assert shown_name(name, 3) == "Player 3"
    assert MAX_MARKS == 3


@pytest.mark.parametrize("name", ["🦄🔥", "🔥 Sam", "\U0001f1eb\U0001f1f7", "#\ufe0f\u20e3"])
def test_emoji_are_drawn_in_colour_and_whole(name: str) -> None:
    from renderer.fonts import EMOJI, runs, shown_name, text_layers

    assert shown_name(name, 3) == name
    assert [run for run, key in runs(name, "bold") if key == EMOJI] == [name.split()[0]]
    assert text_layers(name, "bold", 24, "lm")[1] is not None
    assert all(key != EMOJI for _, key in runs("\u2660 \u2764 \u2600", "bold"))
    assert runs("\u2764\ufe0f", "bold") == (("\u2764\ufe0f", EMOJI),)


@pytest.mark.parametrize("name", ["สวัสดี", "राहुल", "தமிழ்", "አማርኛ"])
def test_thai_and_devanagari_names_are_drawn(name: str) -> None:
    from renderer.fonts import runs, shown_name

    assert shown_name(name, 3) == name
    assert len(runs(name, "bold")) == 1 and runs(name, "bold")[0][1] != "bold"


# ------------------------------------------------------------------------------- database
def test_a_file_that_is_not_a_database_stops_the_start(
    keep_logging: None, clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.__main__ import main

    (clean_env / "notes.txt").write_text("not a database\n" * 200)
    monkeypatch.setenv("DISCORD_TOKEN", "not-used")
    monkeypatch.setenv("OFC_DATABASE", str(clean_env / "notes.txt"))
    assert main([]) == 2
    assert "OFC_DATABASE" in capsys.readouterr().err


def test_a_second_bot_on_the_same_database_stops_and_names_the_holder(
    keep_logging: None, clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from bot.__main__ import main
    from bot.instance import InstanceLock

    db = clean_env / "ofc.sqlite3"
    holder = InstanceLock(str(db))
    holder.acquire()
    try:
        assert (clean_env / "ofc.sqlite3.lock").exists()
        monkeypatch.setenv("DISCORD_TOKEN", "not-used")
        monkeypatch.setenv("OFC_DATABASE", str(db))
        assert main([]) == 2
        assert f"pid {os.getpid()}" in capsys.readouterr().err
    finally:
        holder.release()


def test_the_contents_links_to_every_section() -> None:
    headings = re.findall(r"^## (.+)$", README, re.M)
    links = re.findall(r"^- \[([^\]]+)\]\(#([a-z-]+)\)$", section("Contents"), re.M)
    assert [t for t, _ in links] == [h for h in headings if h != "Contents"]
    for title, anchor in links:
        assert anchor == re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


# ------------------------------------------------------------------------------- logging, signals
def test_library_logs_never_go_below_info(keep_logging: None) -> None:
    import logging

    from bot.__main__ import setup_logging

    setup_logging("DEBUG")
    assert logging.getLogger("ofc.service").getEffectiveLevel() == logging.DEBUG
    for lib in ("discord", "discord.http", "aiosqlite"):
        assert logging.getLogger(lib).getEffectiveLevel() >= logging.INFO, lib


def test_sigterm_stops_as_ctrl_c_does() -> None:
    import signal

    from bot.__main__ import _as_ctrl_c, _stop_on_sigterm

    previous = _stop_on_sigterm()
    try:
        assert signal.getsignal(signal.SIGTERM) is _as_ctrl_c
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def test_the_database_path_expands_the_home_folder(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.settings import Settings

    monkeypatch.setenv("HOME", str(clean_env))
    monkeypatch.setenv("OFC_DATABASE", "~/ofc.sqlite3")
    assert Path(Settings.from_env(env_file=None).database) == clean_env / "ofc.sqlite3"


# ------------------------------------------------------------------------------- architecture
def test_the_hand_has_verify_can_and_the_action_and_round_trips() -> None:
    from engine.hand import Hand

    for action in ("place", "declare", "surrender"):
        for name in (f"verify_{action}", f"can_{action}", action):
            assert callable(getattr(Hand, name)), name
    for name in ("to_json", "from_json", "replay"):
        assert callable(getattr(Hand, name)), name


def test_the_engine_imports_no_discord_pil_aiosqlite_or_asyncio() -> None:
    for path in (ROOT / "engine").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        for lib in ("discord", "PIL", "aiosqlite", "asyncio"):
            assert not re.search(rf"^\s*(import|from) {lib}\b", source, re.M), (path.name, lib)
