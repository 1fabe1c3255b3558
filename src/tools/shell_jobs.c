/* shell_jobs.c — background jobs: a command started by shell with
 * run_in_background, read with shell_output and stopped with shell_stop.
 *
 * Each job is one thread running the command through shell_proc.c (its
 * own process group, stopped by SIGTERM then SIGKILL), with the output
 * going to two places as it arrives: a ring of the last RIG_SHELL_JOB_RING
 * bytes in memory, which shell_output reads from, and a log file in the
 * shell's private directory holding all of it (up to
 * RIG_SHELL_JOB_LOG_MAX), so a job that prints without end costs bounded
 * memory and a reader that fell behind is told where the rest is.
 *
 * Jobs belong to the session that started them: another session cannot
 * see, read or stop them, and they are stopped when their session ends
 * (rig_shell_end_session) or the shell is freed. A session holds at most
 * RIG_SHELL_JOBS_PER_SESSION jobs; starting another drops the oldest that
 * has finished, or is refused while all of them still run. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "tools/shell.h"
#include "tools/shell_proc.h"
#include "util/buf.h"
#include "util/monotime.h"

#define MAX_RUNNING 256          /* jobs running at once, over every session */
#define WAIT_SLICE_MS 100        /* how often a blocked reader looks at its call */
#define STOP_WAIT_MS (RIG_PROC_KILL_GRACE_MS + 3000)

typedef struct job {
    struct job *next;
    char id[24];
    char *session;
    char *command;
    char *cwd;
    pthread_t thread;
    atomic_bool stop;
    rig__cmd_setup setup;        /* owned until the command ends */
    char *stdin_data;
    size_t stdin_len;
    int64_t timeout_ms;
    int64_t t0;
    /* the log: written by the job's thread alone */
    int log_fd;
    char *log_path;
    uint64_t logged;
    /* under jobs->mu */
    bool running, timed_out, stopped;
    int exit_code;
    int64_t duration_ms;
    char *ring;
    size_t ring_len, ring_at;
    uint64_t total, read_pos;
    bool log_full;
    int readers;                 /* calls waiting on it: it is freed only after they leave */
    struct rig__jobs *owner;
} job;

struct rig__jobs {
    pthread_mutex_t mu;
    pthread_cond_t cv;           /* a job ended */
    job *list;
    uint64_t next_id;
    size_t running;
};

rig__jobs *rig__jobs_new(void)
{
    rig__jobs *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&j->mu, NULL) != 0 || pthread_cond_init(&j->cv, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        free(j);
        return NULL;
    }
    pthread_condattr_destroy(&ca);
    j->next_id = 1;
    return j;
}

static void job_free(job *jb)
{
    rig__shell_setup_done(&jb->setup);
    if (jb->log_fd >= 0)
        close(jb->log_fd);
    if (jb->log_path)
        unlink(jb->log_path);
    free(jb->log_path);
    free(jb->session);
    free(jb->command);
    free(jb->cwd);
    free(jb->stdin_data);
    free(jb->ring);
    free(jb);
}

/* Stops each job of `list` (already off the table), waits for its thread
 * and frees it. */
static void stop_and_free(job *list)
{
    for (job *jb = list; jb; jb = jb->next)
        atomic_store(&jb->stop, true);
    while (list) {
        job *next = list->next;
        pthread_join(list->thread, NULL);
        /* a shell_output blocked on it wakes at its end and leaves */
        pthread_mutex_lock(&list->owner->mu);
        while (list->readers > 0)
            pthread_cond_wait(&list->owner->cv, &list->owner->mu);
        pthread_mutex_unlock(&list->owner->mu);
        job_free(list);
        list = next;
    }
}

void rig__jobs_free(rig__jobs *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    job *all = j->list;
    j->list = NULL;
    pthread_mutex_unlock(&j->mu);
    stop_and_free(all);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
}

void rig__jobs_end_session(rig__jobs *j, const char *session)
{
    if (!j)
        return;
    job *gone = NULL;
    pthread_mutex_lock(&j->mu);
    for (job **p = &j->list; *p;) {
        job *jb = *p;
        if (strcmp(jb->session, session) == 0) {
            *p = jb->next;
            jb->next = gone;
            gone = jb;
        } else {
            p = &jb->next;
        }
    }
    pthread_mutex_unlock(&j->mu);
    stop_and_free(gone);
}

/* ---- the job's thread ----------------------------------------------------- */

static void on_output(void *ud, int stream, const char *p, size_t n)
{
    (void)stream; /* one log, as a terminal shows them: stderr among stdout */
    job *jb = ud;
    if (jb->log_fd >= 0 && jb->logged < RIG_SHELL_JOB_LOG_MAX) {
        size_t k = n;
        if (jb->logged + k > RIG_SHELL_JOB_LOG_MAX)
            k = (size_t)(RIG_SHELL_JOB_LOG_MAX - jb->logged);
        if (write(jb->log_fd, p, k) == (ssize_t)k)
            jb->logged += k;
        else
            jb->logged = RIG_SHELL_JOB_LOG_MAX; /* a full disk: stop trying */
    }
    pthread_mutex_lock(&jb->owner->mu);
    for (size_t i = 0; i < n; i++) {
        jb->ring[jb->ring_at] = p[i];
        jb->ring_at = (jb->ring_at + 1) % RIG_SHELL_JOB_RING;
    }
    jb->ring_len = jb->ring_len + n > RIG_SHELL_JOB_RING ? RIG_SHELL_JOB_RING : jb->ring_len + n;
    jb->total += n;
    jb->log_full = jb->logged >= RIG_SHELL_JOB_LOG_MAX;
    pthread_mutex_unlock(&jb->owner->mu);
}

static bool job_stopped(void *ud)
{
    return atomic_load(&((job *)ud)->stop);
}

static void *job_main(void *p)
{
    job *jb = p;
    rig__proc_opts o = {
        .command = jb->command,
        .cwd_fd = jb->setup.cwd_fd,
        .envp = jb->setup.envp,
        .stdin_data = jb->stdin_data,
        .stdin_len = jb->stdin_len,
        .timeout_ms = jb->timeout_ms,
        .cap = 2, /* the output lives in the ring and the log, not the result */
        .landlock_fd = jb->setup.landlock_fd,
        .on_output = on_output,
        .output_ud = jb,
        .cancelled = job_stopped,
        .cancel_ud = jb,
    };
    rig__proc_result r;
    char why[256];
    int rc = rig__proc_run(&o, &r, why, sizeof why);
    if (rc != 0) {
        char line[300];
        int n = snprintf(line, sizeof line, "rig: the command could not start: %s\n", why);
        on_output(jb, 2, line, (size_t)n);
    }
    pthread_mutex_lock(&jb->owner->mu);
    jb->running = false;
    jb->exit_code = rc == 0 ? r.exit_code : 127;
    jb->timed_out = rc == 0 && r.timed_out;
    jb->stopped = rc == 0 && r.cancelled;
    jb->duration_ms = rig__now_ms() - jb->t0;
    jb->owner->running--;
    pthread_cond_broadcast(&jb->owner->cv);
    pthread_mutex_unlock(&jb->owner->mu);
    if (rc == 0)
        rig__proc_result_free(&r);
    return NULL;
}

/* ---- starting ------------------------------------------------------------- */

int rig__jobs_start(rig__jobs *j, const char *log_dir, const char *session, const char *command,
                    const char *stdin_data, size_t stdin_len, int64_t timeout_ms,
                    rig__cmd_setup *s, char *id, size_t id_cap, char *why, size_t why_cap)
{
    job *jb = calloc(1, sizeof *jb);
    if (!jb) {
        rig__shell_setup_done(s);
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
    jb->setup = *s;
    *s = (rig__cmd_setup){.cwd_fd = -1, .landlock_fd = -1};
    jb->log_fd = -1;
    jb->owner = j;
    jb->session = strdup(session ? session : "");
    jb->command = strdup(command);
    jb->cwd = strdup(jb->setup.cwd ? jb->setup.cwd : "");
    jb->ring = malloc(RIG_SHELL_JOB_RING);
    jb->stdin_data = stdin_data ? malloc(stdin_len + 1) : NULL;
    if (!jb->session || !jb->command || !jb->cwd || !jb->ring || (stdin_data && !jb->stdin_data)) {
        job_free(jb);
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
    if (stdin_data) {
        memcpy(jb->stdin_data, stdin_data, stdin_len);
        jb->stdin_len = stdin_len;
    }
    jb->timeout_ms = timeout_ms;

    job *evicted = NULL;
    pthread_mutex_lock(&j->mu);
    size_t mine = 0;
    job **oldest_done = NULL;
    for (job **p = &j->list; *p; p = &(*p)->next) {
        if (strcmp((*p)->session, jb->session) != 0)
            continue;
        mine++;
        if (!(*p)->running)
            oldest_done = p; /* the list is newest first: the last one seen is the oldest */
    }
    if (mine >= RIG_SHELL_JOBS_PER_SESSION) {
        if (!oldest_done) {
            pthread_mutex_unlock(&j->mu);
            job_free(jb);
            snprintf(why, why_cap,
                     "this session already has %d background jobs running; stop one with "
                     "shell_stop first",
                     RIG_SHELL_JOBS_PER_SESSION);
            return -1;
        }
        evicted = *oldest_done;
        *oldest_done = evicted->next;
        evicted->next = NULL;
    }
    if (j->running >= MAX_RUNNING) {
        pthread_mutex_unlock(&j->mu);
        stop_and_free(evicted);
        job_free(jb);
        snprintf(why, why_cap, "%d background jobs are running already; stop some first",
                 MAX_RUNNING);
        return -1;
    }
    snprintf(jb->id, sizeof jb->id, "job-%" PRIu64, j->next_id++);
    if (asprintf(&jb->log_path, "%s/%s.log", log_dir, jb->id) < 0)
        jb->log_path = NULL;
    if (jb->log_path)
        jb->log_fd = open(jb->log_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (jb->log_fd < 0) {
        free(jb->log_path);
        jb->log_path = NULL; /* the ring still works; the result says there is no log */
    }
    jb->running = true;
    jb->t0 = rig__now_ms();
    if (pthread_create(&jb->thread, NULL, job_main, jb) != 0) {
        int e = errno;
        pthread_mutex_unlock(&j->mu);
        stop_and_free(evicted);
        job_free(jb);
        snprintf(why, why_cap, "cannot start a thread for it: %s", strerror(e));
        return -1;
    }
    j->running++;
    jb->next = j->list;
    j->list = jb;
    snprintf(id, id_cap, "%s", jb->id);
    pthread_mutex_unlock(&j->mu);
    stop_and_free(evicted);
    return 0;
}

/* ---- reading and stopping ------------------------------------------------- */

/* The job `id` of `session`, under j->mu; NULL with `err` listing the jobs
 * the session has. */
static job *find(rig__jobs *j, const char *session, const char *id, rig__buf *err)
{
    for (job *jb = j->list; jb; jb = jb->next)
        if (strcmp(jb->session, session) == 0 && strcmp(jb->id, id) == 0)
            return jb;
    rig__buf_addf(err, "No background job '%s' in this session.", id);
    size_t n = 0;
    for (job *jb = j->list; jb; jb = jb->next) {
        if (strcmp(jb->session, session) != 0)
            continue;
        rig__buf_adds(err, n++ ? ", " : " Its jobs: ");
        rig__buf_addf(err, "%s (%s)", jb->id, jb->running ? "running" : "ended");
    }
    if (!n)
        rig__buf_adds(err, " It has none: start one with shell and run_in_background: true.");
    return NULL;
}

/* Waits on j->mu until `jb` ends, `ms` pass or the call is cancelled. */
static void wait_end(rig__jobs *j, job *jb, int64_t ms, rig_call *call)
{
    int64_t until = rig__now_ms() + ms;
    while (jb->running && !(call && rig_call_cancelled(call))) {
        int64_t left = until - rig__now_ms();
        if (left <= 0)
            break;
        if (left > WAIT_SLICE_MS)
            left = WAIT_SLICE_MS;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += (long)(left % 1000) * 1000000;
        ts.tv_sec += left / 1000 + ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&j->cv, &j->mu, &ts);
    }
}

typedef struct snapshot {
    char id[24];
    char *command, *cwd, *log_path;
    bool running, timed_out, stopped, log_full;
    int exit_code;
    int64_t duration_ms;
    uint64_t total, fresh, lost;
    char *out;                   /* the new output still in the ring */
    size_t out_len;
} snapshot;

/* The new output of `jb` (under j->mu), marked read. */
static bool take(job *jb, snapshot *s)
{
    memset(s, 0, sizeof *s);
    memcpy(s->id, jb->id, sizeof s->id);
    s->command = strdup(jb->command);
    s->cwd = strdup(jb->cwd);
    s->log_path = jb->log_path ? strdup(jb->log_path) : NULL;
    s->running = jb->running;
    s->timed_out = jb->timed_out;
    s->stopped = jb->stopped;
    s->log_full = jb->log_full;
    s->exit_code = jb->exit_code;
    s->duration_ms = jb->running ? rig__now_ms() - jb->t0 : jb->duration_ms;
    s->total = jb->total;
    s->fresh = jb->total - jb->read_pos;
    size_t in_ring = s->fresh < jb->ring_len ? (size_t)s->fresh : jb->ring_len;
    s->lost = s->fresh - in_ring;
    s->out = malloc(in_ring + 1);
    if (!s->command || !s->cwd || (jb->log_path && !s->log_path) || !s->out)
        return false;
    size_t start = (jb->ring_at + RIG_SHELL_JOB_RING - in_ring) % RIG_SHELL_JOB_RING;
    for (size_t i = 0; i < in_ring; i++)
        s->out[i] = jb->ring[(start + i) % RIG_SHELL_JOB_RING];
    s->out[in_ring] = '\0';
    s->out_len = in_ring;
    jb->read_pos = jb->total;
    return true;
}

static void snapshot_free(snapshot *s)
{
    free(s->command);
    free(s->cwd);
    free(s->log_path);
    free(s->out);
}

static const char *status_of(const snapshot *s)
{
    return s->running ? "running" : s->timed_out ? "timed_out" : s->stopped ? "stopped" : "exited";
}

static rig_result *report(snapshot *s, int64_t tail_lines)
{
    /* tail_lines: keep the last N lines of the new output */
    const char *out = s->out;
    size_t len = s->out_len, dropped_lines = 0;
    if (tail_lines > 0 && len) {
        size_t end = len;
        if (out[end - 1] == '\n')
            end--;
        size_t at = end, lines = 0;
        while (at > 0) {
            if (out[at - 1] == '\n' && ++lines == (size_t)tail_lines)
                break;
            at--;
        }
        for (size_t i = 0; i < at; i++)
            dropped_lines += out[i] == '\n';
        out += at;
        len -= at;
    }
    rig__buf t = {0};
    double secs = (double)s->duration_ms / 1000;
    if (s->running)
        rig__buf_addf(&t, "%s is running (for %.1f s): %s\n", s->id, secs, s->command);
    else if (s->timed_out)
        rig__buf_addf(&t, "%s timed out after %.1f s and was stopped (exit %d): %s\n", s->id,
                      secs, s->exit_code, s->command);
    else if (s->stopped)
        rig__buf_addf(&t, "%s was stopped after %.1f s (exit %d): %s\n", s->id, secs,
                      s->exit_code, s->command);
    else
        rig__buf_addf(&t, "%s exited with code %d after %.1f s: %s\n", s->id, s->exit_code, secs,
                      s->command);
    if (s->lost)
        rig__buf_addf(&t, "[... %" PRIu64 " bytes of new output came before what is shown%s%s]\n",
                      s->lost, s->log_path ? "; all of it is in " : "",
                      s->log_path ? s->log_path : "");
    if (dropped_lines)
        rig__buf_addf(&t, "[... %zu earlier lines of new output not shown (tail_lines)]\n",
                      dropped_lines);
    if (len) {
        rig__buf_add(&t, out, len);
        if (out[len - 1] != '\n')
            rig__buf_addc(&t, '\n');
    } else {
        rig__buf_adds(&t, "(no new output)\n");
    }
    if (s->log_full)
        rig__buf_addf(&t, "[the log stopped at %llu bytes]\n",
                      (unsigned long long)RIG_SHELL_JOB_LOG_MAX);
    rig_result *res = rig_result_new();
    if (!res || t.oom || rig_result_textn(res, t.p, t.len) != RIG_OK) {
        rig__buf_free(&t);
        rig_result_free(res);
        return rig_result_error("Out of memory.");
    }
    rig__buf_free(&t);
    rig_json_writer *w = rig_result_structured_begin(res);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "job_id");
        rig_json_write_string(w, s->id);
        rig_json_write_key(w, "command");
        rig_json_write_string(w, s->command);
        rig_json_write_key(w, "cwd");
        rig_json_write_string(w, s->cwd);
        rig_json_write_key(w, "status");
        rig_json_write_string(w, status_of(s));
        rig_json_write_key(w, "exit_code");
        if (s->running)
            rig_json_write_null(w);
        else
            rig_json_write_int(w, s->exit_code);
        rig_json_write_key(w, "duration_ms");
        rig_json_write_int(w, s->duration_ms);
        rig_json_write_key(w, "output");
        rig_json_write_stringn(w, out, len);
        rig_json_write_key(w, "new_bytes");
        rig_json_write_uint(w, s->fresh);
        rig_json_write_key(w, "total_bytes");
        rig_json_write_uint(w, s->total);
        if (s->log_path) {
            rig_json_write_key(w, "log_file");
            rig_json_write_string(w, s->log_path);
        }
        rig_json_write_object_end(w);
        rig_result_structured_end(res);
    }
    return res;
}

static rig_result *job_call(rig_call *call, bool stop)
{
    rig_shell *sh = rig_call_data(call);
    rig__jobs *j = sh->jobs;
    const char *id = rig_call_str(call, "job_id", NULL);
    const char *session = rig_call_session(call);
    if (!id)
        return rig_result_error("job_id is required.");
    rig__buf err = {0};
    snapshot s;
    pthread_mutex_lock(&j->mu);
    job *jb = find(j, session, id, &err);
    if (!jb) {
        pthread_mutex_unlock(&j->mu);
        rig_result *r = rig_result_error("%s", err.p ? err.p : "No such job.");
        rig__buf_free(&err);
        return r;
    }
    jb->readers++;
    if (stop && jb->running) {
        atomic_store(&jb->stop, true);
        wait_end(j, jb, STOP_WAIT_MS, NULL);
    } else if (!stop && rig_call_bool(call, "block", false)) {
        wait_end(j, jb, rig_call_int(call, "timeout_ms", 30000), call);
    }
    bool ok = take(jb, &s);
    jb->readers--;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    rig_result *r = ok ? report(&s, stop ? 0 : rig_call_int(call, "tail_lines", 0))
                       : rig_result_error("Out of memory.");
    snapshot_free(&s);
    return r;
}

rig_result *rig__shell_output_run(rig_call *call)
{
    return job_call(call, false);
}

rig_result *rig__shell_stop_run(rig_call *call)
{
    return job_call(call, true);
}
