// plays.cpp: reading plays and finding the legal ones (see plays.hpp).
//
// The rules a follow must keep (uecda, the reference server's): the same kind and number of
// cards as the field; a single or a group of a stronger rank; a sequence whose lowest card
// is above the field's highest; under a lock the same suits; the lone joker beats any
// single, and only the 3 of spades beats the lone joker.  "Stronger" turns round during a
// revolution and an 11-back.
#include "plays.hpp"

namespace uecda {

PlayInfo read_play(const Table& t) {
    PlayInfo p;
    bool same_row = true, same_col = true;
    int row = -1, col = -1, value = 0;
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < kCols; c++) {
            if (t[r][c] == 0) continue;
            if (p.count > 0 && r != row) same_row = false;
            if (p.count > 0 && c != col) same_col = false;
            row = r, col = c, value = t[r][c];
            p.count++;
            p.suits |= 1 << r;
            if (c < p.low) p.low = c;
            if (c > p.high) p.high = c;
        }
    if (p.count == 0) return p;
    if (p.count == 1) p.kind = value == 2 ? Kind::Joker : Kind::Single;
    else if (same_col) p.kind = Kind::Group;
    else if (same_row && p.count >= 3 && p.high - p.low + 1 == p.count) p.kind = Kind::Sequence;
    else p.kind = Kind::Bad;
    return p;
}

bool reversed(const GameView& view) { return view.revolution != view.eleven_back; }

bool stronger(const GameView& view, int col, int than) {
    return reversed(view) ? col < than : col > than;
}

bool has_card(const Table& hand, int suit, int col) { return hand[suit][col] == 1; }

bool has_joker(const Table& hand) {
    for (int c = 0; c < kCols; c++)
        if (hand[4][c] == 2) return true;
    return false;
}

namespace {

// The rank columns 1 (the 3) .. 13 (the 2), weakest first under the current order.
int nth_weakest(const GameView& view, int i) { return reversed(view) ? 13 - i : 1 + i; }

// `count` suits of rank `col` from the hand; under a lock exactly the suits `need`.
std::optional<Table> pick_suits(const GameView& view, int col, int count, int need) {
    Table out{};
    int picked = 0;
    for (int r = 0; r < 4 && picked < count; r++) {
        if (view.lock && !(need >> r & 1)) continue;
        if (has_card(view.hand, r, col)) out[r][col] = 1, picked++;
    }
    if (picked == count && (!view.lock || need < 16)) return out;
    return std::nullopt;
}

std::optional<Table> follow_group(const GameView& view, const PlayInfo& f) {
    for (int i = 0; i < 13; i++) {
        int col = nth_weakest(view, i);
        if (!stronger(view, col, f.low)) continue;
        if (auto play = pick_suits(view, col, f.count, f.suits)) return play;
    }
    if (f.kind == Kind::Single && has_joker(view.hand)) {
        Table out{};
        out[0][14] = 2;  // the lone joker beats any single
        return out;
    }
    return std::nullopt;
}

std::optional<Table> follow_sequence(const GameView& view, const PlayInfo& f) {
    const int n = f.count;
    for (int i = 0; i + n <= 13; i++) {
        int low = reversed(view) ? 13 - i - n + 1 : 1 + i;  // weakest first
        bool beats = reversed(view) ? low + n - 1 < f.low : low > f.high;
        if (!beats) continue;
        for (int r = 0; r < 4; r++) {
            if (view.lock && !(f.suits >> r & 1)) continue;
            int c = low;
            while (c < low + n && has_card(view.hand, r, c)) c++;
            if (c < low + n) continue;
            Table out{};
            for (c = low; c < low + n; c++) out[r][c] = 1;
            return out;
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<Table> weakest_follow(const GameView& view) {
    PlayInfo f = read_play(view.field);
    switch (f.kind) {
    case Kind::Joker: {  // only the 3 of spades beats it
        if (!has_card(view.hand, 0, 1)) return std::nullopt;
        Table out{};
        out[0][1] = 1;
        return out;
    }
    case Kind::Single:
    case Kind::Group:
        return follow_group(view, f);
    case Kind::Sequence:
        return follow_sequence(view, f);
    default:
        return std::nullopt;
    }
}

std::optional<Table> weakest_lead(const GameView& view) {
    Table out{};
    for (int i = 0; i < 13; i++) {
        int col = nth_weakest(view, i), best_row = -1, best_len = 0;
        int step = reversed(view) ? -1 : 1;  // a sequence from here towards stronger ranks
        for (int r = 0; r < 4; r++) {
            int len = 0;
            while (col + step * len >= 1 && col + step * len <= 13 &&
                   has_card(view.hand, r, col + step * len))
                len++;
            if (len > best_len) best_len = len, best_row = r;
        }
        if (best_len == 0) continue;  // no card of this rank
        if (best_len >= 3) {          // a sequence gets rid of the most weak cards
            for (int k = 0; k < best_len; k++) out[best_row][col + step * k] = 1;
            return out;
        }
        for (int r = 0; r < 4; r++)  // else every card of the weakest rank: a single or group
            if (has_card(view.hand, r, col)) out[r][col] = 1;
        return out;
    }
    if (!has_joker(view.hand)) return std::nullopt;
    out[0][14] = 2;  // only the joker is left
    return out;
}

Table weakest_cards(const GameView& view, int count) {
    Table out{};
    for (int col = 1; col <= 13 && count > 0; col++)  // before play: no revolution
        for (int r = 0; r < 4 && count > 0; r++)
            if (has_card(view.hand, r, col)) out[r][col] = 1, count--;
    return out;
}

}  // namespace uecda
