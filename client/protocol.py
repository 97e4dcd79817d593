"""The client side of UECda protocol 20070 as a sans-IO state machine.

:class:`ClientProtocol` does no I/O.  The runner sends :meth:`ClientProtocol.initiate`'s
profile table, then loops: read what the socket has, hand it to :meth:`ClientProtocol.feed`
(which cuts it into whole messages for :meth:`ClientProtocol.receive`, keeping a partial one
for the next read), and send back every message it returns (one write each).
The bot is called from inside :meth:`receive`.  Both runners (blocking sockets and Trio)
share this class, so the protocol logic exists once.

>>> from daihinmin.contract.view import Bot
>>> proto = ClientProtocol(Bot(), name="me")
>>> len(proto.initiate()), proto.expecting.what
(480, 'waiting for the player number (handshake)')
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import IntEnum, auto

from daihinmin.contract.view import Bot
from daihinmin.protocol.codec import build_exchange, build_profile
from daihinmin.protocol.extension import (
    MAX_PLAYERS,
    PROTOCOL_20260,
    REFUSED,
    build_choice_answer,
    is_choice_table,
)
from daihinmin.protocol.table import (
    INT_BYTES,
    PROTOCOL_20070,
    TABLE_BYTES,
    Table,
    decode_int,
    encode_int,
)
from daihinmin.rules.choices import PendingChoice, resolve_choice
from daihinmin.rules.extension_rules import needs_extension
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

from .errors import BotError, UnexpectedMessageError
from .extension import (
    ExtendedTracker,
    ExtensionRequiredError,
    check_rules,
    pending_of,
    read_ext_deal,
    read_ext_field,
    read_ext_turn,
)
from .tables import (
    ANSWER_ACCEPTED,
    ANSWER_PASS_20071,
    ANSWER_REJECTED,
    END_CONTINUE,
    END_GAME,
    END_MATCH,
    PLAYERS,
    check_int,
    hand_rows,
    move_bytes,
    quick_state,
    quick_turn_and_field,
    read_deal,
    read_field_bytes,
    read_turn_bytes,
)
from .tracker import GameTracker

log = logging.getLogger("daihinmin.client")


class Step(IntEnum):
    """What the client waits for next (the fixed order of §4)."""

    PLAYER_NUMBER = auto()
    DEAL = auto()
    TURN = auto()
    ANSWER = auto()
    FIELD = auto()  # the field table, or (20260, after this client's play) a CHOICE table
    CHOICE_ANSWER = auto()  # 20260: the 9/8 answer to this client's choice
    END_FLAG = auto()
    DONE = auto()


# The steps as plain globals: in Python 3.11 reading a member through its enum class
# costs about ten times a global, and feed reads several a message.
(_PLAYER_NUMBER, _DEAL, _TURN, _ANSWER, _FIELD, _CHOICE_ANSWER, _END_FLAG,
 _DONE) = Step

_SIZES = {_PLAYER_NUMBER: INT_BYTES, _DEAL: TABLE_BYTES, _TURN: TABLE_BYTES,
          _ANSWER: INT_BYTES, _FIELD: TABLE_BYTES, _CHOICE_ANSWER: INT_BYTES,
          _END_FLAG: INT_BYTES}


@dataclass(frozen=True, slots=True)
class Expect:
    """The next message to read: its size in bytes and a description for error messages."""

    step: Step
    size: int
    what: str


@dataclass
class MatchRecord:
    """What the client learnt about the match: its player number and each game's places."""

    player: int = -1
    name: str = ""
    games: int = 0
    places: list[tuple[int, ...] | None] = field(default_factory=list)  # per game, if known
    illegal_moves: int = 0  # moves the bot returned that the client found illegal
    choices: int = 0  # 7-pass / 10-discard questions answered (protocol 20260)
    choices_rejected: int = 0  # answers the server found invalid (it applied its default)


# Passed to the handlers as ``where``; an error carrying it gets the real text in receive().
_CARD_BYTES = 5 * 15 * 4  # rows 0..4 of a 20070 table on the wire
# Field plays remembered (by card rows; about 300 B each plus the play): 100 games of five
# default bots show about 300 different plays, and 256 of them answer 91% of the new fields.
FIELD_PLAYS = 256
_WHERE_LATER = "\x00where the client stands"
_CONTINUE = encode_int(END_CONTINUE)  # the end flag of every turn but a game's last


class ClientProtocol:
    """Consumes server messages, drives the bot, and produces the replies.

    ``extension`` picks the protocol: ``None`` speaks 20260 (``docs/PROTOCOL_EXTENSION.md``)
    when ``rules`` need it and 20070 otherwise; ``True``/``False`` force 20260/20070.
    """

    def __init__(self, bot: Bot, name: str | None = None, rules: RuleSet = UECDA,
                 check_moves: bool = True, extension: bool | None = None) -> None:
        self.bot = bot
        self.name = name if name is not None else getattr(bot, "name", "bot")
        self.rules = rules
        self.check_moves = check_moves  # warn when the bot's move is not legal
        use = needs_extension(rules) if extension is None else extension
        self.version = PROTOCOL_20260 if use else PROTOCOL_20070
        self._plain = not use  # 20070: feed's fast paths apply
        self._rules_warned = False
        self.record = MatchRecord(name=self.name)
        self.step = _PLAYER_NUMBER
        self.game: GameTracker | None = None
        self._sent: Move | None = None
        # The last choice asked, the answer sent and the hand it was chosen from (20260).
        self._choice: tuple[PendingChoice, CardSet, CardSet] | None = None
        self._answer: int | None = None
        self._started = False
        self._unread = b""  # bytes fed but not yet a whole message (feed)
        self.received = 0  # whole messages consumed so far
        # Where the client stood before the last message (named by a failed reply's error).
        self._last: tuple[Step, int | None, int, int, bool] = self._position()
        # Plays read from field tables, by their card rows: passes resend the last one, and
        # the same plays come back game after game (the newest FIELD_PLAYS are kept).
        self._plays: dict[bytes, tuple[dict[tuple[int, int], int], Move | None]] = {}
        # The last turn table's card rows (bytes) and the hand read from them: the hand
        # changes only when this client plays.
        self._hand_rows = b""
        self._hand: CardSet | None = None
        # Bots that keep Bot.on_turn (a no-op) are not shown a view after every field table.
        self._tells_turns = ("on_turn" in getattr(bot, "__dict__", {})
                             or getattr(type(bot), "on_turn", None) is not Bot.on_turn)

    # --- what to do next ----------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.step is _DONE

    @property
    def player(self) -> int:
        return self.record.player

    @property
    def expecting(self) -> Expect:
        return Expect(self.step, _SIZES.get(self.step, 0), self.where())

    def where(self) -> str:
        """Where the client stands, for error messages."""
        return self._describe(self._position())

    def replied_where(self) -> str:
        """Where the client stood before the message it last answered (for send errors)."""
        return self._describe(self._last)

    def _position(self) -> tuple[Step, int | None, int, int, bool]:
        """What :meth:`where` says, taken cheaply (the text is built only for an error)."""
        g = self.game
        return (self.step, g.game if g is not None else None, g.turns if g is not None else 0,
                self.record.games, self._sent is not None)

    def _describe(self, position: tuple[Step, int | None, int, int, bool]) -> str:
        step, game, turns, games, sent = position
        at = f" (game {game}, turn {turns})" if game is not None else ""
        if step is _PLAYER_NUMBER:
            return "waiting for the player number (handshake)"
        if step is _DEAL:
            return f"waiting for the deal table of game {games + 1}"
        if step is _TURN:
            return (f"waiting for the turn table (game {game}, turn {turns + 1})"
                    if game is not None else "waiting for the turn table")
        if step is _ANSWER:
            return f"waiting for the answer to this client's move{at}"
        if step is _FIELD:
            if self.extended and sent:
                return f"waiting for the field table or a choice table{at}"
            return f"waiting for the field table{at}"
        if step is _CHOICE_ANSWER:
            return f"waiting for the answer to this client's choice{at}"
        if step is _END_FLAG:
            return f"waiting for the end flag{at}"
        return "done: the match is over"

    @property
    def extended(self) -> bool:
        """True when this client speaks protocol 20260."""
        return self.version == PROTOCOL_20260

    # --- messages -----------------------------------------------------------------------
    def initiate(self) -> bytes:
        """The profile table to send first."""
        if self._started:
            raise RuntimeError("the profile was already sent")
        self._started = True
        person = bool(getattr(self.bot, "person", False))  # e.g. HumanBot: no move deadline
        return build_profile(self.name, self.version, person).to_bytes(PROTOCOL_20070)

    def receive(self, data: bytes) -> list[bytes]:
        """Consume one whole message (``expecting.size`` bytes); return the replies to send."""
        if not self._started:
            raise RuntimeError("call initiate() and send the profile first")
        step = self.step
        if step is _DONE:
            raise RuntimeError("the match is over; nothing more is expected")
        size = _SIZES.get(step, 0)
        if len(data) != size:
            raise ValueError(f"{self.where()}: a message of {size} bytes, got {len(data)}")
        return self._consume(step, data)

    def _consume(self, step: Step, data: bytes) -> list[bytes]:
        """One whole message of ``step`` (its size checked by the caller)."""
        self._last = position = self._position()
        self.received += 1
        try:
            return _HANDLERS[step](self, data, _WHERE_LATER)
        except UnexpectedMessageError as exc:
            if exc.where is not _WHERE_LATER:
                raise
            # The handlers' checks only need the text when they fail: build it now.
            raise UnexpectedMessageError(self._describe(position), exc.problem, exc.cell,
                                         exc.value) from exc.__cause__

    def feed(self, data: bytes) -> list[bytes]:
        """Bytes as they came off the socket, any amount: every whole message among them is
        consumed in order (one ``recv`` of what is available instead of one per message);
        the rest waits for the next call.  Returns the replies to send, in order."""
        if not self._started:
            raise RuntimeError("call initiate() and send the profile first")
        unread = self._unread + data if self._unread else data
        replies: list[bytes] = []
        pos, end = 0, len(unread)
        step = self.step
        while step is not _DONE:
            size = _SIZES[step]
            if end - pos < size:
                break
            if step is _END_FLAG and unread[pos:pos + size] == _CONTINUE:
                # the end flag of a turn (most messages): no game over to tell anyone
                self.received += 1
                self.step = step = _TURN
            elif step is _TURN and (taken := self._quick_turn(unread, pos, end)):
                size = taken  # the turn table, or it and its field table
                step = self.step
            elif step is _FIELD and self._quick_field(unread, pos):
                step = self.step
            else:
                replies += self._consume(step, unread[pos:pos + size])
                step = self.step
            pos += size
        self._unread = unread[pos:] if pos < end else b""
        return replies

    # --- the fast paths of feed (20070): turn and field tables that answer nothing -------
    # Each takes a message only when it answers nothing and every check passes on cells
    # already known; anything else is left to the handler (False), which reads it whole
    # and names what is wrong.  None of them (nor a turn's end flag) moves ``_last``: it names
    # the message last answered, and these answer nothing.
    def _quick_turn(self, buf: bytes, pos: int, end: int) -> int:
        """A turn table of another player's move whose card rows are the last turn table's
        (this client's hand unchanged), and when it is there and shows a play already read,
        the field table after it too (most turns of a game: one unpack for both).  Returns
        the bytes taken: 0 (the handler reads the turn table), one table or two."""
        game = self.game
        # (a game's first turn table always takes the handler, which sets _hand_rows)
        if (not self._plain or game is None or not game.turns
                or not buf.startswith(self._hand_rows, pos)):
            return 0
        assert self._hand is not None  # set with _hand_rows
        field = pos + TABLE_BYTES
        known = (self._plays.get(buf[field:field + _CARD_BYTES])
                 if end - field >= TABLE_BYTES else None)
        if known is not None and (r := quick_turn_and_field(buf, pos)) is not None:
            if r[0]:  # this client moves: the handler
                return 0
            self.received += 2
            self._sent = self._answer = None
            game.on_turn_facts(self._hand, r[1], r[2], r[3], r[4], r[5], r[6:11])
            observed = game.on_field_facts(known[0], known[1], r[12], r[13], r[14], r[15],
                                           r[16], r[17:], None, None)
            if self._tells_turns:
                self.bot.on_turn(game.view(), observed, observed.is_play)
            self.step = _END_FLAG
            return 2 * TABLE_BYTES
        r = quick_state(buf, pos)
        if r is None or r[0]:  # a check fails, or this client moves: the handler
            return 0
        self.received += 1
        self._sent = self._answer = None
        game.on_turn_facts(self._hand, r[1], r[2], r[3], r[4], r[5], r[6:])
        self.step = _FIELD
        return TABLE_BYTES

    def _quick_field(self, buf: bytes, pos: int) -> bool:
        """A field table showing a play already read (or no cards, once read); this
        client's own move too (its answer is known by then)."""
        known = self._plays.get(buf[pos:pos + _CARD_BYTES]) if self._plain else None
        if known is None:
            return False
        r = quick_state(buf, pos)
        if r is None:
            return False
        game = self._game()
        self.received += 1
        observed = game.on_field_facts(known[0], known[1], r[1], r[2], r[3], r[4], r[5],
                                       r[6:], self._answer, self._sent)
        if self._sent is not None:
            self._follow_hand(game)
        if self._tells_turns:
            self.bot.on_turn(game.view(), observed, observed.is_play)
        self.step = _END_FLAG
        return True

    def _follow_hand(self, game: GameTracker) -> None:
        """After this client's own play: when its hand changed, the card rows the next turn
        tables show are that hand's as the server writes them, no longer the last turn
        table's; kept as the rows to expect, so those turn tables take the fast paths
        (rows that differ only cost the handler's full read, as before)."""
        if game.hand is not self._hand:
            self._hand, self._hand_rows = game.hand, hand_rows(game.hand)

    @property
    def unread(self) -> int:
        """Bytes fed that are not yet a whole message (or came after the match's end)."""
        return len(self._unread)

    # --- handlers (one per step) --------------------------------------------------------
    def _on_player_number(self, data: bytes, where: str) -> list[bytes]:
        value = decode_int(data)
        if value == REFUSED and not self.extended:
            raise ExtensionRequiredError(self.where())
        player = check_int(value, tuple(range(MAX_PLAYERS if self.extended else PLAYERS)),
                           where)
        self.record.player = player
        self.bot.on_match_start(player)
        self.step = _DEAL
        return []

    def _on_deal(self, data: bytes, where: str) -> list[bytes]:
        table = Table.from_bytes(data)
        self.record.games += 1
        if self.extended:
            deal, ext = read_ext_deal(table, where)
            self.rules, self._rules_warned = check_rules(self.rules, ext, self._rules_warned)
            game: GameTracker = ExtendedTracker(self.player, self.rules, self.record.games,
                                                deal, ext)
        else:
            deal = read_deal(table, where)
            game = GameTracker(self.player, self.rules, self.record.games, deal)
        self.game = game
        view = game.view()
        self.bot.on_game_start(view)
        self.step = _TURN
        if deal.give <= 0:
            return []
        cards = self.bot.exchange(view, deal.give)
        if not isinstance(cards, CardSet):
            raise BotError(f"{type(self.bot).__name__}.exchange returned "
                           f"{type(cards).__name__}, not a CardSet")
        if len(cards) != deal.give or not cards <= deal.hand:
            log.warning("game %d: the bot gives %s but must give %d held card(s); sending it "
                        "anyway (the server then picks)", game.game, cards or "nothing",
                        deal.give)
        game.exchange_chosen(cards)
        return [build_exchange(cards).to_bytes(PROTOCOL_20070)]

    def _on_turn(self, data: bytes, where: str) -> list[bytes]:
        game = self._game()
        if isinstance(game, ExtendedTracker):
            turn, ext = read_ext_turn(Table.from_bytes(data), where)
            game.on_ext_turn(turn, ext)
        else:
            rows = data[:_CARD_BYTES]
            known = self._hand if rows == self._hand_rows else None
            turn = read_turn_bytes(data, where, known)
            self._hand_rows, self._hand = rows, turn.hand
            game.on_turn_table(turn)
        self._sent = self._answer = None
        if not turn.state.my_turn:
            self.step = _FIELD
            return []
        view = game.view(my_turn=True)
        move = self.bot.play(view)
        if not isinstance(move, Move):
            raise BotError(f"{type(self.bot).__name__}.play returned {type(move).__name__}, "
                           "not a Move")
        if self.check_moves and not view.allows(move):
            self.record.illegal_moves += 1
            log.warning("game %d turn %d: the bot plays %s, which is not legal here "
                        "(hand %s, field %s); sending it anyway, the server judges",
                        game.game, game.turns, move, view.hand, view.field or "empty")
        self._sent = move
        self.step = _ANSWER
        return [move_bytes(move)]

    def _on_answer(self, data: bytes, where: str) -> list[bytes]:
        allowed = (ANSWER_ACCEPTED, ANSWER_REJECTED, ANSWER_PASS_20071)
        self._answer = check_int(decode_int(data), allowed, where)
        self.step = _FIELD
        return []

    def _on_field(self, data: bytes, where: str) -> list[bytes]:
        game = self._game()
        if isinstance(game, ExtendedTracker):
            table = Table.from_bytes(data)
            if self._sent is not None and is_choice_table(table):
                return self._on_choice(game, table, where)
            shown, ext = read_ext_field(table, where)
            game.on_ext_field(ext)
        else:
            rows = data[:_CARD_BYTES]
            plays = self._plays
            known = plays.get(rows)
            shown = read_field_bytes(data, where, max(self.rules.jokers, 1), known)
            if known is None:
                if len(plays) >= FIELD_PLAYS:
                    del plays[next(iter(plays))]  # the oldest
                plays[rows] = (shown.cells, shown.move)
        observed = game.on_field_table(shown, self._answer, self._sent)
        if self._plain and self._sent is not None:
            self._follow_hand(game)
        if self._tells_turns:
            self.bot.on_turn(game.view(), observed, observed.is_play)
        self.step = _END_FLAG
        return []

    def _on_choice(self, game: ExtendedTracker, table: Table, where: str) -> list[bytes]:
        """20260: a CHOICE table after this client's play (7-pass, 10-discard)."""
        held, ext = read_ext_turn(table, where)
        if not held.state.my_turn or held.state.turn_player != self.player:
            raise UnexpectedMessageError(where, "a choice table for another player", (5, 3),
                                         held.state.turn_player)
        sent, answer = self._sent, self._answer
        if answer != ANSWER_ACCEPTED:
            raise UnexpectedMessageError(where, f"a choice table after the answer {answer} "
                                         f"to this client's move (only a play answered "
                                         f"{ANSWER_ACCEPTED} asks a choice)", (5, 8),
                                         ext.choice_kind)
        assert sent is not None  # _on_field comes here only after this client's move
        game.on_ext_choice(held, ext, sent, answer)
        choice = pending_of(ext, self.player)
        view = game.view(my_turn=True, pending=choice)
        cards = self.bot.choose(view, choice)
        if not isinstance(cards, CardSet):
            raise BotError(f"{type(self.bot).__name__}.choose returned "
                           f"{type(cards).__name__}, not a CardSet")
        if cards not in view.legal_choices():
            log.warning("game %d: the bot answers the %s choice with %s, which is not up to %d "
                        "held card(s); sending it anyway (the server applies its default)",
                        game.game, choice.kind.value, cards or "nothing", choice.count)
        self.record.choices += 1
        self._choice = (choice, cards, view.hand)
        self.step = _CHOICE_ANSWER
        return [build_choice_answer(cards).to_bytes(PROTOCOL_20070)]

    def _on_choice_answer(self, data: bytes, where: str) -> list[bytes]:
        answer = check_int(decode_int(data), (ANSWER_ACCEPTED, ANSWER_REJECTED), where)
        if answer == ANSWER_REJECTED:
            self.record.choices_rejected += 1
        assert self._choice is not None  # this step comes only after _on_choice
        choice, cards, hand = self._choice
        # 9: the cards moved as sent; 8: the server moved the default (the weakest) instead.
        moved = cards if answer == ANSWER_ACCEPTED else resolve_choice(hand, choice, None)[0]
        self._game().on_choice_made(moved)
        self.step = _FIELD  # another choice table, or the field table
        return []

    def _on_end_flag(self, data: bytes, where: str) -> list[bytes]:
        game = self._game()
        flag = check_int(decode_int(data), (END_CONTINUE, END_GAME, END_MATCH), where)
        if flag == END_CONTINUE:
            self.step = _TURN
            return []
        places = game.places()
        self.record.places.append(places)
        log.info("%s (player %d): game %d over, places %s", self.name, self.player, game.game,
                 places if places is not None else "unknown")
        self.bot.on_game_end(game.view(), places)
        self.step = _DEAL if flag == END_GAME else _DONE
        return []

    def _game(self) -> GameTracker:
        assert self.game is not None, "a game table before any deal"
        return self.game


_HANDLERS = {
    _PLAYER_NUMBER: ClientProtocol._on_player_number, _DEAL: ClientProtocol._on_deal,
    _TURN: ClientProtocol._on_turn, _ANSWER: ClientProtocol._on_answer,
    _FIELD: ClientProtocol._on_field, _CHOICE_ANSWER: ClientProtocol._on_choice_answer,
    _END_FLAG: ClientProtocol._on_end_flag,
}

__all__ = ["ClientProtocol", "Expect", "MatchRecord", "Step"]
