"""What one player can know about the current game, built up from the server's tables.

The server never says "player 2 passed"; a client sees only each turn's field table.  The
tracker compares it with the field shown before the turn: new cells mean the actor played
them, the same cells (or a field still empty) mean a pass or a rejected move.  It also
keeps the exchange facts, who has passed in the trick, and the order players went out.
"""

from __future__ import annotations

import logging

from daihinmin.contract.view import GameView, Observed, quick_observed, quick_view
from daihinmin.rules.deal import strongest
from daihinmin.rules.ruleset import ForbiddenFinish, RuleSet
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.moves import PASS, Move

from .tables import ANSWER_ACCEPTED, FieldTable, HandTable

log = logging.getLogger("daihinmin.client")

NOBODY = -1  # turn_player before the first turn table of a game
# The passes seen, by player, empty field and answer: a few dozen at most.
_PASSES: dict[tuple[int, bool, int | None], Observed] = {}


class GameTracker:
    """The running record of one game from one seat."""

    def __init__(self, player: int, rules: RuleSet, game: int, deal: HandTable) -> None:
        self.player, self.rules, self.game = player, rules, game
        self.dealt = deal.hand
        self.give = deal.give
        self.hand = deal.hand
        state = deal.state
        # Classes are trusted from the deal table only (turn tables can carry stale ones).
        self.classes, self.seats, self.counts = state.classes, state.seats, state.counts
        self.field: Move | None = None
        self.field_cells: dict[tuple[int, int], int] = {}
        self.field_owner: int | None = None
        self.last_player: int | None = None  # who played last in this game (keeps the lead)
        self.passed = 0  # players marked passed in this trick (a pass on a lead counts too)
        self.revolution = self.eleven_back = self.lock = False
        self.turn_player = NOBODY
        self.field_empty = True
        self.turns = 0
        self.history: list[Observed] = []  # append-only (see view)
        self._history_shown: tuple[Observed, ...] = ()  # the history as views last got it
        self.chosen: CardSet | None = None  # what the bot chose to give back
        self.exchange_given = EMPTY
        self.exchange_received = EMPTY
        self.out_order: list[int] = []
        # This client's play when a 20260 CHOICE table already applied it (before the field
        # table of the turn, which then must not apply it again).
        self.own_play: Observed | None = None

    # --- views --------------------------------------------------------------------------
    def view(self, my_turn: bool = False) -> GameView:
        # The history only grows, so the views in between share one tuple of it.
        history = self._history_shown
        if len(history) != len(self.history):
            history = self._history_shown = tuple(self.history)
        return quick_view(
            player=self.player, hand=self.hand, field=self.field, turn_player=self.turn_player,
            revolution=self.revolution, eleven_back=self.eleven_back, lock=self.lock,
            counts=self.counts, classes=self.classes, seats=self.seats, my_turn=my_turn,
            rules=self.rules, game=self.game, history=history,
            exchange_given=self.exchange_given, exchange_received=self.exchange_received,
            passed=self.passed, field_owner=self.field_owner,
        )

    # --- updates ------------------------------------------------------------------------
    def exchange_chosen(self, cards: CardSet) -> None:
        self.chosen = cards

    def on_turn_table(self, turn: HandTable) -> None:
        """A new turn: the turn table is the authoritative state before the action."""
        s = turn.state
        self.on_turn_facts(turn.hand, s.turn_player, s.field_empty, s.eleven_back,
                           s.revolution, s.lock, s.counts)

    def on_turn_facts(self, hand: CardSet, turn_player: int, field_empty: int,
                      eleven_back: int, revolution: int, lock: int,
                      counts: tuple[int, ...]) -> None:
        """:meth:`on_turn_table` from the cells it reads (the client's fast path has them
        without building a table)."""
        if self.turns == 0:
            self._settle_exchange(hand)
        self.turns += 1
        self.own_play = None
        self.hand = hand
        self.turn_player = turn_player
        self._take_flags(revolution, eleven_back, lock)
        self.counts = counts
        if self.last_player is None:
            self.last_player = turn_player  # the first leader keeps the lead, as in the engine
        self.field_empty = empty = field_empty != 0
        if empty and self.field is not None:  # the cards were cleared away
            self._clear_trick()

    def on_field_table(self, shown: FieldTable, answer: int | None,
                       sent: Move | None) -> Observed:
        """Work out what the actor did; ``answer``/``sent`` only when this client moved."""
        s = shown.state
        return self.on_field_facts(shown.cells, shown.move, s.turn_player, s.field_empty,
                                   s.eleven_back, s.revolution, s.lock, s.counts, answer, sent)

    def on_field_facts(self, cells: dict[tuple[int, int], int], shown: Move | None,
                       actor: int, field_empty: int, eleven_back: int, revolution: int,
                       lock: int, counts: tuple[int, ...], answer: int | None,
                       sent: Move | None) -> Observed:
        """:meth:`on_field_table` from the cells it reads."""
        # The client hands the same cells object back for the same card rows: ``is`` first.
        played = (not field_empty and shown is not None and cells is not self.field_cells
                  and cells != self.field_cells and bool(cells))
        move = shown if played and shown is not None else PASS
        if answer is not None and sent is not None:
            if answer == ANSWER_ACCEPTED and not sent.is_pass and move != sent:
                log.warning("game %d: the server accepted %s but shows %s on the field",
                            self.game, sent, move)
            if played and self.own_play is None:
                # rules.game.remove_from_hand's own expression: a bot process then needs
                # none of the engine's game module
                self.hand = self.hand - move.hand_cards()
        if self.own_play is not None:  # the CHOICE table applied it: history once
            observed, self.field_cells = self.own_play, cells
        else:
            if played:
                observed = quick_observed(actor, move, self.field_empty, answer)
            else:  # one Observed for each pass seen alike (a dataclass takes microseconds)
                key = (actor, self.field_empty, answer)
                observed = _PASSES.get(key) or _PASSES.setdefault(
                    key, Observed(actor, PASS, self.field_empty, answer))
            self._record(observed, cells, played)
        self._take_flags(revolution, eleven_back, lock)
        self.counts = counts
        if played and counts[actor] == 0 and actor not in self.out_order:
            self.out_order.append(actor)
        if not played and self.field is None and self._everyone_passed():
            self._clear_trick()
        return observed

    def on_own_play(self, move: Move, answer: int, after: HandTable) -> Observed:
        """This client's accepted play, applied before its field table arrives: ``after`` is
        a 20260 CHOICE table, the hand and the state after the play (the field table then
        only confirms the cells; see :meth:`on_field_table`)."""
        observed = Observed(self.player, move, trick_cleared_before=self.field_empty,
                            answer=answer)
        self._record(observed, {}, not move.is_pass)
        self.own_play = observed
        self.on_choice_table(after)
        return observed

    def on_choice_table(self, table: HandTable) -> None:
        """A CHOICE table's facts: the hand, the counts and the state after the play (and
        after a give already answered in this turn)."""
        s = table.state
        self.hand = table.hand
        self._take_flags(s.revolution, s.eleven_back, s.lock)
        self.counts = s.counts

    def on_choice_made(self, cards: CardSet) -> None:
        """The cards this client's choice gave or discarded left its hand."""
        self.hand = self.hand - cards

    def _take_flags(self, revolution: int, eleven_back: int, lock: int) -> None:
        # ``!= 0``: bool() of an int without a call (this runs twice a turn)
        self.revolution, self.eleven_back, self.lock = (revolution != 0, eleven_back != 0,
                                                        lock != 0)

    def _record(self, observed: Observed, cells: dict[tuple[int, int], int],
                played: bool) -> None:
        """One turn's action in the history, and on the field when it is a play."""
        self.history.append(observed)
        actor = observed.player
        if played:
            self.field, self.field_cells, self.field_owner = observed.move, cells, actor
            self.last_player = actor
        else:
            self.passed |= 1 << actor

    def _everyone_passed(self) -> bool:
        """Passes on an empty field clear the trick once every player with cards has
        passed, except (without ``owner_answers``) the last one who played, who gets the lead.

        A turn table cannot show this clear (the field stays empty), so it is inferred with
        the rules engine's condition.  (The 2013 reference server clears one pass earlier in
        the rare case where the last player to play has also passed on the empty field.)
        """
        owner = None if self.rules.owner_answers else self.last_player
        return all(self.passed >> p & 1 or p == owner
                   for p, n in enumerate(self.counts) if n > 0)

    def _clear_trick(self) -> None:
        self.field, self.field_cells, self.field_owner, self.passed = None, {}, None, 0

    def _settle_exchange(self, hand: CardSet) -> None:
        """Compare the dealt hand with the first turn table's hand (the final one).

        The daifugo/fugo's deal already holds what they received, so what left it is what
        they gave, and what they received stays unknown.  The hinmin/daihinmin gave their
        strongest cards (the rule says which), so what arrived is the rest of the change
        (a plain difference would miss a card that was taken and given straight back).
        """
        owed = self._lower_class_count()
        if owed:
            given = strongest(self.dealt, owed, skip_jokers=self.rules.joker_exchange_exempt)
            kept = self.dealt - given
            if kept <= hand:
                self.exchange_given, self.exchange_received = given, hand - kept
                return
            log.warning("game %d: the hand after the exchange does not fit giving the %d "
                        "strongest card(s)", self.game, owed)
        self.exchange_given = self.dealt - hand
        self.exchange_received = hand - self.dealt
        if self.chosen is not None and self.chosen != self.exchange_given:
            log.warning("game %d: the server took %s instead of the chosen %s",
                        self.game, self.exchange_given or "nothing", self.chosen)

    def _lower_class_count(self) -> int:
        """Cards this player hands over automatically (0 unless hinmin/daihinmin)."""
        n = len(self.classes)
        if not self.rules.exchange or sorted(self.classes) != list(range(n)):
            return 0  # first game of a class block: every class cell is 0, no exchange
        mine = self.classes[self.player]
        return next((count for _, lower, count in self.rules.exchange_pairs()
                     if lower == mine), 0)

    # --- results ------------------------------------------------------------------------
    def places(self) -> tuple[int, ...] | None:
        """Place of each player (0 = first), when the order of going out tells it.

        Unknown (None) when the game ended another way (the pass limit gives random places)
        or under rules where going out does not fix the place.
        """
        n = len(self.counts)
        rules = self.rules
        if rules.forbidden_finish is not ForbiddenFinish.OFF or rules.miyako_ochi:
            return None
        if len(self.out_order) != n - 1:
            return None
        last = next(p for p in range(n) if p not in self.out_order)
        order = [*self.out_order, last]
        return tuple(order.index(p) for p in range(n))
