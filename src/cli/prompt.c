/* prompt.c — the terminal prompter of `rig call`: puts an approval, an
 * ask_user question or a plan to the person at the terminal as a numbered
 * list, and reads their answer (rig_prompt_fn, rig/policy.h).
 *
 * It talks to /dev/tty, never to stdin or stdout: stdin may carry the
 * call's arguments (--args -) and stdout its result. It is used only when
 * /dev/tty opens and stdin or stderr is a terminal, so a rig run from a
 * script, a pipe or an MCP host never waits on a keyboard nobody watches;
 * `rig serve` never uses it (its person is behind the MCP client).
 *
 * What it shows comes partly from the model (arguments, a question, a
 * plan), so control characters are shown as ^X, never sent raw: an escape
 * sequence could otherwise redraw the prompt to say something else. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "rig/rig.h"

#define TTY_LINE_MAX 4096 /* bytes of one answer */
#define TTY_TRIES 5       /* answers that are not a choice before giving up */
#define TTY_POLL_MS 200   /* how often a wait checks for cancellation */

struct cli_tty {
    int fd;
    pthread_mutex_t mu; /* one question at a time */
};

struct cli_tty *cli_tty_open(void)
{
    if (!isatty(0) && !isatty(2))
        return NULL;
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct cli_tty *t = calloc(1, sizeof *t);
    if (!t) {
        close(fd);
        return NULL;
    }
    t->fd = fd;
    pthread_mutex_init(&t->mu, NULL);
    return t;
}

void cli_tty_close(struct cli_tty *t)
{
    if (!t)
        return;
    close(t->fd);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* Append `s` to `b` with control characters (C0, DEL, and C1 encoded in
 * UTF-8) shown as ^X; newlines are indented by `indent`. */
static void add_safe(FILE *b, const char *s, const char *indent)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n')
            fprintf(b, "\n%s", indent);
        else if (*p == '\t')
            fputc(' ', b);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(b, "^%c", *p == 0x7f ? '?' : *p + '@');
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            fprintf(b, "^[%02x]", p[1]), p++;
        else
            fputc(*p, b);
    }
}

static void say(struct cli_tty *t, const char *text, size_t len)
{
    while (len) {
        ssize_t k = write(t->fd, text, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;
        text += k;
        len -= (size_t)k;
    }
}

/* One line from the terminal (malloc'd, without the newline): 1, 0 at end
 * of input (Ctrl-D), -1 on an error, -2 when the call was stopped. */
static int read_line(struct cli_tty *t, rig_call *call, char **out)
{
    char buf[TTY_LINE_MAX];
    size_t n = 0;
    for (;;) {
        if (call && rig_call_cancelled(call))
            return -2;
        struct pollfd pfd = {.fd = t->fd, .events = POLLIN};
        int r = poll(&pfd, 1, TTY_POLL_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        char c;
        ssize_t k = read(t->fd, &c, 1);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            return 0;
        if (c == '\n')
            break;
        if (n < sizeof buf - 1)
            buf[n++] = c; /* a longer answer keeps its first TTY_LINE_MAX bytes */
    }
    while (n && isspace((unsigned char)buf[n - 1]))
        n--;
    size_t start = 0;
    while (start < n && isspace((unsigned char)buf[start]))
        start++;
    *out = strndup(buf + start, n - start);
    return *out ? 1 : -1;
}

static int tty_prompt(rig_call *call, const rig_prompt *p, int *choice, char **text, void *ud,
                      rig_error *err)
{
    struct cli_tty *t = ud;
    *choice = -1;
    *text = NULL;
    char *shown = NULL;
    size_t shown_len = 0;
    FILE *b = open_memstream(&shown, &shown_len);
    if (!b)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    fputs("\nrig: ", b);
    add_safe(b, p->title, "     ");
    fputc('\n', b);
    if (p->detail && *p->detail) {
        fputs("  ", b);
        add_safe(b, p->detail, "  ");
        fputc('\n', b);
    }
    for (size_t i = 0; i < p->n_choices; i++) {
        fprintf(b, "  %zu) ", i + 1);
        add_safe(b, p->choices[i], "     ");
        fputc('\n', b);
    }
    if (fclose(b) != 0) {
        free(shown);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    char ask[256];
    snprintf(ask, sizeof ask, "Choose 1-%zu%s%s; an empty line dismisses: ", p->n_choices,
             p->typed ? ", or type " : "", p->typed ? p->typed : "");

    pthread_mutex_lock(&t->mu);
    say(t, shown, shown_len);
    free(shown);
    int rc = RIG_ECANCELED;
    for (int tries = 0; tries < TTY_TRIES; tries++) {
        say(t, ask, strlen(ask));
        char *line = NULL;
        int r = read_line(t, call, &line);
        if (r == 0) {
            say(t, "\n", 1);
            break; /* Ctrl-D: dismissed */
        }
        if (r == -2) {
            say(t, "\n(stopped)\n", 11);
            rc = rig_error_set(err, RIG_ECANCELED, "The call was stopped while waiting for an "
                                                   "answer on the terminal.");
            break;
        }
        if (r < 0) {
            rc = rig_error_set(err, RIG_ENOTSUP, "The terminal could not be read (%s).",
                               strerror(errno));
            break;
        }
        if (!*line) {
            free(line);
            break; /* dismissed */
        }
        char *end;
        long n = strtol(line, &end, 10);
        if (!*end && end != line) {
            free(line);
            if (n >= 1 && (size_t)n <= p->n_choices) {
                *choice = (int)(n - 1);
                rc = RIG_OK;
                break;
            }
            continue;
        }
        if (p->typed) {
            *text = line;
            rc = RIG_OK;
            break;
        }
        free(line);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void cli_tty_use(struct cli_tty *t, struct rig_approval *ap)
{
    rig_approval_set_prompt(ap, t ? tty_prompt : NULL, t);
}
