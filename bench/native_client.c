/* A minimal native UECda 20070 client for `daihinmin bench tcp`: it costs almost nothing, so
 * the bench sees the server's own cost.
 *
 * usage: bench_native_client HOST PORT [NAME] [--strict] [--record FILE]
 *
 * Sends the profile (protocol 20070, the name in row 1), reads its player number, and then per
 * game: the deal table (answered with the [5][1] weakest plain cards when it must give), and per
 * turn the turn table, the move (the weakest single card when the field is empty, else a pass;
 * always legal), the 9/8 answer, the field table and the end flag (2 ends the match).
 *
 * With --strict every message is taken with exactly ONE read() call of its size, as the
 * reference C client does: a message split across reads is a failure (exit 3), so the bench
 * and the tests can check that the server's writes keep every table whole.  Without it the
 * client loops until it has the message.  With --record FILE every message read and written
 * goes to FILE in order, as 'R' or 'W', its size (4 bytes, this machine's order) and its bytes:
 * the bench's floor server (bench_floor_server.c) replays a session built from five such
 * recordings.  Exit codes: 0 done, 1 connection, 2 usage, 3 protocol. */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROWS 8
#define COLS 15
#define CELLS (ROWS * COLS)
#define TABLE_BYTES (CELLS * 4)

static int strict = 0;
static FILE *record = NULL; /* --record: every message in and out, in order */

static void record_message(char dir, const void *buf, size_t size) {
    if (record == NULL) return;
    uint32_t n = (uint32_t)size;
    if (fputc(dir, record) == EOF || fwrite(&n, sizeof n, 1, record) != 1 ||
        fwrite(buf, 1, size, record) != size) {
        fprintf(stderr, "bench_native_client: cannot write the recording\n");
        exit(1);
    }
}

static int read_message(int fd, void *buf, size_t size) {
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, (char *)buf + got, size - got);
        if (n <= 0) return n == 0 ? -1 : -2;
        got += (size_t)n;
        if (strict && got < size) {
            fprintf(stderr, "bench_native_client: a message of %zu bytes came in %zd bytes\n",
                    size, n);
            exit(3);
        }
    }
    return 0;
}

static void read_or_exit(int fd, void *buf, size_t size) {
    int rc = read_message(fd, buf, size);
    if (rc != 0) {
        fprintf(stderr, "bench_native_client: %s\n",
                rc == -1 ? "the server closed the connection" : "read failed");
        exit(1);
    }
    record_message('R', buf, size);
}

static void read_table(int fd, uint32_t t[CELLS]) {
    read_or_exit(fd, t, TABLE_BYTES);
    for (int i = 0; i < CELLS; i++) t[i] = ntohl(t[i]);
}

static uint32_t read_int(int fd) {
    uint32_t v;
    read_or_exit(fd, &v, 4);
    return ntohl(v);
}

static void send_table(int fd, const uint32_t t[CELLS]) {
    uint32_t wire[CELLS];
    for (int i = 0; i < CELLS; i++) wire[i] = htonl(t[i]);
    record_message('W', wire, TABLE_BYTES);
    size_t sent = 0;
    while (sent < TABLE_BYTES) {
        ssize_t n = write(fd, (const char *)wire + sent, TABLE_BYTES - sent);
        if (n <= 0) {
            fprintf(stderr, "bench_native_client: write failed\n");
            exit(1);
        }
        sent += (size_t)n;
    }
}

#define AT(t, r, c) ((t)[(r) * COLS + (c)])

/* The `count` weakest plain cards of the hand (the joker, a 2 in row 4, is never chosen). */
static void weakest(const uint32_t hand[CELLS], int count, uint32_t out[CELLS]) {
    memset(out, 0, sizeof(uint32_t) * CELLS);
    for (int c = 1; c <= 13 && count > 0; c++)
        for (int r = 0; r < 4 && count > 0; r++)
            if (AT(hand, r, c) == 1) {
                AT(out, r, c) = 1;
                count--;
            }
}

static int connect_to(const char *host, const char *port) {
    struct addrinfo hints, *res, *p;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
    int fd = -1;
    for (p = res; p != NULL; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype, p->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, p->ai_addr, p->ai_addrlen) == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

int main(int argc, char **argv) {
    const char *name = "native";
    int positional = 0;
    const char *host = NULL, *port = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--strict") == 0) strict = 1;
        else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc) {
            record = fopen(argv[++i], "wb");
            if (record == NULL) {
                fprintf(stderr, "bench_native_client: cannot open %s\n", argv[i]);
                return 2;
            }
            setvbuf(record, NULL, _IOFBF, 1 << 20);
        }
        else if (positional == 0) { host = argv[i]; positional++; }
        else if (positional == 1) { port = argv[i]; positional++; }
        else if (positional == 2) { name = argv[i]; positional++; }
    }
    if (host == NULL || port == NULL) {
        fprintf(stderr, "usage: bench_native_client HOST PORT [NAME] [--strict] [--record FILE]\n");
        return 2;
    }
    int fd = connect_to(host, port);
    if (fd < 0) {
        fprintf(stderr, "bench_native_client: cannot connect to %s:%s\n", host, port);
        return 1;
    }
    uint32_t t[CELLS], move[CELLS];
    memset(t, 0, sizeof t);
    AT(t, 0, 0) = 20070;
    for (int i = 0; i < 14 && name[i]; i++) AT(t, 1, i) = (unsigned char)name[i];
    send_table(fd, t);
    (void)read_int(fd); /* our player number */
    for (;;) {
        read_table(fd, t); /* the deal */
        if (AT(t, 5, 0) != 1) {
            fprintf(stderr, "bench_native_client: expected a deal table ([5][0] = 1)\n");
            return 3;
        }
        if (AT(t, 5, 1) > 0) {
            weakest(t, (int)AT(t, 5, 1), move);
            send_table(fd, move);
        }
        uint32_t flag = 0;
        do {
            read_table(fd, t); /* the turn table */
            if (AT(t, 5, 2) == 1) {
                if (AT(t, 5, 4) == 1) {
                    weakest(t, 1, move);
                    int any = 0;
                    for (int i = 0; i < CELLS; i++) any |= move[i] != 0;
                    if (!any) AT(move, 0, 1) = 2; /* only the joker left: lead it alone */
                } else {
                    memset(move, 0, sizeof move); /* pass */
                }
                send_table(fd, move);
                (void)read_int(fd); /* 9 accepted, 8 rejected */
            }
            read_table(fd, t); /* the field table */
            flag = read_int(fd);
        } while (flag == 0);
        if (flag == 2) break;
    }
    close(fd);
    if (record != NULL && fclose(record) != 0) {
        fprintf(stderr, "bench_native_client: cannot write the recording\n");
        return 1;
    }
    return 0;
}
