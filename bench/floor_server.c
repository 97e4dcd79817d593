/* The floor server of `daihinmin bench tcp`: what any server of protocol 20070 pays on this
 * machine for a given session, with no judging at all.
 *
 * usage: bench_floor_server SCRIPT
 *
 * SCRIPT (written by bench/floor.py from five recordings of a real `daihinmin serve`
 * session with the native clients) is the session's exact server-side system calls: one
 * write per player per wait (the bytes the real server sent that player since its last
 * wait), and each reply read whole.  This program listens on 127.0.0.1 (an ephemeral port,
 * printed to stderr as "listening on 127.0.0.1:PORT"), accepts the players in order (the
 * k-th connection plays player k), and replays the script on blocking sockets with
 * TCP_NODELAY and the real server's send buffer.  Each reply is compared with the recorded
 * one (a memcmp, no decoding): the native clients are deterministic, so a difference means
 * the replay is not the recorded session (exit 3).  After each game it prints the real
 * server's line "game N: order ..., T turns, ..." so the bench measures the same window.
 *
 * Script layout (this machine's byte order): "DHFL", u32 players, u32 ops, u64 blob size,
 * then ops of four u32 (kind, player, size, 0) and one u64 offset into the blob, then the blob.
 * Kinds: 1 write the blob's bytes, 2 read a reply equal to them, 3 read a reply unchecked
 * (the profile, which carries each client's name), 4 the end of game `player` after `size`
 * turns.  Exit codes: 0 done, 1 connection, 2 usage or script, 3 a reply differs. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SEND_BUFFER_BYTES (64 * 1024) /* as server/connection.py */
#define MAX_PLAYERS 16

enum { OP_WRITE = 1, OP_READ = 2, OP_READ_ANY = 3, OP_GAME = 4 };

struct op {
    uint32_t kind, player, size, unused;
    uint64_t offset;
};

static void fail(int code, const char *what) {
    fprintf(stderr, "bench_floor_server: %s\n", what);
    exit(code);
}

static unsigned char *load(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) fail(2, "cannot open the script");
    if (fseek(f, 0, SEEK_END) != 0) fail(2, "cannot read the script");
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) fail(2, "cannot read the script");
    unsigned char *data = malloc((size_t)n + 1);
    if (data == NULL) fail(2, "the script does not fit in memory");
    if (fread(data, 1, (size_t)n, f) != (size_t)n) fail(2, "cannot read the script");
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void write_all(int fd, const unsigned char *buf, size_t size) {
    while (size > 0) {
        ssize_t n = write(fd, buf, size);
        if (n <= 0) fail(1, "a write failed");
        buf += n;
        size -= (size_t)n;
    }
}

static void read_all(int fd, unsigned char *buf, size_t size) {
    while (size > 0) {
        ssize_t n = read(fd, buf, size);
        if (n <= 0) fail(1, n == 0 ? "a player closed the connection" : "a read failed");
        buf += n;
        size -= (size_t)n;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) fail(2, "usage: bench_floor_server SCRIPT");
    size_t size;
    unsigned char *script = load(argv[1], &size);
    uint32_t players, count;
    uint64_t blob_size;
    size_t header = 4 + 4 + 4 + 8;
    if (size < header || memcmp(script, "DHFL", 4) != 0) fail(2, "not a floor script");
    memcpy(&players, script + 4, 4);
    memcpy(&count, script + 8, 4);
    memcpy(&blob_size, script + 12, 8);
    struct op *ops = (struct op *)(void *)(script + header);
    const unsigned char *blob = script + header + (size_t)count * sizeof(struct op);
    if (players == 0 || players > MAX_PLAYERS || header + (size_t)count * sizeof(struct op) +
        blob_size != size) fail(2, "the script is cut short or too long");
    for (uint32_t i = 0; i < count; i++)
        if (ops[i].kind != OP_GAME && (ops[i].player >= players ||
                                      ops[i].offset + ops[i].size > blob_size))
            fail(2, "an operation points outside the script");

    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(lfd, MAX_PLAYERS) != 0 || getsockname(lfd, (struct sockaddr *)&addr, &len) != 0)
        fail(1, "cannot listen on 127.0.0.1");
    setvbuf(stderr, NULL, _IONBF, 0);
    fprintf(stderr, "listening on 127.0.0.1:%d\n", ntohs(addr.sin_port));
    int fds[MAX_PLAYERS];
    for (uint32_t p = 0; p < players; p++) {
        fds[p] = accept(lfd, NULL, NULL);
        if (fds[p] < 0) fail(1, "accept failed");
        int buffer = SEND_BUFFER_BYTES;
        setsockopt(fds[p], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(fds[p], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
    }
    close(lfd);

    unsigned char reply[4096];
    for (uint32_t i = 0; i < count; i++) {
        const struct op *op = &ops[i];
        const unsigned char *bytes = blob + op->offset;
        switch (op->kind) {
        case OP_WRITE:
            write_all(fds[op->player], bytes, op->size);
            break;
        case OP_READ:
        case OP_READ_ANY:
            if (op->size > sizeof reply) fail(2, "a reply larger than a table");
            read_all(fds[op->player], reply, op->size);
            if (op->kind == OP_READ && memcmp(reply, bytes, op->size) != 0) {
                fprintf(stderr, "bench_floor_server: operation %u: the reply of player %u "
                        "differs from the recorded one\n", i, op->player);
                return 3;
            }
            break;
        case OP_GAME:
            fprintf(stderr, "game %u: order replayed, %u turns, floor\n", op->player,
                    op->size);
            break;
        default:
            fail(2, "an unknown operation in the script");
        }
    }
    for (uint32_t p = 0; p < players; p++) close(fds[p]);
    free(script);
    return 0;
}
