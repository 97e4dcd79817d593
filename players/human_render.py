"""Rich text for a person at the terminal: cards, plays, the table, the legal moves, events.

Only presentation: nothing here decides anything.

>>> from daihinmin.values.moves import Move
>>> cards_text(CardSet.parse("S3 HT JK")).plain
'♠3 ♥10 JK'
>>> move_text(Move.parse("S9 ST JK@SJ")).plain, move_text(Move.parse("pass")).plain
('♠9 ♠10 JK(♠J)', 'pass')
"""

from __future__ import annotations

from collections.abc import Sequence

from daihinmin.contract.view import GameView
from daihinmin.rules.event_words import describe_all
from daihinmin.rules.events import Event
from daihinmin.rules.ruleset import Scoring
from daihinmin.rules.scoring import TITLES_JA, class_title
from daihinmin.values.cards import JOKER, RANK_CHARS, SUIT_SYMBOLS, CardSet, rank_of, suit_of
from daihinmin.values.moves import Move, MoveKind
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

RANK_NAMES = {col: ("10" if ch == "T" else ch) for col, ch in enumerate(RANK_CHARS)}
SUIT_STYLES = ("bold", "bold red", "bold red", "bold")  # ♠ ♥ ♦ ♣
JOKER_STYLE = "bold magenta"


def card_label(c: int) -> str:
    if c >= JOKER:
        return "JK"
    return SUIT_SYMBOLS[suit_of(c)] + RANK_NAMES[rank_of(c)]


def card_text(c: int) -> Text:
    style = JOKER_STYLE if c >= JOKER else SUIT_STYLES[suit_of(c)]
    return Text(card_label(c), style=style)


def sort_key(c: int) -> tuple[int, int]:
    """Rank 3 .. 2, then the jokers; suits ♠ ♥ ♦ ♣ within a rank."""
    return (1, c) if c >= JOKER else (0, c)


def cards_text(cards: CardSet | Sequence[int]) -> Text:
    ordered = sorted(cards, key=sort_key)
    return Text(" ").join(card_text(c) for c in ordered) if ordered else Text("(none)")


def move_text(move: Move | None) -> Text:
    """A play as a person reads it: jokers show the card they stand for in brackets."""
    if move is None:
        return Text("(empty)", style="dim")
    if move.kind is MoveKind.PASS:
        return Text("pass", style="dim")
    if move.kind is MoveKind.JOKER:
        return Text("JK", style=JOKER_STYLE)
    if move.is_joker_pair:
        return Text("JK JK", style=JOKER_STYLE)
    parts: list[tuple[tuple[int, int], Text]] = [((rank_of(c), suit_of(c)), card_text(c))
                                                 for c in move.cards]
    for row, col in move.joker_cells:
        suit = SUIT_SYMBOLS[row] if row < 4 else ""
        rank = {0: "below 3", 14: "above 2"}.get(col, RANK_NAMES[col])
        parts.append(((col, row), Text(f"JK({suit}{rank})", style=JOKER_STYLE)))
    return Text(" ").join(t for _, t in sorted(parts, key=lambda p: p[0]))


def suits_text(mask: int) -> str:
    return "".join(SUIT_SYMBOLS[s] for s in range(4) if mask >> s & 1)


def flags_text(view: GameView) -> Text:
    """The state flags worth a glance: revolution, 11-back, lock, geki, direction, pile."""
    out = Text()

    def badge(label: str, style: str) -> None:
        if out:
            out.append(" ")
        out.append(f"[{label}]", style=style)

    if view.revolution:
        badge("REVOLUTION", "bold white on red")
    if view.eleven_back:
        badge("11-BACK", "bold black on yellow")
    if view.lock and view.field is not None:
        badge(f"LOCK {suits_text(view.field.suits)}", "bold white on blue")
    if view.geki:
        badge("GEKI-SHIBARI", "bold white on blue")
    if view.reversed:
        badge("order reversed: 3 is strongest", "yellow")
    if view.direction == -1:
        badge("play goes backwards", "cyan")
    if view.rules.hand_size > 0:
        badge(f"draw pile {view.pile_count}", "cyan")
    if view.lead_must_contain and view.field is None:
        badge(f"lead must hold {cards_text(view.lead_must_contain).plain}", "cyan")
    return out if out else Text("no special state", style="dim")


def class_label(view: GameView, player: int) -> str:
    classes = view.classes
    if not any(classes):  # the first game of a class block: no classes yet
        return "-"
    place = classes[player]
    if view.rules.scoring is not Scoring.PLACE:  # no classes: places follow the scores
        return f"#{place + 1} last game"
    title = class_title(view.rules, place)
    return f"{title} {TITLES_JA.get(title, '')}".strip()


def players_table(view: GameView, names: Sequence[str]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("seat", "player", "cards", "class", ""):
        table.add_column(column)
    owner = view.field_owner
    for seat, p in enumerate(view.seats):
        status = []
        if view.counts[p] == 0:
            status.append("out")
        elif view.passed >> p & 1:
            status.append("passed")
        if p == view.turn_player and view.counts[p]:
            status.append("to move")
        if owner == p and view.field is not None:
            status.append("owns the field")
        who = Text(seat_label(p, names, view.player), style="bold green" if p == view.player
                   else "")
        table.add_row(str(seat), who, str(view.counts[p]), class_label(view, p),
                      ", ".join(status))
    return table


def moves_panel(plays: Sequence[Move], may_pass: bool) -> RenderableType:
    """The legal plays numbered from 1 (the number to type); ``p`` for the pass."""
    items: list[RenderableType] = []
    for number, move in enumerate(plays, 1):
        items.append(Text.assemble((f"{number:>2}) ", "bold cyan"), move_text(move)))
    if may_pass:
        items.append(Text.assemble((" p) ", "bold cyan"), ("pass", "dim")))
    if not items:
        return Text("(no legal move)", style="dim")
    return Columns(items, padding=(0, 3))


def turn_screen(view: GameView, names: Sequence[str], plays: Sequence[Move],
                may_pass: bool) -> RenderableType:
    """Everything a person needs to choose a move."""
    field = Text("Field: ", style="bold").append_text(move_text(view.field))
    if view.field is not None and view.field_owner is not None:
        field.append(f"   (played by p{view.field_owner})", style="dim")
    hand = Text("Your hand: ", style="bold").append_text(cards_text(view.hand))
    size = len(view.hand)
    hand.append(f"   ({size} card{'' if size == 1 else 's'})", style="dim")
    return Group(players_table(view, names), Text(""), field,
                 Text("State: ", style="bold").append_text(flags_text(view)), hand,
                 Text("Legal moves:", style="bold"), moves_panel(plays, may_pass))


def seat_label(p: int, names: Sequence[str], you: int | None = None) -> str:
    """``p2 default``; the person's own seat ``p0 Ada (you)``, or ``p0 you`` when the name
    is "you" already."""
    name = names[p] if 0 <= p < len(names) else ""
    label = f"p{p} {name}".rstrip()
    if p == you and name.strip().lower() != "you":
        label += " (you)"
    return label


def event_notes(events: Sequence[Event], names: Sequence[str], you: int | None = None,
                numbered: bool = True) -> list[str]:
    """Short sentences for what a turn caused (plays and passes are shown separately);
    players as ``p2 default`` (``numbered``) or by their names alone (the browser, whose
    names are unique)."""
    def who(p: int) -> str:
        if not numbered and 0 <= p < len(names):
            return names[p]
        return seat_label(p, names, you)

    return describe_all(events, who)


__all__ = ["card_text", "cards_text", "class_label", "event_notes", "flags_text",
           "move_text", "moves_panel", "players_table", "seat_label", "turn_screen"]
