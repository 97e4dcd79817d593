/* bot.c: YOUR LOGIC goes here.
 *
 * The game loop (uecda.c) calls two functions and sends what they write:
 *
 *   bot_exchange  at the start of a game, if you are the daifugo (give 2 cards back) or the
 *                 fugo (give 1): mark `count` cards of your hand with 1 in `give`.
 *   bot_move      on your turn: write your play into `play` (1 per card, 2 for the joker
 *                 in the cell of the card it stands for); leave it all zeros to pass.
 *
 * `view` holds your hand, the cards on the field, the state flags (revolution, lock,
 * 11-back, an empty field), everyone's cards left, classes and seats (uecda.h).  plays.h
 * has helpers: read_play() says what a table's cards are, and the weakest_* functions find
 * legal plays.  A play the rules do not allow is answered 8 and counts as a pass.
 *
 * This sample is a simple strategy: lead the weakest cards (a sequence if one starts at the
 * weakest rank, else every card of that rank), follow with the weakest play that beats the
 * field, pass when there is none, and give away the weakest cards. */
#include "plays.h"

void bot_exchange(const game_view *view, int count, table_t give) {
    weakest_cards(view, count, give);
}

void bot_move(const game_view *view, table_t play) {
    if (view->field_empty) {
        weakest_lead(view, play);
        return;
    }
    if (!weakest_follow(view, play)) {
        /* nothing in the hand beats the field: `play` stays all zeros, a pass */
    }
}
