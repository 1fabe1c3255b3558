/* shell_proc.c — one shell command, run to its end within its bounds
 * (shell_proc.h).
 *
 * fork, not posix_spawn: the child must join a new process group and
 * enter its Landlock domain before exec, and posix_spawn offers the first
 * but not the second. The parent may have many threads, so the child only
 * makes async-signal-safe calls (setpgid, dup2, chdir, prctl and the
 * Landlock syscalls, execve, _exit) on what the parent prepared.
 *
 * The parent polls the output pipes (and feeds stdin) with a timeout of at
 * most POLL_MS, which is also how often it looks at the deadline and at
 * cancellation. Once the command has exited and its output pipes are shut,
 * or the grace for stragglers is over, whatever is left of its group is
 * killed and the command reaped: one waitpid per run, no zombie. */
#define _GNU_SOURCE
#include "tools/shell_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/landlock.h"
#include "util/monotime.h"

#define POLL_MS 50
#define CAP_DEFAULT 30000
#define LINGER_MS 200 /* output read after the command exits, from what it left running */

extern char **environ;

/* A stream being read: the head in full, the tail in a ring, and (past
 * the cap, with a spill directory) the whole of it in a file. */
typedef struct sink {
    int fd;                    /* the pipe, or -1 once shut */
    size_t cap;
    char *head;
    size_t head_len;
    char *ring;
    size_t ring_len, ring_at;  /* bytes held, next write position */
    uint64_t total;
    const char *spill_dir;
    const char *name;          /* "stdout" or "stderr", for the file's name */
    int stream;                /* 1 or 2, for on_output */
    void (*on_output)(void *ud, int stream, const char *p, size_t n);
    void *output_ud;
    int spill_fd;
    char *spill_path;
    bool failed;               /* out of memory */
} sink;

static void ring_put(sink *s, const char *p, size_t n)
{
    size_t half = s->cap - s->cap / 2;
    for (size_t i = 0; i < n; i++) {
        s->ring[s->ring_at] = p[i];
        s->ring_at = (s->ring_at + 1) % half;
        if (s->ring_len < half)
            s->ring_len++;
    }
}

/* The ring's bytes in order into out (ring_len bytes). */
static void ring_copy(const sink *s, char *out)
{
    size_t half = s->cap - s->cap / 2;
    size_t start = (s->ring_at + half - s->ring_len) % half;
    for (size_t i = 0; i < s->ring_len; i++)
        out[i] = s->ring[(start + i) % half];
}

static void spill_start(sink *s)
{
    if (!s->spill_dir)
        return;
    char tmpl[4096];
    int n = snprintf(tmpl, sizeof tmpl, "%s/rig-%s-XXXXXX", s->spill_dir, s->name);
    if (n < 0 || (size_t)n >= sizeof tmpl)
        return;
    int fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd < 0)
        return;
    s->spill_fd = fd;
    s->spill_path = strdup(tmpl);
    /* what came before: the head, then the ring (all of it, so far) */
    char *tail = malloc(s->ring_len ? s->ring_len : 1);
    if (!s->spill_path || !tail) {
        free(tail);
        close(fd);
        unlink(tmpl);
        free(s->spill_path);
        s->spill_path = NULL;
        s->spill_fd = -1;
        return;
    }
    ring_copy(s, tail);
    if (write(fd, s->head, s->head_len) != (ssize_t)s->head_len ||
        write(fd, tail, s->ring_len) != (ssize_t)s->ring_len) {
        close(fd);
        unlink(tmpl);
        free(s->spill_path);
        s->spill_path = NULL;
        s->spill_fd = -1;
    }
    free(tail);
}

static void spill_drop(sink *s)
{
    close(s->spill_fd);
    unlink(s->spill_path);
    free(s->spill_path);
    s->spill_path = NULL;
    s->spill_fd = -1;
}

static void sink_add(sink *s, const char *p, size_t n)
{
    if (s->on_output)
        s->on_output(s->output_ud, s->stream, p, n);
    /* Crossing the cap: everything so far is still head + ring, so the
     * file can start whole; from then on every byte goes to it as well. */
    if (s->total <= s->cap && s->total + n > s->cap)
        spill_start(s);
    if (s->spill_fd >= 0 && write(s->spill_fd, p, n) != (ssize_t)n)
        spill_drop(s);
    size_t half = s->cap / 2;
    size_t to_head = s->head_len < half ? half - s->head_len : 0;
    if (to_head > n)
        to_head = n;
    memcpy(s->head + s->head_len, p, to_head);
    s->head_len += to_head;
    ring_put(s, p + to_head, n - to_head);
    s->total += n;
}

/* Read what the pipe has; false at its end (or on an error). */
static bool sink_read(sink *s)
{
    char buf[65536];
    for (;;) {
        ssize_t k = read(s->fd, buf, sizeof buf);
        if (k > 0) {
            sink_add(s, buf, (size_t)k);
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno == EAGAIN)
            return true;
        return false;
    }
}

static void sink_close(sink *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* The stream as the result gives it. */
static void sink_finish(sink *s, rig__proc_stream *out)
{
    out->total = s->total;
    char *tail = malloc(s->ring_len + 1);
    size_t cut = s->total > s->head_len + s->ring_len ? s->total - s->head_len - s->ring_len : 0;
    char note[128] = "";
    if (cut)
        snprintf(note, sizeof note, "\n[... %zu bytes cut from the middle ...]\n", cut);
    size_t nl = strlen(note);
    out->text = tail ? malloc(s->head_len + nl + s->ring_len + 1) : NULL;
    if (out->text) {
        ring_copy(s, tail);
        memcpy(out->text, s->head, s->head_len);
        memcpy(out->text + s->head_len, note, nl);
        memcpy(out->text + s->head_len + nl, tail, s->ring_len);
        out->len = s->head_len + nl + s->ring_len;
        out->text[out->len] = '\0';
    }
    free(tail);
    if (s->spill_fd >= 0) {
        close(s->spill_fd);
        out->file = s->spill_path;
        s->spill_path = NULL;
    }
    free(s->head);
    free(s->ring);
    free(s->spill_path);
}

/* write(2) to the command's stdin without dying of SIGPIPE when it has
 * stopped reading: the signal is blocked in this thread for the write and
 * a pending one taken back, so the process's handlers are left alone. */
static ssize_t write_quiet(int fd, const void *p, size_t n)
{
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    ssize_t k = write(fd, p, n);
    int e = errno;
    if (k < 0 && e == EPIPE) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return k;
}

static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

int rig__proc_run(const rig__proc_opts *o, rig__proc_result *r, char *why, size_t why_cap)
{
    *r = (rig__proc_result){0};
    if (!o || !o->command) {
        snprintf(why, why_cap, "no command");
        return -1;
    }
    size_t cap = o->cap ? o->cap : CAP_DEFAULT;
    if (cap < 2)
        cap = 2;
    sink out = {-1, cap, malloc(cap / 2 + 1), 0, malloc(cap - cap / 2), 0, 0, 0,
                o->spill_dir, "stdout", 1, o->on_output, o->output_ud, -1, NULL, false};
    sink err = {-1, cap, malloc(cap / 2 + 1), 0, malloc(cap - cap / 2), 0, 0, 0,
                o->spill_dir, "stderr", 2, o->on_output, o->output_ud, -1, NULL, false};
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, pi[2] = {-1, -1};
    int devnull = -1;
    int rc = -1;
    if (!out.head || !out.ring || !err.head || !err.ring) {
        snprintf(why, why_cap, "out of memory");
        goto fail;
    }
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) ||
        (o->stdin_data && pipe2(pi, O_CLOEXEC))) {
        snprintf(why, why_cap, "cannot make pipes: %s", strerror(errno));
        goto fail;
    }
    if (!o->stdin_data && (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(why, why_cap, "cannot open /dev/null: %s", strerror(errno));
        goto fail;
    }
    if (o->cwd && o->cwd_fd <= 0) {
        struct stat st;
        if (stat(o->cwd, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(why, why_cap, "the working directory '%s' is not a directory", o->cwd);
            goto fail;
        }
    }
    char *argv[] = {"/bin/sh", "-c", (char *)o->command, NULL};
    int64_t t0 = rig__now_ms();
    pid_t pid = vfork();
    if (pid < 0) {
        snprintf(why, why_cap, "cannot start the command: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        /* the child: async-signal-safe calls only */
        setpgid(0, 0);
        /* if rig dies without stopping it (SIGKILL, a crash), so does the
         * command: the thread that forked waits for it, so the signal
         * cannot come early */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int in = o->stdin_data ? pi[0] : devnull;
        if (dup2(in, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
            _exit(127);
        if (o->cwd_fd > 0 ? fchdir(o->cwd_fd) != 0 : o->cwd && chdir(o->cwd) != 0)
            _exit(127);
        if (o->landlock_fd >= 0 && rig__landlock_apply(o->landlock_fd) != 0) {
            static const char msg[] = "rig: the sandbox could not be entered\n";
            (void)!write(2, msg, sizeof msg - 1);
            _exit(126); /* never run unconfined by accident */
        }
        /* the parent's ignored signals and blocked mask would be inherited */
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(argv[0], argv, o->envp ? o->envp : environ);
        _exit(127);
    }
    setpgid(pid, pid); /* both sides, so it holds before either goes on */
    /* A pidfd turns the child's exit into a poll event, so a short command
     * is reaped the moment it ends rather than at the next POLL_MS tick. */
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    if (pi[0] >= 0) {
        close(pi[0]);
        pi[0] = -1;
        fcntl(pi[1], F_SETFL, O_NONBLOCK);
    }
    out.fd = po[0];
    err.fd = pe[0];
    po[0] = pe[0] = -1;
    fcntl(out.fd, F_SETFL, O_NONBLOCK);
    fcntl(err.fd, F_SETFL, O_NONBLOCK);

    size_t fed = 0;
    int64_t deadline = o->timeout_ms > 0 ? t0 + o->timeout_ms : 0;
    int64_t kill_at = 0, linger_until = 0;
    bool exited = false, killed = false;
    int status = 0;
    for (;;) {
        struct pollfd fds[4];
        nfds_t nf = 0;
        if (out.fd >= 0)
            fds[nf++] = (struct pollfd){out.fd, POLLIN, 0};
        if (err.fd >= 0)
            fds[nf++] = (struct pollfd){err.fd, POLLIN, 0};
        if (pi[1] >= 0)
            fds[nf++] = (struct pollfd){pi[1], POLLOUT, 0};
        if (pidfd >= 0 && !exited)
            fds[nf++] = (struct pollfd){pidfd, POLLIN, 0};
        if (nf)
            poll(fds, nf, POLL_MS);
        else if (!exited)
            usleep(POLL_MS * 1000);
        if (out.fd >= 0 && !sink_read(&out))
            sink_close(&out);
        if (err.fd >= 0 && !sink_read(&err))
            sink_close(&err);
        if (pi[1] >= 0) {
            ssize_t k = fed < o->stdin_len
                            ? write_quiet(pi[1], o->stdin_data + fed, o->stdin_len - fed)
                            : 0;
            if (k > 0)
                fed += (size_t)k;
            if (fed >= o->stdin_len || (k < 0 && errno != EAGAIN && errno != EINTR)) {
                close(pi[1]); /* all given (or the command stopped reading) */
                pi[1] = -1;
            }
        }
        if (!exited) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                exited = true;
                linger_until = rig__now_ms() + LINGER_MS;
            }
        }
        int64_t now = rig__now_ms();
        if (!exited && !kill_at) {
            bool late = deadline && now >= deadline;
            bool stop = o->cancelled && o->cancelled(o->cancel_ud);
            if (late || stop) {
                r->timed_out = late;
                r->cancelled = stop && !late;
                kill(-pid, SIGTERM);
                kill_at = now + RIG_PROC_KILL_GRACE_MS;
            }
        } else if (!exited && !killed && now >= kill_at) {
            kill(-pid, SIGKILL);
            killed = true;
        }
        bool drained = out.fd < 0 && err.fd < 0;
        if (exited && (drained || now >= linger_until))
            break;
    }
    /* what it left running in its group goes with it */
    kill(-pid, SIGKILL);
    if (pidfd >= 0)
        close(pidfd);
    sink_close(&out);
    sink_close(&err);
    r->duration_ms = rig__now_ms() - t0;
    r->exit_code = r->timed_out || r->cancelled ? 124 : exit_code(status);
    rc = 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
        if (pi[i] >= 0)
            close(pi[i]);
    }
    if (devnull >= 0)
        close(devnull);
    sink_close(&out);
    sink_close(&err);
    sink_finish(&out, &r->out);
    sink_finish(&err, &r->err);
    if (rc != 0)
        rig__proc_result_free(r);
    return rc;
}

void rig__proc_result_free(rig__proc_result *r)
{
    if (!r)
        return;
    free(r->out.text);
    free(r->out.file);
    free(r->err.text);
    free(r->err.file);
    *r = (rig__proc_result){0};
}
