"""What a bot sees: typed views of its hand, the field and the public state.

A view is built by the client runner from the server's tables (and from what the runner
has observed since the deal); it can list the legal moves with the same rules engine the
server judges with.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from functools import cached_property

from daihinmin.rules.choices import PendingChoice, choice_options
from daihinmin.rules.deal import weakest
from daihinmin.rules.judge import legal_plays, play_verdict
from daihinmin.rules.leads import opening_card
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.moves import PASS, Move


@dataclass(frozen=True, slots=True)
class Observed:
    """One turn as every player saw it: who acted and what they played (PASS if nothing)."""

    player: int
    move: Move
    trick_cleared_before: bool = False  # the field was empty when this player acted
    answer: int | None = None  # the server's 9/8 when this client was the mover, else None

    @property
    def is_play(self) -> bool:
        """True when cards reached the field (a pass or a rejected move is not a play)."""
        return not self.move.is_pass


_new_object = object.__new__
# The slots' own setters: quick_observed writes them past the frozen __setattr__.
_set_player, _set_move, _set_cleared, _set_answer = (
    vars(Observed)[name].__set__
    for name in ("player", "move", "trick_cleared_before", "answer"))


def quick_observed(player: int, move: Move, trick_cleared_before: bool = False,
                   answer: int | None = None) -> Observed:
    """``Observed(...)``, the same value, without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` a field: about 1.7 us in Python 3.11 against 0.8 here); a
    client builds one for every play it sees.

    >>> quick_observed(2, PASS, True) == Observed(2, PASS, True)
    True
    """
    observed: Observed = _new_object(Observed)
    _set_player(observed, player)
    _set_move(observed, move)
    _set_cleared(observed, trick_cleared_before)
    _set_answer(observed, answer)
    return observed


@dataclass(frozen=True)
class GameView:
    """The state of the game from one player's seat."""

    player: int
    hand: CardSet
    field: Move | None  # None: the field is empty, the player leads
    turn_player: int  # whose turn it is; -1 before the first turn table of the game
    revolution: bool
    eleven_back: bool
    lock: bool
    counts: tuple[int, ...]
    classes: tuple[int, ...]
    seats: tuple[int, ...]
    my_turn: bool = False
    rules: RuleSet = UECDA
    game: int = 1  # 1-based game number within the match, as counted by the client
    history: tuple[Observed, ...] = ()  # this game's turns so far
    exchange_given: CardSet = EMPTY  # cards this player gave in the exchange
    exchange_received: CardSet = EMPTY  # cards received (known to the lower classes)
    passed: int = 0  # bitmask of players who passed (or were rejected) in this trick
    field_owner: int | None = None  # who played the cards on the field
    # Facts of the other rule sets (GameState attributes of the same names); defaults = uecda.
    geki: bool = False  # geki-shibari: plays must be exactly one rank stronger
    opening: CardSet | None = None  # what the lead must hold (♣3); None: infer from history
    pending: PendingChoice | None = None  # a 7-pass / 10-discard choice asked of a player
    pile_count: int = 0  # cards left in the draw pile (thirteenth_floor)
    direction: int = 1  # 1 = seat order, -1 = reversed (6-/9-reverse)

    @property
    def players_left(self) -> tuple[int, ...]:
        """Players who still hold cards."""
        return tuple(p for p, n in enumerate(self.counts) if n > 0)

    @property
    def reversed(self) -> bool:
        return self.revolution != self.eleven_back

    @property
    def lead_must_contain(self) -> CardSet:
        """The cards the next lead must hold (``original``'s ♣3 opening), as the engine has it."""
        if self.opening is not None:
            return self.opening
        return opening_card(self.rules, self.classes, any(o.is_play for o in self.history))

    @cached_property
    def _legal_plays(self) -> tuple[Move, ...]:
        # Computed once per view: the runner checks the bot's move against the same list.
        # The same checks as the server's judge (rules.judge.legal_plays reads this view).
        return tuple(legal_plays(self.hand, self))

    def legal_plays(self) -> list[Move]:
        """Plays (not pass) the rules allow now."""
        return list(self._legal_plays)

    def legal_moves(self) -> list[Move]:
        """Legal plays plus the pass (when the rules let this player pass now)."""
        moves = self.legal_plays()
        if self._may_pass():
            moves.append(PASS)
        return moves

    def allows(self, move: Move) -> bool:
        """``move in self.legal_moves()``, asked of the judge for this one move (the
        server's own check, ``rules.judge.play_verdict``) instead of listing every play."""
        # The last move asked is kept: a bot checks its move and the client checks it again.
        last = self.__dict__.get("_allowed")
        if last is not None and (last[0] is move or last[0] == move):
            return bool(last[1])
        allowed = self._may_pass() if move.is_pass else play_verdict(self, self.hand, move) is None
        self.__dict__["_allowed"] = (move, allowed)  # a cache, as cached_property keeps its own
        return allowed

    def _may_pass(self) -> bool:
        # A leader with no legal play may pass (e.g. its last card may not be played).
        return (self.field is not None or not self._legal_plays
                or (self.rules.leader_may_pass and not self.lead_must_contain))

    def legal_choices(self) -> list[CardSet]:
        """Valid answers to a choice pending for this player (7-pass, 10-discard)."""
        if self.pending is None or self.pending.player != self.player:
            return []
        return choice_options(self.hand, self.pending)


_VIEW_FIELDS = frozenset(f.name for f in fields(GameView))
_VIEW_REQUIRED = frozenset(f.name for f in fields(GameView) if f.default is MISSING)
_VIEW_DEFAULTS = {f.name: f.default for f in fields(GameView) if f.default is not MISSING}


def quick_view(**facts: object) -> GameView:
    """``GameView(**facts)``, the same view, built without the dataclass's ``__init__``: a
    frozen dataclass sets each field through ``object.__setattr__`` (about 11 us for a
    client's 18 facts in Python 3.11, against about 1.5 here), and a client builds a view
    for every decision.  Keywords only; a missing fact or one that is no field is refused.

    >>> from daihinmin.values.cards import CardSet
    >>> facts = dict(player=0, hand=CardSet.parse("S3"), field=None, turn_player=0,
    ...              revolution=False, eleven_back=False, lock=False, counts=(1,) * 5,
    ...              classes=(0,) * 5, seats=(0, 1, 2, 3, 4), my_turn=True)
    >>> quick_view(**facts) == GameView(**facts)
    True
    >>> quick_view(**facts, color="red")
    Traceback (most recent call last):
    ...
    TypeError: GameView has no field color
    """
    keys = facts.keys()
    if not (_VIEW_REQUIRED <= keys <= _VIEW_FIELDS):
        wrong = sorted(keys - _VIEW_FIELDS) or sorted(_VIEW_REQUIRED - keys)
        raise TypeError(f"GameView {'has no field' if keys - _VIEW_FIELDS else 'needs'} "
                        f"{', '.join(wrong)}")
    view: GameView = _new_object(GameView)
    state = view.__dict__
    state.update(_VIEW_DEFAULTS)
    state.update(facts)
    return view


# The default answers of a Bot are the engine's own default (players.util re-exports it).
weakest_cards = weakest


class Bot:
    """Subclass and override :meth:`play` (and :meth:`exchange` to choose the returned cards).

    A bot is called from one thread/task at a time; it may keep state between calls.
    """

    name = "bot"

    def exchange(self, view: GameView, count: int) -> CardSet:
        """Cards to return in the exchange (daifugo/fugo).  Default: the weakest ``count``."""
        return weakest_cards(view.hand, count)

    def play(self, view: GameView) -> Move:  # pragma: no cover - abstract
        raise NotImplementedError

    def choose(self, view: GameView, choice: PendingChoice) -> CardSet:
        """Answer a follow-up choice (7-pass: cards to give ``choice.receiver``; 10-discard:
        cards to discard): up to ``choice.count`` cards of ``view.hand``
        (``view.legal_choices()`` lists every valid answer).  Default: the weakest cards
        under the current order, as many as allowed."""
        return weakest_cards(view.hand, min(choice.count, len(view.hand)), view.reversed)

    def on_match_start(self, player: int) -> None:
        """Called once with the player number the server assigned."""

    def on_game_start(self, view: GameView) -> None:
        """Called with each deal (before any exchange)."""

    def on_turn(self, view: GameView, observed: Observed, accepted: bool) -> None:
        """Called after every turn (any player's), with what was observed."""

    def on_game_end(self, view: GameView, places: tuple[int, ...] | None) -> None:
        """Called when a game ends; ``places`` when the client could work them out."""
