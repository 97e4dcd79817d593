/* uecda.c: the wire and the game loop of the sample client (protocol 20070).
 *
 * Per match: send the profile table ([0][0] = 20070, the name in row 1), read my player
 * number.  Per game: read the deal table; if [5][1] > 0, send that many cards back (the
 * exchange).  Per turn: read the turn table; if [5][2] = 1 it is my turn: send a play and
 * read the answer (9 accepted, 8 rejected and counted as a pass); then read the field
 * table (the cards on the field) and the end flag (0 the game goes on, 1 the game is over,
 * 2 the match is over). */
#define _POSIX_C_SOURCE 200112L /* getaddrinfo, read, write, close under -std=c99 */
#include "uecda.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int uecda_connect(const char *host, int port) {
    struct addrinfo hints, *found, *a;
    char service[16];
    int fd = -1;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &found) != 0) return -1;
    for (a = found; a != NULL; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(found);
    if (fd >= 0) { /* small messages, one per turn: send each at once */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

/* TCP may deliver a message in pieces: read until all of it is there. */
static int read_all(int fd, void *buf, size_t size) {
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, (char *)buf + got, size - got);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t size) {
    size_t sent = 0;
    while (sent < size) {
        ssize_t n = write(fd, (const char *)buf + sent, size - sent);
        if (n <= 0) return -1;
        sent += (size_t)n;
    }
    return 0;
}

int read_int(int fd, int *value) {
    uint32_t raw;
    if (read_all(fd, &raw, sizeof raw) < 0) return -1;
    *value = (int)ntohl(raw);
    return 0;
}

int read_table(int fd, table_t t) {
    uint32_t raw[ROWS * COLS];
    if (read_all(fd, raw, sizeof raw) < 0) return -1;
    for (int i = 0; i < ROWS * COLS; i++) t[i / COLS][i % COLS] = (int)ntohl(raw[i]);
    return 0;
}

int write_table(int fd, table_t t) {
    uint32_t raw[ROWS * COLS]; /* one write per table: the server reads it whole */
    for (int i = 0; i < ROWS * COLS; i++) raw[i] = htonl((uint32_t)t[i / COLS][i % COLS]);
    return write_all(fd, raw, sizeof raw);
}

int send_profile(int fd, const char *name) {
    table_t profile;
    memset(profile, 0, sizeof profile);
    profile[0][0] = PROTOCOL_VERSION;
    for (int i = 0; i < COLS - 1 && name[i] != '\0'; i++) profile[1][i] = (unsigned char)name[i];
    return write_table(fd, profile);
}

/* Rows 5 and 6 of a table into the view. */
static void read_state(table_t t, game_view *view) {
    view->field_empty = t[5][4];
    view->eleven_back = t[5][5];
    view->revolution = t[5][6];
    view->lock = t[5][7];
    for (int p = 0; p < PLAYERS; p++) {
        view->cards_left[p] = t[6][p];
        view->seats[p] = t[6][10 + p];
    }
}

static void copy_cards(table_t from, table_t to) {
    memset(to, 0, sizeof(table_t));
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < COLS; c++) to[r][c] = from[r][c];
}

/* One game: the deal, the exchange, every turn.  Returns the end flag (1 or 2), -1 on error. */
static int play_game(int fd, game_view *view) {
    table_t t, answer;
    int flag, reply;
    if (read_table(fd, t) < 0) return -1;
    copy_cards(t, view->hand);
    memset(view->field, 0, sizeof view->field);
    read_state(t, view);
    for (int p = 0; p < PLAYERS; p++) view->classes[p] = t[6][5 + p]; /* right in the deal */
    if (t[5][1] > 0) { /* the daifugo gives 2 cards back, the fugo 1 */
        memset(answer, 0, sizeof answer);
        bot_exchange(view, t[5][1], answer);
        if (write_table(fd, answer) < 0) return -1;
    }
    for (;;) {
        if (read_table(fd, t) < 0) return -1; /* the turn table: my hand and the state */
        copy_cards(t, view->hand);
        read_state(t, view);
        if (view->field_empty) memset(view->field, 0, sizeof view->field);
        if (t[5][2] == 1) { /* my turn */
            memset(answer, 0, sizeof answer);
            bot_move(view, answer);
            if (write_table(fd, answer) < 0 || read_int(fd, &reply) < 0) return -1;
        }
        if (read_table(fd, t) < 0) return -1; /* the field table: what is on the field now */
        copy_cards(t, view->field);
        if (read_int(fd, &flag) < 0) return -1;
        if (flag != 0) return flag;
    }
}

int play_match(int fd, const char *name) {
    game_view view;
    memset(&view, 0, sizeof view);
    if (send_profile(fd, name) < 0 || read_int(fd, &view.me) < 0) return -1;
    for (view.game = 1;; view.game++) {
        int flag = play_game(fd, &view);
        if (flag < 0) return -1;
        if (flag != 1) return 0; /* 2: the match is over */
    }
}
