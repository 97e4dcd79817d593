/* main.c: the sample UECda client's command line.
 *
 *   ./bot [-h HOST] [-p PORT] [-n NAME]     (defaults: 127.0.0.1, 42485, "sample-c")
 *
 * Connects to a UECda server (protocol 20070), plays the whole match and exits 0 when the
 * server ends it; 1 if the connection fails, 2 for a bad command line. */
#define _POSIX_C_SOURCE 200112L /* close under -std=c99 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uecda.h"

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *name = "sample-c";
    int port = DEFAULT_PORT;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "-h") == 0) host = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "-p") == 0) port = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "-n") == 0) name = argv[++i];
        else {
            fprintf(stderr, "usage: %s [-h HOST] [-p PORT] [-n NAME]\n", argv[0]);
            return 2;
        }
    }
    int fd = uecda_connect(host, port);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot connect to %s:%d\n", argv[0], host, port);
        return 1;
    }
    int status = play_match(fd, name);
    close(fd);
    if (status < 0) {
        fprintf(stderr, "%s: the connection to %s:%d failed during the match\n", argv[0], host,
                port);
        return 1;
    }
    return 0;
}
