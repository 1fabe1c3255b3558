/* env_testing.h — what the environment tests (test_control,
 * test_control_scale, test_taskset) share: blocking loopback clients of the
 * control channel, reading whole lines, and the process's resident memory.
 *
 * Reads retry on EINTR: under valgrind (and with SO_RCVTIMEO set) a signal
 * such as a grader command's SIGCHLD interrupts a blocked read instead of
 * restarting it, and that is not the server's failure. */
#ifndef RIG_ENV_TESTING_H
#define RIG_ENV_TESTING_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "testing.h"

/* How long a read waits: long enough for valgrind on a loaded machine. */
#define ENV_TEST_READ_TIMEOUT_S 60

/* A connected socket to the loopback port, with the read timeout set. */
static inline int env_connect(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    struct timeval tv = {ENV_TEST_READ_TIMEOUT_S, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* Write all n bytes of s. */
static inline void env_send(int fd, const char *s, size_t n) {
    size_t off = 0;
    while (off < n) {
        ssize_t k = write(fd, s + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        assert_true(k > 0);
        off += (size_t)k;
    }
}

/* read(2) that retries when a signal interrupts it. */
static inline ssize_t env_read(int fd, char *buf, size_t n) {
    ssize_t k;
    do
        k = read(fd, buf, n);
    while (k < 0 && errno == EINTR);
    return k;
}

typedef struct client {
    int fd;
    char buf[65536];
    size_t len;
} client;

static inline client *cl_open(int port) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->fd = env_connect(port);
    return c;
}

static inline void cl_close(client *c) {
    close(c->fd);
    free(c);
}

static inline void cl_send(client *c, const char *s) { env_send(c->fd, s, strlen(s)); }

/* The next line (malloc'd, without its newline), or NULL at EOF or when
 * the read timed out. */
static inline char *cl_line(client *c) {
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            char *out = strndup(c->buf, n);
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return out;
        }
        assert_true(c->len < sizeof c->buf); /* a line longer than the tests send */
        ssize_t k = env_read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (k <= 0)
            return NULL;
        c->len += (size_t)k;
    }
}

/* This process's resident set, in KiB (-1 if unknown). */
static inline long rss_kib(void) {
    FILE *fp = fopen("/proc/self/status", "r");
    if (!fp)
        return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    fclose(fp);
    return kib;
}

#endif
