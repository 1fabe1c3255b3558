/* stdio.c — MCP's stdio transport: newline-delimited JSON over two file
 * descriptors, driven by a libuv loop on the calling thread.
 *
 * Input comes through a libuv stream (pipe, socket or terminal) or, for a
 * regular file or a device, through one uv_fs_read at a time on libuv's
 * thread pool. rig's framer cuts it into messages for rig_mcp_conn_receive;
 * the bytes of a message never move while the conn reads them. Output goes
 * through send(), in order, from this thread only. While a batch of input
 * is handled or a batch of answers flushed, messages gather in one buffer
 * and go out in one write (a syscall per batch, not per message); a lone
 * message goes out with its newline as one write. uv_try_write takes the
 * common case (the pipe has room) without a copy; the rest is copied into
 * one uv_write request, freed in its callback. A regular file as output is written synchronously (a file never
 * blocks for long, and epoll cannot watch one).
 *
 * Tool calls finish on the toolset's workers; the conn calls wake(), a
 * uv_async_send (thread-safe; wake-ups coalesce), and the loop delivers their
 * answers with rig_mcp_conn_flush.
 *
 * How a session ends:
 *   - end of input: the frames already read are handled, the last line
 *     without a newline too; then the loop waits until no call is pending
 *     and every byte is written (calls have deadlines, so this ends);
 *   - SIGINT or SIGTERM: input stops at once (frames read but not handled are
 *     dropped) and the session ends the same way; a second signal ends it
 *     now, cancelling the calls still running;
 *   - the client stops reading (EPIPE): nothing more can be said, so the
 *     conn is freed at once, which cancels its running calls. That is the
 *     client's way of hanging up, not an error: the function returns 0.
 *
 * Back-pressure: a client that writes requests but does not read answers
 * would make the output queue grow without end. Above STDIO_WRITE_HIGH bytes
 * waiting to be written, input stops (buffered frames wait too) until the
 * queue drains below STDIO_WRITE_LOW.
 *
 * SIGPIPE is blocked on the calling thread while it serves, so a client that
 * went away shows up as EPIPE instead of killing the process; a SIGPIPE this
 * raised is consumed before the old mask returns. Threads started meanwhile
 * (libuv's pool, the toolset's workers) inherit the blocked SIGPIPE.
 *
 * libuv makes a pipe or socket non-blocking, a flag of the open file that the
 * caller's descriptor shares; the caller's flags are restored at the end. The
 * transport works on duplicates of in_fd and out_fd and leaves both open. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "mcp/jsonrpc.h"
#include "rig/json.h"
#include "rig/mcp.h"

/* Limits. The TypeScript and Python SDKs set no frame limit; 16 MiB holds any
 * sensible tool call (a large file's contents as an argument) while bounding
 * what one line may cost. */
#define STDIO_MAX_FRAME ((size_t)16 << 20)
#define STDIO_READ_CHUNK ((size_t)64 << 10)
#define STDIO_WRITE_HIGH ((size_t)64 << 20) /* stop reading above this much unwritten */
#define CORK_KEEP ((size_t)256 << 10)       /* a corked batch this big goes out at once */
#define STDIO_WRITE_LOW ((size_t)16 << 20)  /* read again below this */

typedef union stdio_stream {
    uv_handle_t handle;
    uv_stream_t stream;
    uv_pipe_t pipe;
    uv_tcp_t tcp;
    uv_tty_t tty;
} stdio_stream;

typedef struct stdio_transport {
    uv_loop_t loop;
    rig_mcp_conn *conn;
    rig_error *err;
    int status; /* what rig_mcp_serve_stdio returns */

    /* input */
    int in_fd;        /* our duplicate; a stream handle owns it once open */
    bool in_stream;   /* read through `in` (else uv_fs_read) */
    bool in_inited;   /* `in` needs uv_close */
    bool in_owned;    /* `in` closes in_fd */
    stdio_stream in;
    uv_fs_t read_req;
    bool read_busy;   /* a uv_fs_read is in flight */
    bool reading;     /* uv_read_start is in effect */
    char *buf;        /* input bytes; buf[pos..len) not yet framed */
    size_t pos, len, cap;
    rig_json_framer framer;
    bool eof;         /* no more bytes will be read */
    bool input_done;  /* every frame of the input was handled */
    bool stopped;     /* signal or dead output: handle no more frames */
    bool paused;      /* back-pressure */

    /* output */
    int out_fd;
    bool out_stream;  /* written through `out` (else synchronously) */
    bool out_inited;
    bool out_owned;
    stdio_stream out;
    size_t writes;    /* uv_write requests in flight */
    unsigned corked;  /* cork depth: messages gather in cork_buf */
    char *cork_buf;
    size_t cork_len, cork_cap;
    bool out_dead;    /* the client is gone or the output failed */

    uv_async_t wake;
    bool wake_inited;
    uv_signal_t sigs[2];
    bool sigs_inited[2];
    unsigned signals; /* SIGINT/SIGTERM seen */
    bool closing;
} stdio_transport;

typedef struct out_req {
    uv_write_t req;
    char data[];
} out_req;

static void maybe_finish(stdio_transport *t);
static void pump(stdio_transport *t);
static void start_reading(stdio_transport *t);

/* ---------------------------------------------------------------- output */

/* The output failed: stop taking input; EPIPE and ECONNRESET are the client
 * hanging up, anything else is reported. */
static void fail_output(stdio_transport *t, int uverr)
{
    if (t->out_dead)
        return;
    t->out_dead = true;
    t->stopped = true;
    if (uverr != UV_EPIPE && uverr != UV_ECONNRESET && t->status == RIG_OK)
        t->status = rig_error_set(t->err, uverr == UV_ENOMEM ? RIG_ENOMEM : RIG_EINVAL,
                                  "Writing to fd %d failed: %s.", t->out_fd, uv_strerror(uverr));
}

static void stop_input(stdio_transport *t)
{
    t->eof = true;
    if (t->reading) {
        uv_read_stop(&t->in.stream);
        t->reading = false;
    }
}

static void check_backpressure(stdio_transport *t)
{
    if (t->out_stream && !t->paused &&
        uv_stream_get_write_queue_size(&t->out.stream) > STDIO_WRITE_HIGH) {
        t->paused = true;
        if (t->reading) {
            uv_read_stop(&t->in.stream);
            t->reading = false;
        }
    }
}

static void on_write(uv_write_t *req, int status)
{
    stdio_transport *t = req->handle->data;
    free((out_req *)req);
    t->writes--;
    if (t->closing)
        return;
    if (status < 0)
        fail_output(t, status);
    if (t->paused && uv_stream_get_write_queue_size(&t->out.stream) <= STDIO_WRITE_LOW) {
        t->paused = false;
        pump(t);
        start_reading(t);
    }
    maybe_finish(t);
}

/* Synchronous write of message + newline to a file. */
static int write_file(int fd, const char *a, size_t alen, const char *b, size_t blen)
{
    struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};
    int n = 2, i = 0;
    while (i < n) {
        ssize_t w = writev(fd, iov + i, n - i);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) { /* a device someone made non-blocking */
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                poll(&p, 1, -1);
                continue;
            }
            return uv_translate_sys_error(errno);
        }
        while (i < n && (size_t)w >= iov[i].iov_len)
            w -= (ssize_t)iov[i++].iov_len;
        if (i < n) {
            iov[i].iov_base = (char *)iov[i].iov_base + w;
            iov[i].iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Write a then b (a message and its newline, or a corked batch and
 * nothing) in order, after what is queued. */
static int write_out(stdio_transport *t, const char *a, size_t alen, const char *b, size_t blen)
{
    if (!t->out_stream) {
        int rc = write_file(t->out_fd, a, alen, b, blen);
        if (rc < 0) {
            fail_output(t, rc);
            return -1;
        }
        return 0;
    }
    size_t len = alen + blen;
    if (len >= INT32_MAX) { /* a uv_buf_t holds at most 4 GiB; no message comes near */
        fail_output(t, UV_E2BIG);
        return -1;
    }
    /* Straight into the pipe when it has room and nothing is queued (libuv
     * refuses with EAGAIN while its queue holds bytes, so order is kept). */
    size_t done = 0;
    uv_buf_t bufs[2] = {uv_buf_init((char *)a, (unsigned)alen), uv_buf_init((char *)b, (unsigned)blen)};
    int n = uv_try_write(&t->out.stream, bufs, blen ? 2 : 1);
    if (n >= 0) {
        done = (size_t)n;
    } else if (n != UV_EAGAIN) {
        fail_output(t, n);
        return -1;
    }
    if (done == len)
        return 0;
    size_t rest = len - done;
    out_req *r = malloc(sizeof *r + rest);
    if (!r) {
        fail_output(t, UV_ENOMEM);
        return -1;
    }
    if (done < alen) {
        memcpy(r->data, a + done, alen - done);
        if (blen)
            memcpy(r->data + alen - done, b, blen);
    } else {
        memcpy(r->data, b + (done - alen), rest);
    }
    uv_buf_t buf = uv_buf_init(r->data, (unsigned)rest);
    int rc = uv_write(&r->req, &t->out.stream, &buf, 1, on_write);
    if (rc < 0) {
        free(r);
        fail_output(t, rc);
        return -1;
    }
    t->writes++;
    return 0;
}

/* While corked (handling a batch of input, or flushing a batch of answers),
 * messages gather in one buffer and go out in one write: a syscall per
 * batch, not per message. */
static void cork(stdio_transport *t)
{
    t->corked++;
}

static void uncork(stdio_transport *t)
{
    if (--t->corked > 0 || t->cork_len == 0)
        return;
    size_t n = t->cork_len;
    t->cork_len = 0;
    if (!t->out_dead && !t->closing)
        write_out(t, t->cork_buf, n, NULL, 0);
    if (t->cork_cap > CORK_KEEP) { /* one huge answer need not stay resident */
        free(t->cork_buf);
        t->cork_buf = NULL;
        t->cork_cap = 0;
    }
}

/* rig_mcp_send_fn: one message, then "\n", as one write. */
static int send_message(const char *json, size_t len, const rig_mcp_route *route, void *ud)
{
    if (route && route->close)
        return 0; /* one stream, which stays open */
    stdio_transport *t = ud;
    if (t->out_dead || t->closing)
        return -1;
    if (t->corked && t->out_stream) {
        if (t->cork_len + len + 1 > t->cork_cap) {
            size_t cap = t->cork_cap ? t->cork_cap : 16384;
            while (cap < t->cork_len + len + 1)
                cap *= 2;
            char *b = realloc(t->cork_buf, cap);
            if (!b) {
                fail_output(t, UV_ENOMEM);
                return -1;
            }
            t->cork_buf = b;
            t->cork_cap = cap;
        }
        memcpy(t->cork_buf + t->cork_len, json, len);
        t->cork_buf[t->cork_len + len] = '\n';
        t->cork_len += len + 1;
        if (t->cork_len >= CORK_KEEP) { /* enough for one write */
            size_t n = t->cork_len;
            t->cork_len = 0;
            write_out(t, t->cork_buf, n, NULL, 0);
        }
        return t->out_dead ? -1 : 0;
    }
    return write_out(t, json, len, "\n", 1);
}

/* A line longer than STDIO_MAX_FRAME: the conn never sees it (the framer
 * drops it as it arrives), so the parse error is written here. */
static void answer_too_large(stdio_transport *t)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig__rpc_write_error(&w, (rig_json_val){0}, RIG_MCP_PARSE_ERROR,
                         "Parse error: the message is longer than 16 MiB (16777216 bytes) and "
                         "was skipped.");
    size_t len;
    const char *json = rig_json_writer_finish(&w, &len);
    if (json)
        send_message(json, len, NULL, t);
    rig_json_writer_free(&w);
}

/* ---------------------------------------------------------------- input */

/* Hand every complete frame to the conn, unless back-pressure or a stop says
 * wait; at end of input, the last line too. */
static void pump_frames(stdio_transport *t);

static void pump(stdio_transport *t)
{
    cork(t);
    pump_frames(t);
    uncork(t);
    check_backpressure(t);
}

static void pump_frames(stdio_transport *t)
{
    rig_json_frame fr;
    while (!t->paused && !t->stopped) {
        int rc = rig_json_framer_next(&t->framer, t->buf + t->pos, t->len - t->pos, &fr);
        t->pos += fr.consumed;
        if (rc == 0)
            break;
        if (rc == 1)
            rig_mcp_conn_receive(t->conn, fr.data, fr.len);
        else
            answer_too_large(t);
        check_backpressure(t);
    }
    if (t->paused || t->stopped || !t->eof || t->input_done || t->read_busy)
        return;
    int rc = rig_json_framer_finish(&t->framer, t->buf + t->pos, t->len - t->pos, &fr);
    t->pos += fr.consumed;
    if (rc == 1)
        rig_mcp_conn_receive(t->conn, fr.data, fr.len);
    else if (rc == RIG_JSON_EFRAME)
        answer_too_large(t);
    check_backpressure(t);
    t->input_done = true;
}

/* Room for STDIO_READ_CHUNK bytes after buf[len]: drop what was framed,
 * grow if still short. The buffer never holds more than one frame's worth
 * plus a chunk: the framer drops an oversized frame as it comes. */
static bool make_room(stdio_transport *t)
{
    if (t->pos > 0) {
        memmove(t->buf, t->buf + t->pos, t->len - t->pos);
        t->len -= t->pos;
        t->pos = 0;
    }
    if (t->cap - t->len >= STDIO_READ_CHUNK)
        return true;
    size_t cap = t->cap ? t->cap * 2 : STDIO_READ_CHUNK;
    while (cap - t->len < STDIO_READ_CHUNK)
        cap *= 2;
    char *b = realloc(t->buf, cap);
    if (!b)
        return false;
    t->buf = b;
    t->cap = cap;
    return true;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    stdio_transport *t = h->data;
    if (!make_room(t)) {
        *buf = uv_buf_init(NULL, 0); /* libuv answers UV_ENOBUFS */
        return;
    }
    *buf = uv_buf_init(t->buf + t->len, (unsigned)(t->cap - t->len));
}

static void input_failed_nomem(stdio_transport *t)
{
    if (t->status == RIG_OK)
        t->status = rig_error_set(t->err, RIG_ENOMEM, "Out of memory reading the input.");
    t->stopped = true;
    stop_input(t);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    stdio_transport *t = s->data;
    if (nread > 0) {
        t->len += (size_t)nread;
    } else if (nread == UV_ENOBUFS) {
        input_failed_nomem(t);
    } else if (nread < 0) { /* UV_EOF, or an error: either way the input ends */
        stop_input(t);
    }
    pump(t);
    maybe_finish(t);
}

static void on_fs_read(uv_fs_t *req)
{
    stdio_transport *t = req->data;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    t->read_busy = false;
    if (t->closing)
        return;
    if (n > 0)
        t->len += (size_t)n;
    else
        t->eof = true; /* end of file, or an error */
    pump(t);
    start_reading(t);
    maybe_finish(t);
}

/* (Re)start reading unless the input ended, stopped or waits for output. */
static void start_reading(stdio_transport *t)
{
    if (t->eof || t->stopped || t->paused || t->closing)
        return;
    if (t->in_stream) {
        if (!t->reading) {
            int rc = uv_read_start(&t->in.stream, on_alloc, on_read);
            if (rc < 0)
                stop_input(t);
            else
                t->reading = true;
        }
        return;
    }
    if (t->read_busy)
        return;
    if (!make_room(t)) {
        input_failed_nomem(t);
        return;
    }
    uv_buf_t b = uv_buf_init(t->buf + t->len, (unsigned)(t->cap - t->len));
    t->read_req.data = t;
    if (uv_fs_read(&t->loop, &t->read_req, t->in_fd, &b, 1, -1, on_fs_read) < 0)
        t->eof = true;
    else
        t->read_busy = true;
}

/* ---------------------------------------------------------------- the end */

static void close_all(stdio_transport *t)
{
    t->closing = true;
    t->stopped = true;
    stop_input(t);
    /* The conn first: once it is freed no worker calls wake(), so the async
     * handle may go. */
    if (t->conn)
        rig_mcp_conn_free(t->conn);
    t->conn = NULL;
    if (t->in_inited)
        uv_close(&t->in.handle, NULL);
    if (t->out_inited)
        uv_close(&t->out.handle, NULL); /* cancels writes still queued */
    if (t->wake_inited)
        uv_close((uv_handle_t *)&t->wake, NULL);
    for (int i = 0; i < 2; i++)
        if (t->sigs_inited[i])
            uv_close((uv_handle_t *)&t->sigs[i], NULL);
}

/* Ends the session when input is over (or stopped), no call is pending and
 * the output is written, or at once when the output is dead or a second
 * signal came. Called at the end of every loop callback, never from inside
 * the conn. */
static void maybe_finish(stdio_transport *t)
{
    if (t->closing)
        return;
    if (!t->input_done && !t->stopped)
        return;
    if (!t->out_dead && t->signals < 2) {
        /* Pending first: a call leaves the count under the conn's lock only
         * after queueing its answer, so with none pending, this flush sends
         * the last answers (and no worker wakes us any more). */
        size_t pending = rig_mcp_conn_pending(t->conn);
        if (rig_mcp_conn_flush(t->conn) != 0 && !t->out_dead)
            fail_output(t, UV_EPIPE);
        if (!t->out_dead && (pending > 0 || t->writes > 0))
            return;
    }
    close_all(t);
}

static void on_wake(uv_async_t *a)
{
    stdio_transport *t = a->data;
    if (t->closing)
        return;
    cork(t);
    rig_mcp_conn_flush(t->conn);
    uncork(t);
    check_backpressure(t);
    maybe_finish(t);
}

static void wake(void *ud)
{
    stdio_transport *t = ud;
    uv_async_send(&t->wake);
}

static void on_signal(uv_signal_t *s, int signum)
{
    (void)signum;
    stdio_transport *t = s->data;
    t->signals++;
    t->stopped = true;
    stop_input(t);
    maybe_finish(t);
}

/* ---------------------------------------------------------------- setup */

/* Opens `fd` as a libuv stream of `type` into `s`. *inited says whether `s`
 * needs uv_close, *owned whether closing it closes fd. */
static int open_stream(stdio_transport *t, stdio_stream *s, int fd, uv_handle_type type,
                       bool *inited, bool *owned)
{
    int rc;
    switch (type) {
    case UV_NAMED_PIPE:
        uv_pipe_init(&t->loop, &s->pipe, 0);
        *inited = true;
        rc = uv_pipe_open(&s->pipe, fd);
        break;
    case UV_TCP:
        uv_tcp_init(&t->loop, &s->tcp);
        *inited = true;
        rc = uv_tcp_open(&s->tcp, fd);
        break;
    case UV_TTY:
        rc = uv_tty_init(&t->loop, &s->tty, fd, 0);
        *inited = rc == 0;
        break;
    default:
        return UV_EINVAL;
    }
    if (*inited)
        s->handle.data = t;
    *owned = rc == 0;
    return rc;
}

static bool readable_kind(uv_handle_type k)
{
    return k == UV_NAMED_PIPE || k == UV_TCP || k == UV_TTY || k == UV_FILE;
}

int rig_mcp_serve_stdio(rig_mcp_server *s, int in_fd, int out_fd, rig_error *err)
{
    rig_error_clear(err);
    if (!s || in_fd < 0 || out_fd < 0)
        return rig_error_set(err, RIG_EINVAL, "rig_mcp_serve_stdio needs a server and two "
                                              "file descriptors.");
    uv_handle_type in_kind = uv_guess_handle(in_fd), out_kind = uv_guess_handle(out_fd);
    if (!readable_kind(in_kind))
        return rig_error_set(err, RIG_EINVAL, "fd %d cannot be read: it is not a pipe, socket, "
                                              "terminal or file.", in_fd);
    if (!readable_kind(out_kind))
        return rig_error_set(err, RIG_EINVAL, "fd %d cannot be written: it is not a pipe, "
                                              "socket, terminal or file.", out_fd);

    stdio_transport *t = calloc(1, sizeof *t);
    if (!t)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    t->err = err;
    t->in_fd = t->out_fd = -1;
    rig_json_framer_init(&t->framer, STDIO_MAX_FRAME);
    int in_flags = fcntl(in_fd, F_GETFL), out_flags = fcntl(out_fd, F_GETFL);

    sigset_t pipe_set, old_mask, pending_before;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending_before);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);

    int rc = uv_loop_init(&t->loop);
    if (rc < 0) {
        t->status = rig_error_set(err, RIG_ENOMEM, "Cannot start the event loop: %s.",
                                  uv_strerror(rc));
        goto out_noloop;
    }
    t->in_fd = fcntl(in_fd, F_DUPFD_CLOEXEC, 3);
    t->out_fd = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
    if (t->in_fd < 0 || t->out_fd < 0) {
        t->status = rig_error_set(err, RIG_EINVAL, "Cannot duplicate fd %d or %d: %s.", in_fd,
                                  out_fd, strerror(errno));
        goto out_close;
    }
    t->in_stream = in_kind != UV_FILE;
    t->out_stream = out_kind != UV_FILE;
    if (t->in_stream &&
        (rc = open_stream(t, &t->in, t->in_fd, in_kind, &t->in_inited, &t->in_owned)) < 0) {
        t->status = rig_error_set(err, RIG_EINVAL, "Cannot read fd %d: %s.", in_fd,
                                  uv_strerror(rc));
        goto out_close;
    }
    if (t->out_stream &&
        (rc = open_stream(t, &t->out, t->out_fd, out_kind, &t->out_inited, &t->out_owned)) < 0) {
        t->status = rig_error_set(err, RIG_EINVAL, "Cannot write fd %d: %s.", out_fd,
                                  uv_strerror(rc));
        goto out_close;
    }
    if (uv_async_init(&t->loop, &t->wake, on_wake) < 0) {
        t->status = rig_error_set(err, RIG_ENOMEM, "Cannot set up the wake-up handle.");
        goto out_close;
    }
    t->wake_inited = true;
    t->wake.data = t;
    static const int signums[2] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        uv_signal_init(&t->loop, &t->sigs[i]);
        t->sigs_inited[i] = true;
        t->sigs[i].data = t;
        uv_signal_start(&t->sigs[i], on_signal, signums[i]);
    }
    t->conn = rig_mcp_conn_new(s, send_message, wake, t);
    if (!t->conn) {
        t->status = rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        goto out_close;
    }
    start_reading(t);
    maybe_finish(t); /* an fs read that could not start */
    uv_run(&t->loop, UV_RUN_DEFAULT);
    goto out_loop;

out_close:
    close_all(t);
    uv_run(&t->loop, UV_RUN_DEFAULT);
out_loop:
    uv_loop_close(&t->loop);
out_noloop:
    if (t->in_fd >= 0 && !t->in_owned)
        close(t->in_fd);
    if (t->out_fd >= 0 && !t->out_owned)
        close(t->out_fd);
    if (in_flags >= 0)
        fcntl(in_fd, F_SETFL, in_flags);
    if (out_flags >= 0)
        fcntl(out_fd, F_SETFL, out_flags);
    /* Consume a SIGPIPE our writes raised before SIGPIPE is unblocked again. */
    sigset_t pending;
    if (!sigismember(&old_mask, SIGPIPE) && !sigismember(&pending_before, SIGPIPE) &&
        sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    int status = t->status;
    free(t->buf);
    free(t->cork_buf);
    free(t);
    return status;
}
