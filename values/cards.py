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

from collections.abc import Iterable, Iterator, Set

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


_JOKER2_ALONE = 1 << JOKER2
#: Every bit a card set may hold: the 52 cards and the two jokers.
VALID_BITS = DECK52 | JOKER_BITS
_CHECKED_BITS = ~VALID_BITS | _JOKER2_ALONE


class CardSet(Set[Card]):
    """An immutable set of cards stored as one integer bitmask.

    Jokers are interchangeable, so a set holds them by count: one joker is always bit 60,
    two are bits 60 and 61, whatever mask the set was built from.  Set algebra therefore
    counts jokers (a hand with both jokers minus one joker keeps one).  It follows
    :class:`collections.abc.Set` (``<=``, ``|``, ``&``, ``-``, ``^``, ``isdisjoint``) and
    returns ``NotImplemented`` to anything that is not a ``CardSet``.

    >>> CardSet(1 << JOKER2) == CardSet.parse("JK")
    True
    >>> str(CardSet.parse("S3 JK JK") - CardSet.parse("JK"))
    'S3 JK'
    >>> CardSet.parse("S3") == {card("S3")}
    False
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, mask: int = 0) -> None:
        if mask & _CHECKED_BITS:  # bit 61 or a bit outside the deck: the rare, slow path
            mask = int(mask)
            if mask & ~VALID_BITS:
                raise CardParseError(f"not a card mask: {mask:#x} (bits outside the deck)")
            if mask & JOKER_BITS == _JOKER2_ALONE:  # one joker is always bit 60
                mask ^= JOKER_BITS
        _set_mask(self, int(mask))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[type[CardSet], tuple[int]]:
        return (CardSet, (self.mask,))

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

    # Set algebra on masks; the constructor puts a lone joker back on bit 60.
    def __or__(self, other: object) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return CardSet(self.mask | other.mask)

    def __and__(self, other: object) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: object) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return CardSet(self.mask & ~other.mask)

    def __xor__(self, other: object) -> CardSet:
        if not isinstance(other, CardSet):
            return NotImplemented
        return (self - other) | (other - self)

    __ror__ = __or__
    __rand__ = __and__
    __rxor__ = __xor__

    def __rsub__(self, other: object) -> CardSet:
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __le__(self, other: object) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return self.mask & ~other.mask == 0

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return self.mask != other.mask and self.mask & ~other.mask == 0

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return other.mask & ~self.mask == 0

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, CardSet):
            return NotImplemented
        return self.mask != other.mask and other.mask & ~self.mask == 0

    def isdisjoint(self, other: Iterable[Card]) -> bool:
        if isinstance(other, CardSet):
            return not self.mask & other.mask
        return all(c not in self for c in other)

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


_set_mask = vars(CardSet)["mask"].__set__  # writes the slot directly, past __setattr__
EMPTY = CardSet(0)
