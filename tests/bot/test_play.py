"""``ofc-bot play``: the terminal game driven with piped input."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.play import main, solve_main
from engine import Card, Hand, Rules

FAST = ["--sims", "12", "--no-images"]


def run(argv: list[str], lines: list[str]) -> tuple[int, str]:
    stdin = io.StringIO("".join(line + "\n" for line in lines))
    stdout = io.StringIO()
    code = main(argv, stdin=stdin, stdout=stdout)
    return code, stdout.getvalue()


def human_cards(variant: str, seed: str, bots: int = 1) -> list[Card]:
    """The cards seat 0 (the human, first to act) is dealt in hand 1, street by street."""
    names = ["You"] + [f"Bot {i}" for i in range(1, bots + 1)]
    hand = Hand(Rules(variant=variant), names, button=bots, seed=f"{seed}/1")
    n = bots + 1
    deck = hand._deck
    cards = list(deck[:5])
    pos = 5 * n
    while len(cards) < 13:
        cards.append(deck[pos])
        pos += n
    return cards


def test_full_ofc_hand_with_errors_and_showdown() -> None:
    mine = human_cards("ofc", "t1")
    c = [str(x) for x in mine]
    stranger = next(str(x) for x in Hand(Rules(), ["a", "b"], seed=0)._deck if x not in mine)
    lines = [
        "help",
        "Zz top",                                              # not a card
        f"{c[0]} {c[1]} top {c[2]} middel",                    # not a row
        f"{c[0]} {c[1]} {c[2]} top {c[3]} middle {c[4]} bottom",
        f"{c[5]} top",                                         # the top row is full
        f"{stranger} bottom",                                  # not in the hand
        f"{c[5]} middle",
    ]
    rows = ["middle", "bottom"] * 4
    for card, row in zip(c[6:], rows[1:], strict=False):
        lines.append(f"{card} {row}")
    code, out = run(["--variant", "ofc", "--seed", "t1", *FAST], lines)
    assert code == 0
    assert "'Zz' is not a card" in out
    assert "'middel' is not a row: use top, middle or bottom" in out
    assert "The top row is full" in out
    assert "is not in your hand" in out
    assert "Showdown, hand 1" in out
    assert "You vs Bot 1:" in out and "Points" in out
    assert out.count("Your cards:") >= 13


def test_pineapple_with_auto_every_decision() -> None:
    code, out = run(["--variant", "pineapple", "--seed", "t2", *FAST], ["auto"] * 5)
    assert code == 0
    assert out.count("AI:") == 5 and out.count("You play") == 5
    assert "Showdown, hand 1" in out and "Bot 1 vs" not in out  # pairs are named from seat 0
    assert "You vs Bot 1:" in out


def test_chinese_with_auto_and_two_bots() -> None:
    code, out = run(["--variant", "chinese", "--bots", "2", "--seed", "t3", *FAST], ["auto"])
    assert code == 0
    assert "sets its hand face down" in out
    assert "Showdown, hand 1" in out and "Bot 1 vs Bot 2:" in out


def test_several_hands_carry_on_and_quit() -> None:
    code, out = run(["--variant", "pineapple", "--hands", "2", "--seed", "t4", *FAST],
                    ["auto"] * 5 + ["hint", "board", "quit"])
    assert code == 0
    assert "Hand 2 of 2" in out and "Bye." in out
    # 'hint' shows the AI's move but does not play it
    assert out.count("AI:") == 6 and out.count("You play") == 5


def test_review_the_last_hand_by_command_and_after_every_hand() -> None:
    """``review`` (at the next hand's prompt) and ``--review`` (after each showdown): the
    human's decisions against the AI's, round by round; before any hand has finished,
    ``review`` says there is none."""
    code, out = run(["--variant", "pineapple", "--hands", "2", "--seed", "t9", *FAST],
                    ["review", "auto", "auto", "auto", "auto", "auto", "review", "quit"])
    assert code == 0
    assert "No hand has finished yet: 'review' looks at the last one." in out
    review = out.split("Your play in hand 1, against the AI's")[1]
    assert [int(n) for n in re.findall(r"^  Round (\d) · ", review, re.M)] == [1, 2, 3, 4, 5]
    assert review.count("  you ") == 5
    assert "over 12 simulated finishes" in review  # (the tests' small number of futures)
    code, out = run(["--variant", "ofc", "--seed", "t9", "--review", *FAST], ["auto"] * 9)
    assert code == 0
    review = out.split("Showdown, hand 1")[1].split("Your play in hand 1, against the AI's")[1]
    assert [int(n) for n in re.findall(r"^  Round (\d) · ", review, re.M)] == list(range(1, 10))


def test_end_of_input_quits() -> None:
    code, out = run(["--seed", "t5", *FAST], [])
    assert code == 0 and "Bye." in out


def test_surrender_and_declare_errors() -> None:
    code, out = run(["--variant", "ofc", "--seed", "t6", *FAST], ["declare dragon", "surrender"])
    assert code == 0
    assert "Naturals are declared in chinese poker only" in out
    assert "You surrender this hand." in out and "surrendered" in out


def test_bad_arguments(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                       tmp_path: Path) -> None:
    code, out = run(["--variant", "pineapple", "--bots", "3", *FAST], [])
    assert code == 2 and "pineapple is played by 2 to 3 players" in capsys.readouterr().err
    assert out == ""  # option errors go to stderr, like argparse's own
    code, _ = run(["--level", "godlike"], [])
    assert code == 2
    for name in ("", "  ", "Bot 1"):
        code, _ = run(["--name", name, *FAST], [])
        assert code == 2 and "--name" in capsys.readouterr().err
    monkeypatch.setenv("OFC_PLAY_SIMS", "abc")
    code, _ = run(["--no-images"], [])
    assert code == 2 and "OFC_PLAY_SIMS must be a whole number" in capsys.readouterr().err
    code, _ = run(["--sims", "0", "--no-images"], [])
    assert code == 2 and "--sims must be at least 1" in capsys.readouterr().err
    monkeypatch.delenv("OFC_PLAY_SIMS")
    a_file = tmp_path / "afile"
    a_file.write_text("")
    code, out = run(["--images", str(a_file), "--sims", "12"], ["quit"])
    assert code == 0 and "No images: cannot write to" in out and "Bye." in out


def test_ctrl_c_says_bye() -> None:
    class Interrupted(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise KeyboardInterrupt

    stdout = io.StringIO()
    assert main(FAST, stdin=Interrupted(), stdout=stdout) == 0
    assert stdout.getvalue().rstrip().endswith("Bye.")


def test_images_when_the_renderer_is_there(tmp_path: Path) -> None:
    pytest.importorskip("renderer")
    folder = tmp_path / "imgs"
    code, out = run(["--variant", "chinese", "--seed", "t/7", "--sims", "12", "--images",
                     str(folder)], ["auto"])
    assert code == 0
    if "No images" in out:
        pytest.skip("renderer not usable yet")
    files = sorted(p.name for p in folder.iterdir())
    assert all(f.startswith("t_7-hand01-") for f in files)  # named after the seed
    assert any(f.endswith("table.png") for f in files)
    assert any(f.endswith("showdown.png") for f in files)
    assert (folder / files[-1]).read_bytes()[:4] == b"\x89PNG"


def test_the_two_colour_deck(tmp_path: Path) -> None:
    """``--deck two``: diamonds red and clubs white in the terminal, the classic deck in the
    images (the same deal draws other pixels)."""
    pytest.importorskip("renderer")
    shown = {}
    for deck in ("four", "two"):
        folder = tmp_path / deck
        code, out = run(["--variant", "chinese", "--seed", "d1", "--sims", "12", "--deck", deck,
                         "--images", str(folder)], ["auto"])
        assert code == 0
        shown[deck] = next(folder.glob("*showdown.png")).read_bytes()
    assert shown["four"] != shown["two"]
    from bot.play import TWO_COLOUR_STYLE, card_markup
    from engine import Card

    assert card_markup(Card("Ad"), styles=TWO_COLOUR_STYLE) == "[bold red]A♦[/]"
    assert card_markup(Card("Ad")) == "[bold blue]A♦[/]"


def test_in_fantasyland_the_human_sets_before_the_bots_play() -> None:
    """The others play "at the same time" (RULES.md): the terminal asks for the fantasyland
    set first; it used to let every bot play its whole hand before, so the human set 14
    cards looking at their finished boards."""
    code, out = run(["--variant", "pineapple", "--fantasyland", "14", "--bots", "2",
                     "--seed", "fl-first", *FAST], ["auto"])
    assert code == 0
    asked = out.index("Set your 13 cards and discard 1")
    assert " places " not in out[:asked]  # no bot has played a card yet
    assert " places " in out[asked:]


def test_fantasyland_practice_and_carry_over(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["--variant", "pineapple", "--fantasyland", "16", "--hands", "2",
                     "--seed", "t8", *FAST], ["auto"] * 6)
    assert code == 0
    assert "Set your 13 cards and discard 3" in out
    assert "Hand 2 of 2" in out
    first = out[: out.index("Hand 2 of 2")]
    if "You go to fantasyland" in first:  # the set stayed: hand 2 is fantasyland again
        second = out[out.index("Hand 2 of 2"):]
        assert "Set your 13 cards" in second
    code, out = run(["--variant", "chinese", "--fantasyland", "14", *FAST], [])
    assert code == 2 and "has none" in capsys.readouterr().err
    for bad in (["--variant", "pineapple", "--fantasyland", "13"],  # pineapple deals 14+
                ["--variant", "pineapple", "--fantasyland", "15", "--option", "progressive=off"],
                ["--variant", "ofc", "--fantasyland", "14"],
                ["--fantasyland", "13", "--option", "fantasyland=off"]):
        code, out = run([*bad, *FAST], [])
        assert code == 2 and "--fantasyland: ofc deals 13" in capsys.readouterr().err


def test_table_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["--variant", "chinese", "--option", "surrender=5", "--option", "dragon=0",
                     "--seed", "t9", *FAST], ["surrender", "quit"])
    assert code == 0 and "surrender −5" in out and "Bot 1           +5" in out
    assert "(surrender)" not in out  # the pair says it once
    for bad, says in ((["--option", "strict_top"], "is not an option"),
                      (["--option", "colour=red"], "is not an option"),
                      (["--option", "strict_top=maybe"], "strict_top is on or off"),
                      (["--option", "moon_points=-3"], "moon_points needs a whole number"),
                      (["--option", "scoring=1-9"], "Unknown scoring method"),
                      (["--option", "variant=chinese"], "is not an option"),
                      (["--option", "surrender=2"], "option of chinese poker; this table plays ofc"),
                      (["--variant", "chinese", "--option", "progressive=off"],
                       "fantasyland option")):
        code, out = run([*bad, *FAST], [])
        assert code == 2 and says in capsys.readouterr().err


def test_text_options_match_the_table_command() -> None:
    from engine import Rules

    rules = Rules(variant="chinese").with_text_options(
        ["strict_top=on", "scoring = 1-4", "bonuses=off", "six_pairs=0", "dragon=26",
         "timer=30", "moon=yes", "moon_points=10"])
    assert rules == Rules(variant="chinese", strict_top=True, scoring="1-4",
                          chinese_bonuses=False, timer=30, shoot_the_moon=True,
                          shoot_the_moon_points=10,
                          naturals=(("three straights", 3), ("three flushes", 3), ("dragon", 26)))


def test_a_terminal_that_is_not_utf8() -> None:
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="ascii")
    stdin = io.StringIO("Zz top\nquit\n")
    assert main(FAST, stdin=stdin, stdout=stdout) == 0
    stdout.flush()
    text = raw.getvalue().decode("ascii")
    assert "OFC Table - ofc" in text and "Bye." in text  # '·' shown as '-', no crash
    # the card error's hint names the suit letters only, not "or ????"
    assert "'Zz' is not a card" in text and "(c, d, h, s)" in text and "????" not in text
    # the cards are written with suit letters, the empty slots with dots
    assert re.search(r"Your cards: ([2-9TJQKA][cdhs] ){4}[2-9TJQKA][cdhs]", text), text
    assert "top     .. .. .." in text


def test_an_ascii_terminal_gets_plain_stand_ins_not_question_marks() -> None:
    """Numbers are signed as in Discord (``−5``, a real minus sign) where the terminal shows
    it; an ASCII one gets ``-5`` (and ``-`` for ``·``), never '?' nor an error."""
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="ascii")
    stdin = io.StringIO("surrender\nquit\n")
    assert main(["--variant", "chinese", "--option", "surrender=5", "--seed", "t9", *FAST],
                stdin=stdin, stdout=stdout) == 0
    stdout.flush()
    text = raw.getvalue().decode("ascii")
    assert "surrender -5" in text and re.search(r"You +-5 +total -5", text), text
    assert "OFC Table - chinese - you against 1 bot" in text


def test_solve_on_an_ascii_terminal() -> None:
    """Was a defect (fixed): ``ofc-bot solve`` on a terminal that cannot show '·' stopped with
    a UnicodeEncodeError after solving; it now writes '-' for it."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    assert solve_main("Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc 2c 8c".split(), stdout=out) == 0
    out.flush()
    text = raw.getvalue().decode("ascii")
    assert "top Qs Qh Qd (three queens) - middle Ks Kh Kd 3d 2c (three kings) - bottom" in text


def test_huge_option_numbers_are_refused_not_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    """Python refuses to convert a number of more than 4,300 digits (ValueError): an option's
    value that long was a traceback; it is an option error, the value cut in the message."""
    huge = "9" * 4301
    for bad, says in ((["--option", f"dragon={huge}"], "dragon needs a whole number"),
                      (["--option", f"timer={huge}"], "timer needs a whole number"),
                      (["--variant", "pineapple", "--option", f"stay_value={huge}"],
                       "stay_value is a whole number")):
        code, _ = run([*bad, *FAST], [])
        err = capsys.readouterr().err
        assert code == 2 and says in err and len(err) < 600, err[:200]
    from engine.rules import RulesError, parse_stay_value

    with pytest.raises(RulesError, match="from 0 to"):
        parse_stay_value("1" + "0" * 30)


def test_bytes_the_terminal_cannot_decode_are_a_bad_move_not_a_crash() -> None:
    """A Latin-1 'é' typed into a UTF-8 terminal: the line reads with '?' in its place."""
    stdin = io.TextIOWrapper(io.BytesIO(b"\xe9\nquit\n"), encoding="utf-8")
    stdout = io.StringIO()
    assert main(FAST, stdin=stdin, stdout=stdout) == 0
    out = stdout.getvalue()
    assert "Bye." in out and "\ufffd" in out  # the line was read and answered


def test_awkward_image_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``~someone`` with no such user (RuntimeError from expanduser) plays on without images;
    a folder whose name reads as rich markup is written and named as typed."""
    pytest.importorskip("renderer")
    code, out = run(["--images", "~no_such_user_here/x", "--sims", "12"], ["quit"])
    assert code == 0 and "No images: cannot write to ~no_such_user_here/x" in out
    monkeypatch.chdir(tmp_path)
    code, out = run(["--images", "im[/]", "--seed", "m1", "--sims", "12"], ["quit"])
    assert code == 0 and "could not draw" not in out
    assert "im[/]/m1-hand01-001-table.png" in out
    assert (tmp_path / "im[/]" / "m1-hand01-001-table.png").read_bytes()[:4] == b"\x89PNG"


def test_ctrl_c_while_loading_says_bye(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the first second (matplotlib loading for the images) was a traceback."""
    import bot.play

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(bot.play, "load_renderer", interrupted)
    stdout = io.StringIO()
    assert main(["--sims", "12"], stdin=io.StringIO(""), stdout=stdout) == 0
    assert stdout.getvalue().rstrip().endswith("Bye.")


def test_a_set_that_fouls_asks_for_foul_at_the_end() -> None:
    from engine import evaluate, parse_cards
    from engine.autoplay import greedy_set

    # the human's 13 cards of seed f1, as the game shows them
    code, out = run(["--variant", "chinese", "--seed", "f1", *FAST], ["quit"])
    line = next(x for x in out.splitlines() if "Your cards:" in x)
    clean, _ = greedy_set(parse_cards(" ".join(re.findall(r"[2-9TJQKA][♠♥♦♣]", line))))
    assert evaluate(clean.bottom) > evaluate(clean.middle)
    move = (f"{' '.join(map(str, clean.top))} top {' '.join(map(str, clean.bottom))} middle "
            f"{' '.join(map(str, clean.middle))} bottom")
    code, out = run(["--variant", "chinese", "--seed", "f1", *FAST], [move, move + " foul"])
    assert code == 0
    assert "This board fouls: the " in out and "beats the bottom" in out and "'foul' at the end" in out
    assert "You FOUL" in out  # played, as confirmed


def test_the_table_is_drawn_at_every_street_when_every_opponent_is_in_fantasyland(
    tmp_path: Path,
) -> None:
    """No one acts between the human's streets then: the table (and its image) is still
    drawn before each of them."""
    from rich.console import Console

    from bot.play import Game, load_renderer

    renderer, _ = load_renderer()
    images = tmp_path if renderer is not None else None
    stdin = io.StringIO("auto\n" * 5)
    out = io.StringIO()
    game = Game(Rules(variant="pineapple"), "You", 1, "easy", "fl", 1, images, 12, stdin,
                Console(file=out, highlight=False, soft_wrap=True), 0, True)
    game.renderer = renderer
    game.hand_no = 1
    hand = Hand(game.rules, game.names, 1, (0, 14), seed="fl/1")
    game.play_hand(hand)
    text = out.getvalue()
    assert "sets its hand face down" in text
    for street in range(1, 6):
        assert f"street {street}/5" in text, street
    if renderer is not None:
        assert len(list(tmp_path.glob("fl-hand01-*-table.png"))) == 5


def test_quit_and_help_words_with_more_after_them_are_moves() -> None:
    code, out = run(["--seed", "t5", *FAST], ["Q d 2h top", "h 2c", "quit"])
    assert code == 0 and "Bye." in out
    assert "'Q' is not a card" in out and "'h' is not a card" in out
    assert "Placing cards" not in out  # the help was not shown


def test_closed_input_and_output(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A closed standard input is an ended one; an output that cannot be written ends the
    game with one line on stderr and status 1, not a traceback."""
    monkeypatch.setattr("sys.stdin", None)
    out = io.StringIO()
    assert main(["--seed", "t5", *FAST], stdout=out) == 0 and "Bye." in out.getvalue()

    class Full(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

    assert main(["--seed", "t5", *FAST], stdin=io.StringIO(), stdout=Full()) == 1
    assert "cannot write the game's output" in capsys.readouterr().err


def test_an_image_folder_it_cannot_write_to(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("renderer")

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.chdir(tmp_path)
    with monkeypatch.context() as m:
        m.setattr("bot.play.tempfile.TemporaryFile", refused)
        code, out = run(["--images", "pics", "--seed", "w1", "--sims", "12"], ["quit"])
    assert code == 0 and "No images: cannot write to pics (Permission denied)" in out
    # a folder that fails later (removed, full): one message, then the game plays on without
    monkeypatch.setattr(Path, "write_bytes", refused)
    code, out = run(["--images", "pics", "--seed", "w1", "--sims", "12"], ["auto"] * 3)
    assert code == 0 and out.count("no more images") == 1 and "image:" not in out


def test_names_ending_in_a_backslash_are_shown_as_typed() -> None:
    from bot.play import escape

    code, out = run(["--name", "me\\", "--seed", "t5", *FAST], ["surrender"])
    assert code == 0 and "me\\ vs Bot 1" in out and "me\\\\" not in out
    from rich.console import Console

    for name in ("a\\", "b\\\\", "c[b]\\", "[/]", "plain"):
        e = escape(name)
        for markup, text in ((f"[bold]{e}[/]", name), (f"{e} x", f"{name} x"), (e, name),
                             (f"[bold]{e}[/] y", f"{name} y")):
            shown = io.StringIO()
            Console(file=shown, highlight=False).print(markup)
            assert shown.getvalue() == text + "\n", (name, markup)


def test_ofc_bot_solve(capsys: pytest.CaptureFixture[str]) -> None:
    """``ofc-bot solve CARDS...``: the best setting as ``/ofc suggest cards:`` says it; a mistake goes
    to stderr with exit status 2."""
    from bot.__main__ import main as ofc_bot

    assert ofc_bot(["solve", "Qh", "Qd", "Qs", "Kh Kd Ks", "4c 3d 9c Tc Jc 2c 8c 7d 6s"]) == 0
    assert capsys.readouterr().out.split("\n") == [
        "The best setting of 15 cards (pineapple, exact):",
        "  top Qs Qh Qd (three queens) · middle Ks Kh Kd 7d 6s (three kings) · bottom Jc Tc 9c "
        "8c 4c (jack-high flush)",
        "  discard 3d 2c",
        "  Royalties 26 (top 20, middle 2, bottom 4); stays in fantasyland (14 cards next, "
        "counted +14.5): worth 40.5.",
        "  As a move: Qs Qh Qd top, Ks Kh Kd 7d 6s middle, Jc Tc 9c 8c 4c bottom, 3d 2c discard",
        ""]
    assert ofc_bot(["solve", "--option", "stay_value=30", *"Qh Qd Qs Kh Kd Ks 4c 3d 9c Tc Jc "
                    "2c 8c 7d 6s".split()]) == 0
    assert "counted +30): worth 56." in capsys.readouterr().out
    for argv, error in ((["Qh", "Qd", "Zz"], "'Zz' is not a card"),
                        (["--variant", "ofc", "Qh", "Qd"], "An ofc fantasyland hand is 13 cards"),
                        (["--option", "moon=maybe", "Qh"], "moon")):
        assert ofc_bot(["solve", *argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith("ofc-bot solve: ")
        assert error in captured.err, captured.err
    assert ofc_bot(["--help"]) == 0
    assert "ofc-bot solve CARDS..." in capsys.readouterr().out
