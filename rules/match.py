"""A match: games in sequence with seats, class blocks, the exchange, and points.

Every game draws from its own RNG derived from (match seed, game number), so any game can
be re-created (or a match resumed) from the seed alone.  A game recorded elsewhere (a
reference server's kifu) has no seed that re-creates it: :class:`GivenDeal` hands its seats,
dealer and dealt hands to :meth:`MatchState.setup_game`, which checks they are a deal the
rules could have made; the rest (exchange, play, classes, points) is the engine's as always.

>>> from daihinmin.rules.ruleset import UECDA
>>> m = MatchState(UECDA, seed=7, games=2)
>>> setup = m.setup_game()
>>> setup.game, setup.classes, sum(len(h) for h in setup.hands)
(1, None, 53)
>>> game = setup.start()
>>> sorted(len(h) for h in game.hands)
[10, 10, 11, 11, 11]
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from daihinmin.values.cards import EMPTY, CardSet

from .deal import deal_ordered, deck, move_cards, strongest
from .game import GameState
from .leads import holder, opening_lead
from .ruleset import LaterLead, Restart, RuleSet, Scoring
from .scoring import standings


def game_rng(seed: int, game: int) -> random.Random:
    """The RNG of one game: a stable function of the match seed and the game number."""
    digest = hashlib.sha256(f"daihinmin:{seed}:{game}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class DealError(ValueError):
    """A given deal is not one the rules could have dealt (cards, sizes, seats, dealer)."""


@dataclass(frozen=True, slots=True)
class GivenDeal:
    """A game's deal taken from a record instead of the seed: the players by seat, the
    player dealt the first card, and each player's hand as dealt."""

    seats: tuple[int, ...]
    dealer: int
    hands: tuple[CardSet, ...]


def deal_sizes(seats: tuple[int, ...], dealer: int, cards: int) -> list[int]:
    """The hand size of each player when ``cards`` are dealt one at a time in seat order
    from ``dealer``.

    >>> deal_sizes((4, 0, 1, 2, 3), 4, 53)
    [11, 11, 10, 10, 11]
    """
    n = len(seats)
    sizes = [0] * n
    start = seats.index(dealer)
    for i in range(cards):
        sizes[seats[(start + i) % n]] += 1
    return sizes


def check_given_deal(rules: RuleSet, given: GivenDeal, seats: tuple[int, ...] | None,
                     classes: tuple[int, ...] | None) -> None:
    """``given`` must be a deal of every card by these rules: the seats a permutation (the
    current ones unless seats change this game: ``seats`` None), the dealer the daifugo once
    there are classes, the hands the whole deck in the sizes dealing from the dealer gives."""
    n = rules.players
    if rules.hand_size > 0:
        raise DealError("a given deal needs rules that deal every card (hand_size=0)")
    if len(given.seats) != n or sorted(given.seats) != list(range(n)):
        raise DealError(f"seats {list(given.seats)} are not one seat per player")
    if seats is not None and given.seats != seats:
        raise DealError(f"seats {list(given.seats)} changed from {list(seats)} in a game "
                        "without a seat change")
    if not 0 <= given.dealer < n:
        raise DealError(f"dealer {given.dealer} is not a player")
    if classes is not None and given.dealer != classes.index(0):
        raise DealError(f"dealer {given.dealer} is not the daifugo (player "
                        f"{classes.index(0)})")
    if len(given.hands) != n:
        raise DealError(f"{len(given.hands)} hands for {n} players")
    seen = 0
    for hand in given.hands:
        if hand.mask & seen:
            raise DealError(f"a card is dealt twice ({hand & CardSet(seen)})")
        seen |= hand.mask
    whole = CardSet.of(deck(rules.jokers))
    if CardSet(seen) != whole:
        raise DealError(f"the hands are not the whole deck (missing {whole - CardSet(seen)})")
    sizes = [len(h) for h in given.hands]
    wanted = deal_sizes(given.seats, given.dealer, rules.deck_size)
    if sizes != wanted:
        raise DealError(f"hand sizes {sizes} are not {wanted}, as dealt from player "
                        f"{given.dealer}")


@dataclass(frozen=True, slots=True)
class Transfer:
    giver: int
    receiver: int
    cards: CardSet
    automatic: bool  # the lower class's strongest cards, taken by the server
    substituted: bool = False  # the player's choice was invalid; the server picked


@dataclass
class GameSetup:
    """A dealt game before and during the exchange."""

    rules: RuleSet
    game: int
    seats: tuple[int, ...]
    dealer: int
    classes: tuple[int, ...] | None  # None in the first game of a class block
    dealt: list[CardSet]
    hands: list[CardSet]
    rng: random.Random
    transfers: list[Transfer] = field(default_factory=list)
    owed: dict[int, tuple[int, int]] = field(default_factory=dict)  # upper -> (count, lower)
    pile: tuple[int, ...] = ()  # the undealt draw pile, top card last (hand_size > 0)
    lead_draws: tuple[tuple[int, int], ...] = ()  # (player, card) drawn to pick the leader

    @property
    def fresh(self) -> bool:
        """A game that starts like the first: no classes, or restart=heimin."""
        return self.classes is None or self.rules.restart is Restart.HEIMIN

    def automatic_exchange(self) -> None:
        """Each lower class gives its strongest cards to its upper class, who then owes a return."""
        assert self.classes is not None
        by_place = {c: p for p, c in enumerate(self.classes)}
        for upper_place, lower_place, count in self.rules.exchange_pairs():
            upper, lower = by_place[upper_place], by_place[lower_place]
            given = strongest(self.hands[lower], count,
                              skip_jokers=self.rules.joker_exchange_exempt)
            move_cards(self.hands, lower, upper, given)
            self.transfers.append(Transfer(lower, upper, given, automatic=True))
            self.owed[upper] = (count, lower)

    def give_count(self, player: int) -> int:
        """Cards ``player`` must return in the exchange (the deal table's [5][1])."""
        return self.owed.get(player, (0, -1))[0]

    def deal_hand(self, player: int) -> CardSet:
        """The hand shown in the deal table: receivers after receiving, givers before giving."""
        if any(t.giver == player and t.automatic for t in self.transfers):
            return self.dealt[player]
        return self.hands[player]

    def exchange_order(self) -> list[int]:
        """Upper players who owe cards, in class order (daifugo first)."""
        assert self.classes is not None or not self.owed
        return sorted(self.owed, key=lambda p: self.classes[p] if self.classes else p)

    def give_back(self, player: int, cards: CardSet | None) -> Transfer:
        """The upper player's chosen cards; ``None`` or an invalid choice: the server picks."""
        count, lower = self.owed.pop(player)
        hand = self.hands[player]
        skip = self.rules.joker_exchange_exempt
        substituted = cards is None or len(cards) != count or not cards <= hand
        if substituted:
            cards = strongest(hand, count, skip_jokers=skip)
        assert cards is not None
        move_cards(self.hands, player, lower, cards)
        t = Transfer(player, lower, cards, automatic=False, substituted=substituted)
        self.transfers.append(t)
        return t

    def start(self) -> GameState:
        """Begin play (any returns still owed are picked by the server)."""
        for player in list(self.owed):
            self.give_back(player, None)
        pile = self.pile
        must = EMPTY
        if self.fresh:
            lead = opening_lead(self.rules, self.hands, self.seats, self.rng, pile, self.dealer)
            first, must, self.lead_draws = lead.first, lead.must_contain, lead.draws
            if lead.pile is not None:
                pile = lead.pile
        else:
            assert self.classes is not None
            if self.rules.later_lead is LaterLead.DIAMOND3:
                d3 = holder(self.hands, "D3")
                first = self.dealer if d3 is None else d3
            else:  # the last place (= the worst scorer under card scoring)
                first = self.classes.index(max(self.classes))
        return GameState.start(self.rules, list(self.hands), self.seats, self.rng, first=first,
                               prev_classes=self.classes, pile=pile, lead_must_contain=must)


@dataclass(frozen=True, slots=True)
class GameResult:
    game: int
    places: tuple[int, ...]  # place of each player (0 = first)
    points: tuple[int, ...]  # points each player earned in this game

    @property
    def order(self) -> tuple[int, ...]:
        """Players in finishing order."""
        return tuple(sorted(range(len(self.places)), key=lambda p: self.places[p]))


@dataclass
class MatchState:
    """Where a match stands between games: next game number, classes, seats, points."""

    rules: RuleSet
    seed: int
    games: int
    game: int = 1  # the next game to play (1-based)
    classes: tuple[int, ...] | None = None
    seats: tuple[int, ...] | None = None
    points: list[int] = field(default_factory=list)
    results: list[GameResult] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules.validate()
        if not self.points:
            self.points = [0] * self.rules.players

    @property
    def finished(self) -> bool:
        return self.game > self.games

    def is_block_start(self, game: int) -> bool:
        period = self.rules.class_reset_period
        return game == 1 or (period > 0 and (game - 1) % period == 0)

    def setup_game(self, given: GivenDeal | None = None) -> GameSetup:
        """The next game dealt from the seed, or (``given``) as recorded elsewhere
        (:class:`DealError` if the rules could not have dealt it)."""
        rules, g = self.rules, self.game
        n = rules.players
        rng = game_rng(self.seed, g)
        seats = self.seats or tuple(range(n))
        period = rules.seat_change_period
        seat_change = period > 0 and (g - 1) % period == 0
        block_start = self.is_block_start(g)
        classes = None if block_start else self.classes
        if given is not None:
            check_given_deal(rules, given, None if seat_change else seats, classes)
            seats, dealer = given.seats, given.dealer
            hands, pile = list(given.hands), list[int]()
        else:
            if seat_change:
                order = list(range(n))
                rng.shuffle(order)
                seats = tuple(order)
            dealer = seats[rng.randrange(n)] if classes is None else classes.index(0)
            hands, pile = deal_ordered(rng, seats, seats.index(dealer), rules.jokers,
                                       rules.hand_size)
        setup = GameSetup(rules, g, seats, dealer, classes, [h for h in hands], list(hands), rng,
                          pile=tuple(pile))
        if not setup.fresh and rules.exchange:
            setup.automatic_exchange()
        self.seats = seats
        return setup

    def finish_game(self, state: GameState) -> GameResult:
        if not state.over:
            raise ValueError("the game is not over")
        places = tuple(state.places())
        if self.rules.scoring is not Scoring.PLACE and state.scores is not None:
            earned = state.scores
        else:
            earned = tuple(self.rules.points_for_place(pl) for pl in places)
        for p, pts in enumerate(earned):
            self.points[p] += pts
        result = GameResult(self.game, places, earned)
        self.results.append(result)
        self.classes = places
        self.game += 1
        return result

    def standings(self) -> list[int]:
        """Players best first by total points (fewest under card scoring), ties broken by
        the better place in the last game."""
        last = self.results[-1].places if self.results else tuple(range(self.rules.players))
        return standings(self.rules, self.points, last)
