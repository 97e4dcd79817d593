/* uecda.h: the UECda card-table protocol 20070 as a sample C client sees it.
 *
 * Every message is either a table of 8 x 15 integers or one integer, each a 32-bit
 * big-endian number.  Rows 0-3 of a table are the suits (spades, hearts, diamonds,
 * clubs), columns 1-13 the ranks 3 4 5 6 7 8 9 10 J Q K A 2; a 1 is a card.  The joker is a 2:
 * at [4][1] in a hand, and in a play in the cell of the card it stands for.  Row 5 is the
 * game state, row 6 the cards left, classes and seats (docs/PROTOCOL.md in the daihinmin
 * repository describes every cell).
 *
 * The files of this client:
 *   uecda.h / uecda.c  the wire and the game loop (you need not change them)
 *   plays.h / plays.c  reading tables and finding legal plays (helpers for your logic)
 *   bot.c              YOUR LOGIC: what to give in the exchange, what to play
 */
#ifndef UECDA_H
#define UECDA_H

#define ROWS 8
#define COLS 15
#define PROTOCOL_VERSION 20070
#define DEFAULT_PORT 42485
#define PLAYERS 5

typedef int table_t[ROWS][COLS];

/* What the bot knows when it is asked.  Filled in by the game loop (uecda.c). */
typedef struct {
    int me;                  /* my player number (0-4) */
    table_t hand;            /* my cards: 1s in rows 0-3, the joker as 2 at [4][1] */
    table_t field;           /* the cards on the field (all 0 when field_empty) */
    int field_empty;         /* 1: nobody has played in this trick yet, I may play anything */
    int revolution;          /* 1: a revolution is on (weaker ranks beat stronger ones) */
    int eleven_back;         /* 1: a jack reversed the order until the trick clears */
    int lock;                /* 1: a follow must have the same suits as the field */
    int cards_left[PLAYERS]; /* cards in each player's hand */
    int classes[PLAYERS];    /* each player's class this game (0 daifugo .. 4 daihinmin) */
    int seats[PLAYERS];      /* the player in each seat; play goes in seat order */
    int game;                /* 1 for the first game of the match */
} game_view;

/* The wire (uecda.c).  Each returns 0 on success, -1 if the connection failed. */
int uecda_connect(const char *host, int port);
int send_profile(int fd, const char *name);
int read_int(int fd, int *value);
int read_table(int fd, table_t t);
int write_table(int fd, table_t t);

/* The game loop: plays a whole match on a connected socket, asking bot.c.
 * Returns 0 when the server ends the match, -1 when the connection fails. */
int play_match(int fd, const char *name);

/* YOUR LOGIC (bot.c). */
void bot_exchange(const game_view *view, int count, table_t give); /* mark `count` cards */
void bot_move(const game_view *view, table_t play);                 /* all zeros = pass */

#endif
