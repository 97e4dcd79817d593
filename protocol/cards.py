"""Cards and card sets as compact immutable values.

A card is an ``int`` bit index; a :class:`CardSet` wraps an ``int`` bitmask.
The layout follows the UECda table: the card in table row ``suit`` (0=♠ 1=♥ 2=♦ 3=♣)
and column ``rank`` (1=3 ... 13=2) is bit ``4 * rank + suit``.  The (up to two) jokers
are bits 60 and 61, so a card set with two jokers is representable.

>>> hand = CardSet.parse("S3 HT D2 JK")
>>> str(hand)
'S3 HT D2 JK'
>>> len(hand), JOKER in hand, card_name(card("HT"))
(4, True, 'HT')
>>> str(hand - CardSet.parse("S3"))
'HT D2 JK'
>>> CardSet.parse("♠3 ♥10 Jk") == CardSet.parse("S3 HT JK")
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
# Rank characters by table column 0..14; columns 0 and 14 are joker-only slots.
RANK_CHARS = "x3456789TJQKA2x"
SPADE, HEART, DIAMOND, CLUB = 0, 1, 2, 3
RANK_3, RANK_8, RANK_J, RANK_2 = 1, 6, 9, 13
MIN_RANK, MAX_RANK = 1, 13

Card = int

JOKER: Card = 60
JOKER2: Card = 61
JOKER_BITS = (1 << JOKER) | (1 << JOKER2)
#: All 52 ordinary cards.
DECK52 = sum(1 << (4 * r + s) for r in range(MIN_RANK, MAX_RANK + 1) for s in range(4))


class CardParseError(ValueError):
    """A card name or card list could not be parsed."""


def make_card(suit: int, rank: int) -> Card:
    """The card of table row ``suit`` (0..3) and column ``rank`` (1..13)."""
    if not (0 <= suit <= 3 and MIN_RANK <= rank <= MAX_RANK):
        raise CardParseError(f"no card at suit {suit}, rank column {rank}")
    return 4 * rank + suit


def suit_of(c: Card) -> int:
    return c & 3


def rank_of(c: Card) -> int:
    return c >> 2


def is_joker(c: Card) -> bool:
    return c >= JOKER


def card_name(c: Card) -> str:
    """Two-character name: suit letter + rank character, or ``JK``."""
    if is_joker(c):
        return "JK"
    return SUITS[suit_of(c)] + RANK_CHARS[rank_of(c)]


_RANK_ALIASES = {"10": "T", "1": "A", "11": "J", "12": "Q", "13": "K"}


def card(name: str) -> Card:
    """Parse one card name (``S3``, ``HT``, ``♦10``, ``JK``); the joker is bit 60."""
    text = name.strip().upper()
    if text in ("JK", "JOKER", "JO"):
        return JOKER
    if len(text) < 2:
        raise CardParseError(f"not a card: {name!r}")
    suit_char, rank_text = text[0], text[1:]
    if suit_char in SUIT_SYMBOLS:
        suit = SUIT_SYMBOLS.index(suit_char)
    elif suit_char in SUITS:
        suit = SUITS.index(suit_char)
    elif suit_char == "♢":
        suit = DIAMOND
    else:
        raise CardParseError(f"bad suit in {name!r}")
    rank_text = _RANK_ALIASES.get(rank_text, rank_text)
    if len(rank_text) != 1 or rank_text not in RANK_CHARS[1:14]:
        raise CardParseError(f"bad rank in {name!r}")
    return make_card(suit, RANK_CHARS.index(rank_text, 1))


class CardSet:
    """An immutable set of cards stored as one integer bitmask."""

    __slots__ = ("mask",)
    mask: int

    def __init__(self, mask: int = 0) -> None:
        object.__setattr__(self, "mask", int(mask))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Parse space- or comma-separated card names; a second ``JK`` is the second joker."""
        mask = 0
        for token in text.replace(",", " ").split():
            c = card(token)
            if c == JOKER and mask >> JOKER & 1:
                if mask >> JOKER2 & 1:
                    raise CardParseError("at most two jokers")
                c = JOKER2
            elif mask >> c & 1:
                raise CardParseError(f"card {token!r} given twice")
            mask |= 1 << c
        return cls(mask)

    @classmethod
    def of(cls, cards: Iterable[Card]) -> CardSet:
        mask = 0
        for c in cards:
            mask |= 1 << c
        return cls(mask)

    def __iter__(self) -> Iterator[Card]:
        m = self.mask
        while m:
            low = m & -m
            yield low.bit_length() - 1
            m ^= low

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, c: object) -> bool:
        return isinstance(c, int) and c >= 0 and bool(self.mask >> c & 1)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __le__(self, other: CardSet) -> bool:
        return self.mask & ~other.mask == 0

    @property
    def jokers(self) -> int:
        """How many jokers the set holds."""
        return (self.mask & JOKER_BITS).bit_count()

    @property
    def without_jokers(self) -> CardSet:
        return CardSet(self.mask & ~JOKER_BITS)

    def ranks_of_suit(self, suit: int) -> int:
        """Bitmask over rank columns (bit r = rank column r) of the cards of one suit."""
        out, m = 0, self.mask >> suit
        for r in range(MIN_RANK, MAX_RANK + 1):
            if m >> (4 * r) & 1:
                out |= 1 << r
        return out

    def suits_of_rank(self, rank: int) -> int:
        """Bitmask over suits (bit s = suit row s) held at one rank column."""
        return (self.mask >> (4 * rank)) & 0xF

    def __str__(self) -> str:
        return " ".join(card_name(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"


EMPTY = CardSet(0)
