"""``human``: a person at the terminal plays the seat (``daihinmin bot human``, ``daihinmin play``).

On a server: ``daihinmin serve --rules web``, then ``daihinmin bot human --rules web --port
P`` (protocol 20260 where the rules need it).  Its profile says a person plays the seat
(``person``), and ``daihinmin serve`` then gives the seat no move or exchange deadline (unless
it runs with ``--no-human-seats``); another server needs its deadlines turned off.

At each turn the person sees the players, the field, the state flags, their hand and the
legal moves numbered; they answer with a number, ``p``/``pass``, or the cards themselves
(``S3 H3``, ``♠3 ♥3``, ``JK``; a joker's place as ``JK@S4`` when it matters).  Anything else
gets a reason and the question again: an illegal move is never sent.

>>> moves = [Move.parse("S3"), Move.parse("S3 H3"), PASS]
>>> str(parse_move("2", moves, None)), str(parse_move("h3 s3", moves, None))
('S3 H3', 'S3 H3')
>>> parse_move("7", moves, None)
Traceback (most recent call last):
...
daihinmin.players.human.InputError: there is no move 7: type 1-2, or p to pass
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from daihinmin.contract.view import Bot, GameView, Observed
from daihinmin.protocol.errors import ProtocolError
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.events import Event
from daihinmin.rules.judge import play_verdict
from daihinmin.rules.rule_texts import rules_in_words
from daihinmin.rules.ruleset import Scoring
from daihinmin.rules.scoring import TITLES_JA, class_title
from daihinmin.values.cards import CardParseError, CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import PASS, Move
from daihinmin.values.words import counted
from rich.console import Console, RenderableType
from rich.rule import Rule
from rich.text import Text

from .human_render import cards_text, event_notes, move_text, seat_label, turn_screen
from .util import weakest_cards

QUIT_WORDS = ("q", "quit", "exit")
PASS_WORDS = ("p", "pass", "0")
NONE_WORDS = ("-", "none", "nothing")
HELP = ("Type the number of a move, p to pass, or the cards to play (e.g. S3 H3, ♠3 ♥3, "
        "JK; a joker's place as JK@S4). h shows your hand again, q quits.")


def display_order(move: Move) -> tuple[int, int, int, int, int]:
    """Plays without jokers first, then by size, kind and rank (weakest first)."""
    return (move.jokers, move.size, int(move.kind), move.low, move.cards.mask)


class InputError(ValueError):
    """What the person typed is not an answer here; the message says why."""


class HumanQuit(KeyboardInterrupt):
    """The person asked to stop (q, end of input).  It stops the program as Ctrl-C does: no
    runner takes it for a failing bot (those pass in its place)."""


def parse_move(text: str, moves: Sequence[Move], view: GameView | None) -> Move:
    """The legal move meant by ``text`` (number, pass, or cards), or :class:`InputError`."""
    plays = [m for m in moves if not m.is_pass]
    may_pass = any(m.is_pass for m in moves)
    word = text.strip().lower()
    pass_hint = ", or p to pass" if may_pass else ""
    if not word:
        raise InputError(f"type a move number (1-{len(plays)}){pass_hint}")
    if word in PASS_WORDS:
        if may_pass:
            return PASS
        raise InputError("you may not pass now: the leader must play")
    if word.isdigit():
        number = int(word)
        if 1 <= number <= len(plays):
            return plays[number - 1]
        raise InputError(f"there is no move {number}: type 1-{len(plays)}{pass_hint}")
    return _move_from_cards(text, plays, view)


def _move_from_cards(text: str, plays: Sequence[Move], view: GameView | None) -> Move:
    if "@" in text:  # an exact play with the joker's cell
        try:
            exact = Move.parse(text)
        except (CardParseError, MoveShapeError, ProtocolError) as exc:
            raise InputError(f"not a play: {exc}") from None
        if exact in plays:
            return exact
        raise InputError(f"{move_text(exact).plain} is not a legal move now"
                         + _why(exact, view))
    try:
        cards = CardSet.parse(text)
    except CardParseError as exc:
        raise InputError(f"not a move number or cards: {exc}. {HELP}") from None
    matching = [i for i, m in enumerate(plays, 1) if m.hand_cards() == cards]
    if len(matching) == 1:
        return plays[matching[0] - 1]
    if matching:
        listed = ", ".join(f"{i}) {move_text(plays[i - 1]).plain}" for i in matching)
        raise InputError(f"the joker can stand in several places; type a number: {listed}")
    if view is not None and not cards <= view.hand:
        raise InputError(f"you do not hold {cards_text(cards - view.hand).plain}")
    reason = ""
    if not cards.jokers:
        try:
            reason = _why(Move.parse(text), view)
        except (CardParseError, MoveShapeError, ProtocolError) as exc:
            reason = f": {exc}"
    raise InputError(f"{cards_text(cards).plain} is not a legal move now{reason}")


def _why(move: Move, view: GameView | None) -> str:
    if view is None:
        return ""
    reject = play_verdict(view, view.hand, move)
    return f": {reject.value}" if reject is not None else ""


def parse_cards(text: str, hand: CardSet, at_most: int, exactly: bool = False) -> CardSet:
    """Cards the person names for an exchange or a choice, checked against the hand."""
    try:
        cards = CardSet.parse(text)
    except CardParseError as exc:
        raise InputError(f"not a list of cards: {exc}") from None
    if not cards <= hand or cards.jokers > hand.jokers:
        raise InputError(f"you do not hold {cards_text(cards - hand).plain or 'that'}")
    if exactly and len(cards) != at_most:
        raise InputError(f"give exactly {counted(at_most, 'card')}; you named {len(cards)}")
    if len(cards) > at_most:
        raise InputError(f"at most {counted(at_most, 'card')}; you named {len(cards)}")
    return cards


class HumanBot(Bot):
    """Asks a person on the terminal.  ``input_func`` and ``console`` can be replaced (tests,
    other front ends); ``names`` labels the players; ``narrate`` prints every turn;
    ``infer_notes`` adds what the flags tell (revolution, lock, a player out)."""

    name = "human"
    person = True  # the profile says so: a server may then give the seat no move deadline

    def __init__(self, seed: int | None = None, *, console: Console | None = None,
                 input_func: Callable[[str], str] | None = None,
                 names: Sequence[str] | None = None, narrate: bool = True,
                 infer_notes: bool = True) -> None:
        del seed  # a person needs no seed
        self.console = console or Console(highlight=False)
        self.input_func = input_func or self.console.input
        self.names = list(names) if names else []
        self.narrate = narrate
        self.infer_notes = infer_notes  # tell revolutions etc. from the flags (over TCP)
        self.player = -1
        self._last: GameView | None = None

    # --- helpers ----------------------------------------------------------------------------
    def say(self, text: RenderableType) -> None:
        self.console.print(text)

    def label(self, player: int) -> str:
        return seat_label(player, self.names, self.player)

    def ask(self, prompt: str) -> str:
        try:
            answer = self.input_func(prompt)
        except EOFError:
            raise HumanQuit("end of input") from None
        if answer.strip().lower() in QUIT_WORDS:
            raise HumanQuit("quit")
        return answer

    def _names(self, view: GameView) -> list[str]:
        n = len(view.counts)
        return [self.names[p] if p < len(self.names) else "" for p in range(n)]

    # --- Bot hooks ----------------------------------------------------------------------------
    def on_match_start(self, player: int) -> None:
        self.player = player
        self.say(Text(f"You are player {player}.", style="bold"))

    def on_game_start(self, view: GameView) -> None:
        self._last = view
        self.say(Rule(f"Game {view.game}"))
        mine = view.classes[view.player] if any(view.classes) else None
        if mine is not None:
            self.say(f"Your class: {class_title(view.rules, mine)}")
        self.say(Text("Your cards: ").append_text(cards_text(view.hand)))

    def play(self, view: GameView) -> Move:
        moves = view.legal_moves()
        plays = sorted((m for m in moves if not m.is_pass), key=display_order)
        may_pass = len(plays) < len(moves)
        self.say(Rule(f"Game {view.game}: your turn", style="green"))
        self.say(turn_screen(view, self._names(view), plays, may_pass))
        last = view.history[-1] if view.history else None
        if (view.rules.draw_on_pass and last is not None and last.player == view.player
                and last.move.is_pass and view.field is not None):
            self.say(Text("You passed and drew: play now, or pass again to decline.",
                          style="yellow"))
        if not plays:
            self.say(Text("You have no legal play: you pass.", style="yellow"))
            return PASS
        span = ("1" if len(plays) == 1 else f"1-{len(plays)}") + (", p = pass" if may_pass
                                                                  else "")
        while True:
            text = self.ask(f"Your move [{span}, ? = help]: ")
            word = text.strip().lower()
            if word in ("?", "help"):
                self.say(HELP)
                self.say(Text("The rules of this table:", style="bold"))
                self.say("\n".join(rules_in_words(view.rules)))
                continue
            if word in ("h", "hand"):
                self.say(turn_screen(view, self._names(view), plays, may_pass))
                continue
            try:
                move = parse_move(text, [*plays, PASS] if may_pass else plays, view)
            except InputError as exc:
                self.say(Text(f"✗ {exc}", style="bold red"))
                continue
            self.say(Text("You play ").append_text(move_text(move)))
            return move

    def exchange(self, view: GameView, count: int) -> CardSet:
        default = weakest_cards(view.hand, count)
        self.say(Text("Your cards: ").append_text(cards_text(view.hand)))
        while True:
            text = self.ask(f"Give back {counted(count, 'card')} "
                            f"(Enter = {cards_text(default).plain}): ")
            if not text.strip():
                return default
            try:
                return parse_cards(text, view.hand, count, exactly=True)
            except InputError as exc:
                self.say(Text(f"✗ {exc}", style="bold red"))

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        default = weakest_cards(view.hand, min(choice.count, len(view.hand)), view.reversed)
        if choice.kind is ChoiceKind.GIVE:
            what = f"Give up to {counted(choice.count, 'card')} to {self.label(choice.receiver)}"
        else:
            what = f"Discard up to {counted(choice.count, 'card')}"
        self.say(Text("Your cards: ").append_text(cards_text(view.hand)))
        while True:
            text = self.ask(f"{what} (Enter = {cards_text(default).plain}, - = none): ")
            word = text.strip().lower()
            if not word:
                return default
            if word in NONE_WORDS:
                return CardSet()
            try:
                return parse_cards(text, view.hand, choice.count)
            except InputError as exc:
                self.say(Text(f"✗ {exc}", style="bold red"))

    def on_turn(self, view: GameView, observed: Observed, accepted: bool) -> None:
        last, self._last = self._last, view
        if not self.narrate or observed.player == self.player:
            return
        line = Text(f"{self.label(observed.player)}: ", style="bold")
        line.append_text(move_text(observed.move))
        self.say(line)
        if last is None or not self.infer_notes:
            return
        notes = []
        if view.revolution != last.revolution:
            notes.append("REVOLUTION!" if view.revolution else "revolution undone")
        if view.eleven_back and not last.eleven_back:
            notes.append("11-back")
        if view.lock and not last.lock:
            notes.append("lock")
        if view.counts[observed.player] == 0 and last.counts[observed.player] > 0:
            notes.append(f"{self.label(observed.player)} is out")
        for note in notes:
            self.say(Text(f"   {note}", style="yellow"))

    def note_events(self, events: Sequence[Event], names: Sequence[str]) -> None:
        """In-process play shows what the engine says happened (richer than the tables)."""
        for note in event_notes(events, names, self.player):
            self.say(Text(f"   {note}", style="yellow"))

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        self.say(Rule(f"Game {view.game} over"))
        if places is None:
            self.say("The places are not known to this client.")
            return
        classes = view.rules.scoring is Scoring.PLACE
        width = max(len(self.label(p)) for p in range(len(places)))  # titles in one column
        for p in sorted(range(len(places)), key=lambda q: places[q]):
            title = class_title(view.rules, places[p]) if classes else ""
            named = f"   {title} {TITLES_JA.get(title, '')}".rstrip() if title else ""
            self.say(f"  {places[p] + 1}. {self.label(p):<{width}}{named}".rstrip())


__all__ = ["HumanBot", "HumanQuit", "InputError", "display_order", "parse_cards", "parse_move"]
