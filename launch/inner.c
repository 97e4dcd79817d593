/* The guard's inner half, in C: the first process in a player's sandbox.
 *
 * bwrap runs it as
 *
 *     inner FD PORT -- PLAYER...
 *
 * in a network namespace of its own, where nothing but the sandbox's loopback exists.  It
 *
 * 1. listens on 127.0.0.1:PORT there (the real server's port, so the player's {host}:{port}
 *    is an ordinary TCP address) and passes the listening socket out to the guard over the
 *    inherited SOCK_SEQPACKET socket FD ("listen" + SCM_RIGHTS); the guard hands it to the
 *    table's server, which accepts the player's connections on it itself.  A socket stays in
 *    the namespace it was made in, so the player reaches that server and nothing else, and
 *    no byte of the game passes through this process;
 * 2. starts the player and waits for it;
 * 3. sends "exit STATUS CPU RSS LEFT" to the guard (the player's wait status, CPU seconds,
 *    peak memory in MiB, and how many processes are left in the sandbox: the PID namespace
 *    ends them all when this process ends) and exits with the player's code (128 + a
 *    signal).
 *
 * inner.py does the same where there is no C compiler; this one starts in a millisecond.
 * It is compiled once per machine with the system cc (daihinmin.launch.inner_program) and
 * bind-mounted read-only into the sandbox.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define BACKLOG 16

static void die(const char *what) {
    dprintf(2, "daihinmin sandbox: %s: %s\n", what, strerror(errno));
    exit(125);
}

static int listen_on(int port) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0)
        die("socket");
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0)
        die("bind");
    if (listen(listener, BACKLOG) < 0)
        die("listen");
    return listener;
}

static void send_listener(int guard, int listener) {
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {"listen", 6};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = control.space;
    mh.msg_controllen = sizeof control.space;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &listener, sizeof listener);
    if (sendmsg(guard, &mh, MSG_NOSIGNAL) < 0)
        die("passing the listening socket to the guard");
}

static int processes_left(void) {
    /* every process of the namespace but its init and this one */
    DIR *proc = opendir("/proc");
    if (proc == NULL)
        return 0;
    int left = 0;
    pid_t me = getpid();
    for (struct dirent *e; (e = readdir(proc)) != NULL;) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*e->d_name != '\0' && *end == '\0' && pid != 1 && pid != me)
            left++;
    }
    closedir(proc);
    return left;
}

static void close_from(int lowest) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, lowest, ~0U, 0) == 0)
        return;
#endif
    long most = sysconf(_SC_OPEN_MAX);
    for (long fd = lowest; fd < (most > 0 ? most : 1024); fd++)
        close((int)fd);
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        dprintf(2, "usage: inner FD PORT -- PLAYER...\n");
        return 2;
    }
    /* Not dumpable: the player (the same user, and its child) can neither ptrace this
     * process nor take its socket to the guard (pidfd_getfd) to forge the report. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    int guard = atoi(argv[1]);
    fcntl(guard, F_SETFD, FD_CLOEXEC);
    int listener = listen_on(atoi(argv[2]));
    send_listener(guard, listener);
    close(listener); /* the server's copy is the only one: when it closes, so does the port */
    signal(SIGCHLD, SIG_DFL); /* an ignored SIGCHLD would reap the player before us */
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);

    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close_from(3);
        execvp(argv[4], argv + 4);
        dprintf(2, "daihinmin: could not start '%s': %s\n", argv[4], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            die("waitpid");

    struct rusage usage; /* the player's, reaped above */
    getrusage(RUSAGE_CHILDREN, &usage);
    double cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
                 (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    char report[128];
    int size = snprintf(report, sizeof report, "exit %d %.3f %.1f %d", status, cpu,
                        (double)usage.ru_maxrss / 1024.0, processes_left());
    send(guard, report, (size_t)size, MSG_NOSIGNAL);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}
