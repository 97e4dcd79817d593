/* plays.h: reading plays from tables and finding legal ones (helpers for bot.c).
 *
 * A play is written into a table_t as the server wants it: a 1 in the cell of each card
 * (row = suit, column = rank) and, for the joker, a 2 in the cell of the card it stands
 * for; a lone joker may stand in any cell of rows 0-3.  A table of zeros is a pass. */
#ifndef PLAYS_H
#define PLAYS_H

#include "uecda.h"

/* The kinds of play, numbered as the reference server numbers them. */
enum { PLAY_BAD = -1, PLAY_PASS = 0, PLAY_SINGLE = 1, PLAY_GROUP = 2, PLAY_SEQUENCE = 3,
       PLAY_JOKER = 4 };

typedef struct {
    int kind;
    int count;     /* cards, the joker included */
    int low, high; /* lowest and highest column (a single or a group: its rank) */
    int suits;     /* bit r set for each row r the play uses (the joker's row counts) */
} play_info;

play_info read_play(const table_t t);              /* what the cards in rows 0-4 are */
int reversed(const game_view *view);                /* revolution xor 11-back */
int stronger(const game_view *view, int col, int than); /* does rank col beat rank than? */
int has_card(const table_t hand, int suit, int col);
int has_joker(const table_t hand);

/* Each finder clears `out`, writes the play it found and returns 1, or returns 0. */
int weakest_lead(const game_view *view, table_t out);   /* the field is empty */
int weakest_follow(const game_view *view, table_t out); /* the weakest play that beats it */
void weakest_cards(const game_view *view, int count, table_t out); /* for the exchange */

#endif
