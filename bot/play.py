"""``ofc-bot play``: a game in the terminal against AI players (no Discord needed).

Same engine, rules and move syntax as ``/ofc place`` (``engine.notation``); boards are drawn
with colour (rich) and, when the renderer is importable, the table and showdown images are
written to a folder.

    ofc-bot play --variant pineapple --bots 2 --level strong --hands 3
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import random
import re
import secrets
import shlex
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape as _escape

from engine import Board, Card, CardError, Hand, IllegalAction, Rules, next_button
from engine.ai import LEVELS, choose_move, choose_natural, suggest
from engine.autoplay import foul_confirmed, foul_warning
from engine.board import ROW_SIZES, ROWS
from engine.cards import SUIT_SYMBOLS, parse_cards, sort_cards
from engine.evaluator import describe_value
from engine.hand import Requirement
from engine.notation import format_move, parse_move, sentence, signed
from engine.review import COMPARE_SIMULATIONS, describe_review, review
from engine.rules import RulesError
from engine.solver import check_fantasyland_cards, describe_solution, solve_fantasyland

SIMS_ENV = "OFC_PLAY_SIMS"
"""Environment variable: a fixed number of simulations per bot decision (tests)."""

SUIT_STYLE = {"s": "bold white", "h": "bold red", "d": "bold blue", "c": "bold green"}
"""Four-colour deck, as in the images."""

TWO_COLOUR_STYLE = {"s": "bold white", "h": "bold red", "d": "bold red", "c": "bold white"}
"""``--deck two``: the classic deck (black suits white on a dark terminal)."""

HELP = """\
[bold]Placing cards[/bold]: write the cards, then the row they go to.
  [cyan]Ah Kd top 7c bottom[/cyan]              rows: top/front/t, middle/mid/m, bottom/back/b
  [cyan]Ah Kd top 7c bottom 2s discard[/cyan]   pineapple: discard with discard/d
  [cyan]Qh Qd 2s top Kh Kd Ks 4c 3d middle 9c Tc Jc Qc Kc bottom[/cyan]
  The cards left over are discarded when they are exactly the cards to discard.
  With one card to place, the row alone is enough: [cyan]top[/cyan].
  Cards: Ah, ah, 10h, Th, A♥ all work.
[bold]Commands[/bold]
  [cyan]auto[/cyan]               let the AI choose (and play) your move
  [cyan]hint[/cyan]               show what the AI would play, without playing it
  [cyan]board[/cyan]              draw the table again
  [cyan]review[/cyan]             your play in the last hand against the AI's
  [cyan]surrender[/cyan]          give up this hand (scores as a foul; chinese: pays the surrender)
  [cyan]declare <natural>[/cyan]  chinese: declare six pairs, three straights, three flushes or dragon
  [cyan]help[/cyan]               this text
  [cyan]quit[/cyan]               stop playing
"""


def escape(text: str) -> str:
    """``text`` as rich markup, shown as typed whatever follows it: rich's own escape leaves an
    even run of trailing backslashes to escape a tag after it, or doubles one that shows as
    two when no tag follows; here they are doubled and closed by an empty tag."""
    stripped = text.rstrip("\\")
    tail = len(text) - len(stripped)
    return _escape(stripped) + ("\\" * (2 * tail) + "[dim][/dim]" if tail else "")


class Quit(Exception):
    """The player typed quit (or the input ended)."""


def card_markup(card: Card, highlight: bool = False,
                styles: dict[str, str] = SUIT_STYLE, suits: Mapping[str, str] = SUIT_SYMBOLS) -> str:
    text = f"{card.rank_char}{suits[card.suit]}"
    style = styles[card.suit]
    if highlight:
        style += " underline"
    return f"[{style}]{text}[/]"


def cards_markup(cards: Sequence[Card], highlight: Sequence[Card] = (),
                 styles: dict[str, str] = SUIT_STYLE,
                 suits: Mapping[str, str] = SUIT_SYMBOLS) -> str:
    return " ".join(card_markup(c, c in highlight, styles, suits) for c in cards)


LETTER_SUITS = {suit: suit for suit in SUIT_SYMBOLS}
"""Suits as letters (Ah), for an output that cannot show ♠♥♦♣."""


class Game:
    """One terminal session: the human in seat 0, bots in the other seats."""

    def __init__(
        self,
        rules: Rules,
        name: str,
        bots: int,
        level: str,
        seed: str,
        hands: int,
        images: Path | None,
        sims: int | None,
        stdin: TextIO,
        console: Console,
        fantasyland: int = 0,
        four_colour: bool = True,
        image_prefix: str | None = None,
        review_each: bool = False,
    ) -> None:
        """``image_prefix`` names the images (default: after the seed; a random seed must
        not be written where the player sees it before the game ends: it gives the deck)."""
        self.rules = rules
        # a seed is any text; a leading '-' would read as an option in a shell
        self.image_prefix = (re.sub(r"[^\w.-]", "_", image_prefix or seed)[:40].lstrip("-")
                             or "game")
        self.four_colour = four_colour
        self.styles = SUIT_STYLE if four_colour else TWO_COLOUR_STYLE
        self.names = [name] + [f"Bot {i}" for i in range(1, bots + 1)]
        self.level = level
        self.seed = seed
        self.hands = hands
        self.images = images
        self.sims = sims
        self.stdin = stdin
        self.out = console
        self.totals = [0] * len(self.names)
        self.renderer: Any = None
        self.hand_no = 0
        self.image_no = 0
        self.echo = not _isatty(stdin)
        self.line_editing = False
        """Read with ``input()`` and ``readline`` (the terminal game: stdin and stdout are the
        process's own, both terminals, and ``readline`` exists, as on Linux and macOS)."""
        if stdin is sys.stdin and _isatty(stdin) and _isatty(sys.stdout) \
                and console.file is sys.stdout:
            try:
                import readline  # noqa: F401  (input() then edits lines)

                self.line_editing = True
            except ImportError:  # (Windows: the console edits lines itself)
                pass
        self.start_fantasyland = fantasyland
        self.review_each = review_each
        """Review the human's play after each hand (``--review``)."""
        self.last_hand: Hand | None = None
        """The last finished hand (the ``review`` command's)."""
        # an output that cannot show ♠♥♦♣ (an ASCII terminal) gets Ah, and '.' for an empty slot
        unicode = _can_show(console, "♠♥♦♣·")
        self.suits: Mapping[str, str] = SUIT_SYMBOLS if unicode else LETTER_SUITS
        self.dot = "·" if unicode else "."

    # -- output ------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        self.out.print(text, highlight=False)

    def error(self, text: str) -> None:
        if self.suits is LETTER_SUITS:  # (a terminal that cannot show them: no "or ????")
            text = text.replace(" or ♣♦♥♠", "")
        self.out.print(f"[bold red]✗ {escape(sentence(text))}[/]", highlight=False)

    def board_lines(self, hand: Hand, seat: int, viewer: int) -> list[str]:
        board = hand.boards[seat]
        hidden = hand.hidden(seat) and seat != viewer
        lines = []
        if hidden:
            count = _hidden_cards(hand, seat)
            what = "fantasyland, set face down" if hand.fantasyland[seat] else "set face down"
            lines.append(f"    [dim]{what} ({count} cards)[/]"
                         if hand.fantasyland[seat] or count else "    [dim]setting…[/]")
            return lines
        last = hand.last_placed[seat]
        done = board.is_complete
        for r, (row_name, row) in enumerate(zip(ROWS, board.rows, strict=True)):
            slots = [f"[dim]{self.dot * 2}[/]"] * (ROW_SIZES[r] - len(row))
            text = " ".join([card_markup(c, c in last, self.styles, self.suits) for c in row]
                            + slots)
            note = ""
            if len(row) == ROW_SIZES[r]:
                note = f"[dim]{describe_value(_row_value(row))}[/]"
            lines.append(f"    {row_name:<7} {text}   {note}")
        if done and hand.rules.variant != "chinese":
            if board.is_foul(hand.rules):
                lines.append("    [bold red]FOUL[/]")
            else:
                roy = board.royalties(hand.rules)
                if roy:
                    lines.append(f"    [yellow]royalties {roy}[/]")
        return lines

    def draw_table(self, hand: Hand, viewer: int = 0) -> None:
        title = (f"[bold]Hand {self.hand_no}/{self.hands}[/] · {self.rules.variant} · "
                 f"street {min(hand.street, hand.streets)}/{hand.streets}")
        self.say()
        self.say(title)
        for seat in range(hand.n):
            tags = []
            if seat == hand.button:
                tags.append("button")
            if hand.fantasyland[seat]:
                tags.append(f"fantasyland {hand.fantasyland[seat]}")
            if hand.surrendered[seat]:
                tags.append("surrendered")
            elif hand.done[seat]:
                tags.append("done")
            elif seat in hand.to_act():
                tags.append("to act")
            label = escape(self.names[seat]) + (
                " (you)" if seat == viewer and self.names[seat] != "You" else "")
            tag_text = f" [dim]({', '.join(tags)})[/]" if tags else ""
            self.say(f"  [bold]{label}[/]{tag_text}")
            for line in self.board_lines(hand, seat, viewer):
                self.say(line)
        discards = hand.discards[viewer]
        if discards:
            self.say(f"  [dim]your discards:[/] {cards_markup(discards, styles=self.styles, suits=self.suits)}")

    # -- images ----------------------------------------------------------------------------------
    def write_image(self, kind: str, data: bytes) -> None:
        if self.images is None:
            return
        self.image_no += 1
        path = self.images / f"{self.image_prefix}-hand{self.hand_no:02d}-{self.image_no:03d}-{kind}.png"
        try:
            path.write_bytes(data)
        except OSError as exc:  # the folder went away or filled up: play on without images
            self.error(f"could not write {path} ({exc.strerror or exc}): no more images")
            self.images = None
            return
        self.say(f"  [dim]image: {escape(str(path))}[/]")

    def image_table(self, hand: Hand, viewer: int = 0) -> None:
        r = self.renderer
        if r is None:
            return
        seats = []
        for seat in range(hand.n):
            hidden = hand.hidden(seat) and seat != viewer
            status = "surrendered" if hand.surrendered[seat] else (
                "done" if hand.done[seat] else "")
            if seat:
                status = (status + " · " if status else "") + f"bot ({self.level})"
            seats.append(r.SeatView(
                name=self.names[seat],
                board=Board() if hidden else hand.boards[seat],
                hidden=_hidden_cards(hand, seat) if hidden else 0,
                is_button=seat == hand.button,
                is_turn=seat in hand.to_act(),
                last_placed=() if hidden else hand.last_placed[seat],
                fantasyland=bool(hand.fantasyland[seat]),
                status=status,
            ))
        view = r.TableView(
            title=f"{self.rules.variant} · terminal game", variant=self.rules.variant,
            seats=tuple(seats), street=min(hand.street, hand.streets), streets=hand.streets,
            hand_no=self.hand_no, note="Practice: no units move", rules=self.rules,
        )
        try:
            self.write_image("table", r.render_table(view, theme=self.theme()))
        except Exception as exc:  # an image is a bonus: never stop the game for it
            self.error(f"could not draw the table image: {exc}")

    def theme(self) -> Any:
        """The renderer's theme for the chosen deck."""
        return self.renderer.Theme(four_colour=self.four_colour)

    def image_showdown(self, hand: Hand) -> None:
        r = self.renderer
        if r is None or hand.settlement is None:
            return
        view = r.ShowdownView(
            names=tuple(self.names), settlement=hand.settlement, rules=self.rules,
            fantasyland_next=tuple(hand.fantasyland_next), hand_no=self.hand_no,
            title=f"Hand {self.hand_no} · {self.rules.variant}",
        )
        try:
            self.write_image("showdown", r.render_showdown(view, theme=self.theme()))
        except Exception as exc:
            self.error(f"could not draw the showdown image: {exc}")

    # -- bots --------------------------------------------------------------------------------------
    def bot_rng(self, hand: Hand, seat: int) -> random.Random:
        return random.Random(f"{self.seed}/{self.hand_no}/{len(hand.log)}/{seat}")

    def bot_act(self, hand: Hand, seat: int) -> None:
        name = self.names[seat]
        req = hand.requirement(seat)
        assert req is not None
        seen = hand.redacted_for(seat)  # the bot decides from what its seat may see
        if req.is_set and self.rules.variant == "chinese":
            natural = choose_natural(seen, seat)
            if natural:
                hand.declare(seat, natural)
                self.say(f"  [magenta]{escape(name)}[/] sets its hand face down.")
                return
        placed, dropped = choose_move(seen, seat, self.level, rng=self.bot_rng(hand, seat),
                                      simulations=self.sims)
        hand.place(seat, placed, dropped)
        if hand.hidden(seat):
            self.say(f"  [magenta]{escape(name)}[/] sets its hand face down.")
            return
        cards = [c for c, _ in placed]
        text = format_move(placed)
        for card in cards:
            text = text.replace(str(card), card_markup(card, styles=self.styles, suits=self.suits), 1)
        extra = f", discards {len(dropped)} face down" if dropped else ""
        self.say(f"  [magenta]{escape(name)}[/] places {text}{extra}.")

    # -- the human -----------------------------------------------------------------------------------
    def read(self, prompt: str) -> str:
        if self.line_editing:  # the arrow keys edit the line and recall the last ones
            try:
                line = input(prompt) + "\n"
            except EOFError:
                line = ""
        else:
            self.out.print(prompt, end="", highlight=False)
            line = self.stdin.readline()
        if not line:
            self.say()
            raise Quit
        line = _TYPED_NOISE.sub("", line).strip()
        if self.echo:
            self.say(escape(line))
        return line

    def human_act(self, hand: Hand, seat: int) -> None:
        drawn = -1
        while hand.may_act(seat):
            if drawn != len(hand.log):  # again after each of this player's own moves (when
                # no one else acts in between, e.g. every opponent is in fantasyland)
                self.draw_table(hand, seat)
                self.image_table(hand, seat)
                drawn = len(hand.log)
            req = hand.requirement(seat)
            assert req is not None
            self.say(f"  Your cards: {cards_markup(req.shown, styles=self.styles, suits=self.suits)}   [bold]{req.describe()}[/]")
            line = self.read("  > ")
            if not line:
                continue
            if self.command(hand, seat, req, line):
                continue
            line, foul_ok = foul_confirmed(line)
            try:
                placed, dropped = parse_move(line, req, hand.boards[seat])
                warning = foul_warning(hand.boards[seat], req, placed, hand.rules)
                if warning and not foul_ok:
                    self.error(f"This board fouls: {warning}, so it loses every row. Type the "
                               "move again with 'foul' at the end to play it anyway.")
                    continue
                hand.place(seat, placed, dropped)
                # echoed: a card discarded because it was left over is said, not silent
                self.say(f"  You play {escape(format_move(placed, dropped))}.")
            except (IllegalAction, CardError, ValueError) as exc:
                self.error(str(exc))

    def command(self, hand: Hand, seat: int, req: Requirement, line: str) -> bool:
        """Run a command; False when the line is a move."""
        word, _, rest = line.partition(" ")
        word = word.lower()
        alone = not rest.strip()  # 'Q d ...' or 'h 2c ...' is a move, not quit or help
        if word in ("quit", "exit", "q") and alone:
            raise Quit
        if word in ("help", "?", "h") and alone:
            self.out.print(HELP, highlight=False)
            return True
        if word in ("board", "table", "show"):
            self.draw_table(hand, seat)
            return True
        if word == "review" and alone:
            if self.last_hand is None:
                self.error("No hand has finished yet: 'review' looks at the last one.")
            else:
                self.review(self.last_hand, self.hand_no - 1)
            return True
        if word in ("auto", "hint", "suggest"):
            self.auto(hand, seat, req, play=word == "auto")
            return True
        if word == "surrender":
            try:
                hand.surrender(seat)
                self.say("  You surrender this hand.")
            except IllegalAction as exc:
                self.error(str(exc))
            return True
        if word == "declare":
            natural = " ".join(rest.lower().split())
            if not natural:
                self.error("Declare which natural? six pairs, three straights, three flushes "
                           "or dragon")
                return True
            try:
                hand.declare(seat, natural)
                self.say(f"  You declare {natural}.")
            except IllegalAction as exc:
                self.error(str(exc))
            return True
        return False

    def auto(self, hand: Hand, seat: int, req: Requirement, play: bool) -> None:
        seen = hand.redacted_for(seat)
        natural = choose_natural(seen, seat) if req.is_set else None
        if natural:
            self.say(f"  [cyan]AI:[/] declare {natural}.")
            if play:
                hand.declare(seat, natural)
            return
        # your hints think at least at the normal level, whatever the bots' level
        level = max(self.level, "normal", key=LEVELS.__getitem__)
        s = suggest(seen, seat, level, rng=self.bot_rng(hand, seat), simulations=self.sims)
        self.say(f"  [cyan]AI:[/] {escape(s.explanation)}")
        if play:
            hand.place(seat, s.placements, s.discards)
            self.say(f"  You play {escape(format_move(s.placements, s.discards))}.")

    def review(self, hand: Hand, number: int) -> None:
        """Your decisions in a finished hand against the AI's (``engine.review``)."""
        self.say(f"[bold]Your play in hand {number}[/], against the AI's (thinking...)")
        if self.sims is None:
            found = review(hand.to_json(), 0)
        else:  # (the tests' fixed, small number of futures)
            found = review(hand.to_json(), 0, self.sims, self.sims)
        text = describe_review(found, COMPARE_SIMULATIONS if self.sims is None else self.sims)
        self.say(f"  {escape(text.summary)}")
        for line in text.decisions:
            self.say(f"  {escape(line)}")
        for note in text.notes:
            self.say(f"  [dim]{escape(note)}[/]")

    # -- showdown -----------------------------------------------------------------------------------
    def showdown(self, hand: Hand) -> None:
        s = hand.settlement
        assert s is not None
        self.say()
        self.say(f"[bold]Showdown, hand {self.hand_no}[/]")
        for seat in range(hand.n):
            label = escape(self.names[seat])
            tags = []
            if s.surrendered[seat]:
                tags.append("[red]surrendered[/]")
            elif s.naturals[seat]:
                tags.append(f"[magenta]natural: {s.naturals[seat]}[/]")
            elif s.fouled[seat]:
                board = s.boards[seat]
                reason = board.foul_reason(self.rules) if board is not None else None
                tags.append("[bold red]FOUL[/]" + (f" [red]({escape(reason)})[/]" if reason else ""))
            if s.royalties[seat]:
                rr = s.row_royalties[seat]
                tags.append(f"[yellow]royalties {s.royalties[seat]} "
                            f"({rr[0]} + {rr[1]} + {rr[2]})[/]")
            if s.moon[seat]:
                tags.append("[yellow]shoots the moon[/]")
            self.say(f"  [bold]{label}[/] {' · '.join(tags)}".rstrip())
            if s.naturals[seat]:
                natural = sort_cards(hand.natural_cards[seat])  # as the image shows them
                self.say(f"    {cards_markup(natural, styles=self.styles, suits=self.suits)}")
            elif hand.boards[seat].is_complete:
                for line in self.board_lines(hand, seat, seat):
                    if "FOUL" in line or "royalties" in line:
                        continue
                    self.say(line)
        self.say("  [bold]Pairs[/]")
        for p in s.pairs:
            a, b = escape(self.names[p.a]), escape(self.names[p.b])
            parts = []
            if p.rows is not None:
                rows = " ".join(f"{ROWS[i]} {signed(p.row_points[i])}" for i in range(3))
                parts.append(rows)
            if p.bonus:
                label = ("scoop" if p.scoop and self.rules.scoop_bonus
                         else "more rows" if self.rules.overall_bonus else "bonus")
                parts.append(f"{label} {signed(p.bonus)}")
            if p.royalty_points:
                parts.append(f"royalties {signed(p.royalty_points)}")
            if p.natural_points:
                parts.append(f"natural {signed(p.natural_points)}")
            if p.moon_points:
                parts.append(f"moon {signed(p.moon_points)}")
            if p.surrender_points:
                parts.append(f"surrender {signed(p.surrender_points)}")
            shown = ", ".join(parts)
            # the note adds what the parts do not say ("both fouled", "foul"), not "surrender"
            # after "surrender -3" or "natural" after "natural +3"
            note = f" [dim]({p.note})[/]" if p.note and p.note not in shown else ""
            self.say(f"    {a} vs {b}: {shown or 'nothing'}{note} → "
                     f"[bold]{signed(p.total)}[/] to {a}")
        self.say("  [bold]Points[/]")
        for seat in range(hand.n):
            self.totals[seat] += s.totals[seat]
            self.say(f"    {escape(self.names[seat]):<12} {signed(s.totals[seat]):>5}   "
                     f"[dim]total {signed(self.totals[seat])}[/]")
        for seat, cards in enumerate(hand.fantasyland_next):
            if cards:
                who = "You go" if seat == 0 else f"{escape(self.names[seat])} goes"
                stay = " again" if hand.fantasyland[seat] else ""
                self.say(f"  [bold yellow]{who} to fantasyland{stay} ({cards} cards)![/]")
        self.image_showdown(hand)

    # -- the session --------------------------------------------------------------------------------
    def run(self) -> int:
        n = len(self.names)
        button = n - 1  # the human acts first in the first hand
        fantasyland: tuple[int, ...] = (self.start_fantasyland,) + (0,) * (n - 1)
        try:
            for k in range(1, self.hands + 1):
                self.hand_no = k
                hand = Hand(self.rules, self.names, button, fantasyland, seed=f"{self.seed}/{k}")
                self.say()
                self.say(f"[bold]═══ Hand {k} of {self.hands} ═══[/]  "
                         f"button: {escape(self.names[button])}")
                self.play_hand(hand)
                self.showdown(hand)
                self.last_hand = hand
                if self.review_each:
                    self.review(hand, k)
                fantasyland = hand.fantasyland_next
                button = next_button(button, n, fantasyland, self.rules)
        except (Quit, KeyboardInterrupt):  # quit, end of input or Ctrl-C
            self.say(self.replay_hint())
            self.say("Bye.")
            return 0
        if self.hands > 1:
            self.say()
            self.say("[bold]Session totals[/]")
            for seat in range(n):
                self.say(f"    {escape(self.names[seat]):<12} {signed(self.totals[seat]):>5}")
        self.say(self.replay_hint())
        return 0

    def replay_hint(self) -> str:
        """Said when the game ends, never before: the seed gives every card of the deck."""
        return (f"[dim]Game over (the same cards again with --seed "
                f"{escape(shlex.quote(self.seed))}).[/]")

    def play_hand(self, hand: Hand) -> None:
        while not hand.is_over:
            acting = hand.to_act()
            bots = [s for s in acting if s != 0]
            if 0 in acting and hand.fantasyland[0]:
                # the others play "at the same time" (RULES.md): the human sets fantasyland
                # first, not after watching every bot's finished board
                bots = []
            if bots:
                self.bot_act(hand, bots[0])
                continue
            self.human_act(hand, 0)


PLAIN = {"−": "-", "–": "-", "—": "-", "·": "-", "…": "...", "→": "->", "✗": "x", "✓": "ok",
         "±": "+/-", "≥": ">=", "═": "=", "─": "-", "│": "|", "’": "'", "“": '"', "”": '"'}
"""What an output that cannot show these characters gets instead (else '?')."""


def _plain(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(PLAIN.get(c, "?") for c in err.object[err.start:err.end]), err.end


codecs.register_error("ofc-plain", _plain)


def _plain_where_needed(stdout: TextIO) -> None:
    """An output that cannot show a character (an ASCII terminal: ♦, ═, the minus sign of
    ``−2``) gets its plain stand-in (``PLAIN``) or '?', never an error."""
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(errors="ofc-plain")


def _can_show(console: Console, text: str) -> bool:
    try:
        text.encode(console.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _row_value(row: Sequence[Card]) -> int:
    from engine import evaluate

    return int(evaluate(row))


def _hidden_cards(hand: Hand, seat: int) -> int:
    """The cards a hidden seat holds face down, as every other player sees it: a declared
    natural's 13 cards count, so it looks like any other set hand (``Hand.view_for``)."""
    return int(hand.view_for(None)["seats"][seat]["hidden_cards"])


_TYPED_NOISE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]?|[\x00-\x08\x0b-\x1f\x7f]")
"""What the keys of a terminal without line editing send (arrows: ESC [ A) and other control
characters: dropped from a typed line, so an error repeating it cannot move the cursor."""


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def load_renderer() -> tuple[Any, str]:
    """The renderer package, or None and why."""
    try:
        import renderer

        for name in ("render_table", "render_showdown", "TableView", "SeatView", "ShowdownView",
                     "Theme"):
            if not hasattr(renderer, name):
                return None, f"the renderer has no {name} yet"
        return renderer, ""
    except Exception as exc:  # ImportError, or a renderer that fails while being written
        return None, f"the renderer is not available ({type(exc).__name__}: {exc})"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ofc-bot play",
        description="Play Open Face Chinese Poker in the terminal against AI players.",
    )
    p.add_argument("--variant", choices=("ofc", "pineapple", "chinese"), default="ofc")
    p.add_argument("--bots", type=int, default=1, help="AI opponents (default 1)")
    p.add_argument("--level", choices=tuple(LEVELS), default="normal",
                   help="AI strength: thinking time per decision (default normal)")
    p.add_argument("--seed", default=None, help="deal seed (default: random)")
    p.add_argument("--images", default="play-images", metavar="DIR",
                   help="folder for the table and showdown images (default ./play-images)")
    p.add_argument("--no-images", action="store_true", help="do not write images")
    p.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    p.add_argument("--name", default="You", help="your name at the table")
    p.add_argument("--fantasyland", type=int, default=0, metavar="CARDS",
                   help="practice: start in fantasyland with this many cards (13-17)")
    p.add_argument("--deck", choices=("four", "two"), default="four",
                   help="card colours, in the terminal and the images (default four: "
                   "♠ black ♥ red ♦ blue ♣ green)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a table option, as in /ofc options (repeatable): strict_top=on, "
                   "scoring=1-4, moon=on, progressive=off, dragon=20, ...")
    p.add_argument("--review", action="store_true",
                   help="after each hand, your play against the AI's (as the review command)")
    p.add_argument("--sims", type=int, default=None, help=argparse.SUPPRESS)
    return p


def main(
    argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run a terminal game; returns the exit status (Ctrl-C at any moment: "Bye.", 0)."""
    try:
        return _main(argv, stdin, stdout)
    except KeyboardInterrupt:  # e.g. while the renderer (matplotlib) loads; the game's own
        print("Bye.", file=stdout if stdout is not None else sys.stdout)
        return 0
    except OSError as exc:  # the output is gone (a closed pipe) or full
        if stdout is None and isinstance(exc, BrokenPipeError):
            # nothing more reaches the reader; keep Python's exit flush from failing again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        else:
            print(f"ofc-bot play: cannot write the game's output: {exc}", file=sys.stderr)
        return 1


def _main(argv: list[str] | None, stdin: TextIO | None, stdout: TextIO | None) -> int:
    # a closed standard input (``<&-``) is an input that has ended
    stdin = stdin if stdin is not None else sys.stdin or io.StringIO()
    stdout = stdout if stdout is not None else sys.stdout
    _plain_where_needed(stdout)
    _plain_where_needed(sys.stderr)  # (option errors are written there)
    if isinstance(stdin, io.TextIOWrapper):  # bytes not in its encoding: '?', not a crash
        stdin.reconfigure(errors="replace")
    # a terminal gets lines wrapped to its width (between words); a pipe or a file gets them
    # whole, one line each
    console = Console(file=stdout, highlight=False, soft_wrap=not _isatty(stdout))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)

    def refuse(text: str) -> int:
        """An option error: on stderr, like argparse's own, and exit status 2."""
        print(f"ofc-bot play: {text}", file=sys.stderr)
        return 2

    try:
        rules = Rules(variant=args.variant).with_text_options(args.option)
    except RulesError as exc:
        return refuse(f"--option {exc}")
    try:
        rules.check_players(args.bots + 1)
    except RulesError as exc:
        return refuse(f"{exc}: choose --bots from {rules.min_players - 1} to "
                      f"{rules.max_players - 1}")
    if args.hands < 1:
        return refuse("--hands must be at least 1")
    if args.fantasyland and rules.fantasyland_cards_now(args.fantasyland) != args.fantasyland:
        return refuse("--fantasyland: ofc deals 13 cards, pineapple 14 to 17 (14 when not "
                      "progressive); chinese, or fantasyland=off, has none")
    args.name = " ".join(args.name.split())
    if not args.name or args.name in {f"Bot {i}" for i in range(1, args.bots + 1)}:
        return refuse("--name: choose a name that is not blank and not a bot's (Bot 1, ...)")
    sims = args.sims
    if sims is None and os.environ.get(SIMS_ENV):
        try:
            sims = int(os.environ[SIMS_ENV])
        except ValueError:
            return refuse(f"{SIMS_ENV} must be a whole number")
    if sims is not None and sims < 1:
        return refuse("--sims must be at least 1")
    seed = args.seed if args.seed is not None else secrets.token_hex(4)
    images: Path | None = None
    renderer = None
    if not args.no_images:
        renderer, why = load_renderer()
        if renderer is None:
            console.print(f"[dim]No images: {escape(why)}.[/]")
        else:
            try:
                images = Path(args.images).expanduser()
                images.mkdir(parents=True, exist_ok=True)
                with tempfile.TemporaryFile(dir=images):  # a folder it can write to
                    pass
            except (OSError, RuntimeError) as exc:  # RuntimeError: '~someone' unknown
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                console.print(f"[dim]No images: cannot write to {escape(args.images)} "
                              f"({escape(reason)}).[/]")
                images = None
    # a random seed is told when the game ends (it gives the deck), so it does not name the
    # images either; a seed the player chose is theirs to see
    game = Game(rules, args.name, args.bots, args.level, seed, args.hands, images, sims,
                stdin, console, args.fantasyland, args.deck == "four",
                image_prefix=None if args.seed is not None else
                time.strftime("play-%Y%m%d-%H%M%S"), review_each=args.review)
    game.renderer = renderer
    chosen = f" · seed {escape(seed)}" if args.seed is not None else ""
    console.print(
        f"[bold]OFC Table[/] · {rules.variant} · you against {args.bots} bot"
        f"{'s' if args.bots != 1 else ''} ({args.level}){chosen}. Type [cyan]help[/] "
        "for the syntax.",
        highlight=False,
    )
    return game.run()


def solve_main(argv: list[str] | None = None, stdout: TextIO | None = None) -> int:
    """``ofc-bot solve CARDS...``: the exact solver's best setting of a fantasyland hand, as
    ``/ofc suggest cards:`` says it."""
    out = stdout if stdout is not None else sys.stdout
    _plain_where_needed(sys.stderr)  # (its errors: the terminal's characters too)
    p = argparse.ArgumentParser(
        prog="ofc-bot solve",
        description="The exact solver's best setting of a fantasyland hand (royalties plus "
                    "the value of staying in fantasyland).")
    p.add_argument("cards", nargs="+", help="13 cards (ofc) or 14-17 (pineapple): Qh Qd Ks ...")
    p.add_argument("--variant", choices=("ofc", "pineapple"), default=None,
                   help="whose rules (default: ofc for 13 cards, pineapple for 14-17)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a table option, as in /ofc options (repeatable): progressive=off, "
                   "stay_value=20, progressive_stay=on, ...")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        cards = parse_cards(" ".join(args.cards))
        ofc = args.variant == "ofc" or (args.variant is None and len(cards) == 13)
        rules = Rules(variant="ofc" if ofc else "pineapple").with_text_options(args.option)
        check_fantasyland_cards(cards, rules)
    except (RulesError, CardError, ValueError) as exc:
        print(f"ofc-bot solve: {exc}", file=sys.stderr)
        return 2
    solution = solve_fantasyland(cards, rules)
    _plain_where_needed(out)
    print(f"The best setting of {len(cards)} cards ({rules.variant}, exact):", file=out)
    for line in describe_solution(solution, rules):
        print(f"  {line}", file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
