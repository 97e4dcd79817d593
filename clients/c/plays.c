/* plays.c: reading plays and finding the legal ones (see plays.h).
 *
 * The rules a follow must keep (uecda, the reference server's): the same kind and number of
 * cards as the field; a single or a group of a stronger rank; a sequence whose lowest card
 * is above the field's highest; under a lock the same suits; the lone joker beats any
 * single, and only the 3 of spades beats the lone joker.  "Stronger" turns round during a
 * revolution and an 11-back. */
#include "plays.h"

#include <string.h>

play_info read_play(const table_t t) {
    play_info p = {PLAY_PASS, 0, COLS, -1, 0};
    int row = -1, col = -1, same_row = 1, same_col = 1, value = 0;
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < COLS; c++) {
            if (t[r][c] == 0) continue;
            if (p.count > 0 && r != row) same_row = 0;
            if (p.count > 0 && c != col) same_col = 0;
            row = r, col = c, value = t[r][c];
            p.count++;
            p.suits |= 1 << r;
            if (c < p.low) p.low = c;
            if (c > p.high) p.high = c;
        }
    if (p.count == 0) return p;
    if (p.count == 1) p.kind = value == 2 ? PLAY_JOKER : PLAY_SINGLE;
    else if (same_col) p.kind = PLAY_GROUP;
    else if (same_row && p.count >= 3 && p.high - p.low + 1 == p.count) p.kind = PLAY_SEQUENCE;
    else p.kind = PLAY_BAD;
    return p;
}

int reversed(const game_view *view) { return view->revolution ^ view->eleven_back; }

int stronger(const game_view *view, int col, int than) {
    return reversed(view) ? col < than : col > than;
}

int has_card(const table_t hand, int suit, int col) { return hand[suit][col] == 1; }

int has_joker(const table_t hand) {
    for (int c = 0; c < COLS; c++)
        if (hand[4][c] == 2) return 1;
    return 0;
}

/* The rank columns 1 (the 3) .. 13 (the 2), weakest first under the current order. */
static int nth_weakest(const game_view *view, int i) { return reversed(view) ? 13 - i : 1 + i; }

/* Choose `count` suits of rank `col` from the hand; under a lock exactly the suits `need`. */
static int pick_suits(const game_view *view, int col, int count, int need, table_t out) {
    int picked = 0;
    for (int r = 0; r < 4 && picked < count; r++) {
        if (view->lock && !(need >> r & 1)) continue;
        if (has_card(view->hand, r, col)) out[r][col] = 1, picked++;
    }
    if (picked == count && (!view->lock || need < 16)) return 1;
    memset(out, 0, sizeof(table_t));
    return 0;
}

static int follow_group(const game_view *view, play_info f, table_t out) {
    for (int i = 0; i < 13; i++) {
        int col = nth_weakest(view, i);
        if (stronger(view, col, f.low) && pick_suits(view, col, f.count, f.suits, out)) return 1;
    }
    if (f.kind == PLAY_SINGLE && has_joker(view->hand)) {
        out[0][14] = 2; /* the lone joker beats any single */
        return 1;
    }
    return 0;
}

static int follow_sequence(const game_view *view, play_info f, table_t out) {
    int n = f.count;
    for (int i = 0; i + n <= 13; i++) {
        int low = reversed(view) ? 13 - i - n + 1 : 1 + i; /* weakest first */
        int beats = reversed(view) ? low + n - 1 < f.low : low > f.high;
        if (!beats) continue;
        for (int r = 0; r < 4; r++) {
            if (view->lock && !(f.suits >> r & 1)) continue;
            int c = low;
            while (c < low + n && has_card(view->hand, r, c)) c++;
            if (c == low + n) {
                for (c = low; c < low + n; c++) out[r][c] = 1;
                return 1;
            }
        }
    }
    return 0;
}

int weakest_follow(const game_view *view, table_t out) {
    play_info f = read_play(view->field);
    memset(out, 0, sizeof(table_t));
    switch (f.kind) {
    case PLAY_JOKER: /* only the 3 of spades beats it */
        if (!has_card(view->hand, 0, 1)) return 0;
        out[0][1] = 1;
        return 1;
    case PLAY_SINGLE:
    case PLAY_GROUP:
        return follow_group(view, f, out);
    case PLAY_SEQUENCE:
        return follow_sequence(view, f, out);
    default:
        return 0;
    }
}

int weakest_lead(const game_view *view, table_t out) {
    memset(out, 0, sizeof(table_t));
    for (int i = 0; i < 13; i++) {
        int col = nth_weakest(view, i), best_row = -1, best_len = 0;
        int step = reversed(view) ? -1 : 1; /* a sequence from here towards stronger ranks */
        for (int r = 0; r < 4; r++) {
            int len = 0;
            while (col + step * len >= 1 && col + step * len <= 13 &&
                   has_card(view->hand, r, col + step * len))
                len++;
            if (len > best_len) best_len = len, best_row = r;
        }
        if (best_len == 0) continue; /* no card of this rank */
        if (best_len >= 3) {         /* a sequence gets rid of the most weak cards */
            for (int k = 0; k < best_len; k++) out[best_row][col + step * k] = 1;
            return 1;
        }
        for (int r = 0; r < 4; r++) /* else every card of the weakest rank: a single or group */
            if (has_card(view->hand, r, col)) out[r][col] = 1;
        return 1;
    }
    if (!has_joker(view->hand)) return 0;
    out[0][14] = 2; /* only the joker is left */
    return 1;
}

void weakest_cards(const game_view *view, int count, table_t out) {
    memset(out, 0, sizeof(table_t));
    for (int col = 1; col <= 13 && count > 0; col++) /* before play: no revolution */
        for (int r = 0; r < 4 && count > 0; r++)
            if (has_card(view->hand, r, col)) out[r][col] = 1, count--;
}
