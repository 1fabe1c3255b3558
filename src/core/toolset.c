/* toolset.c — the registered tools (an insertion-ordered array with a hash
 * index), toolset-wide settings, hooks and events, and the calls: the
 * synchronous path, and jobs on a worker pool with deadlines and
 * cancellation.
 *
 * A job completes exactly once, by whoever gets there first: the worker
 * with the tool's result, rig_job_cancel, or the deadline timer. The loser's
 * result is dropped. A tool that ignores cancellation keeps its worker until
 * it returns, but its caller is answered on time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "core/internal.h"
#include "util/hash.h"

struct rig_job {
    atomic_int refs;
    atomic_int completed;
    rig_toolset *ts;
    struct rig_call *call;     /* NULL when the job failed before it was queued */
    rig_done_fn done;
    void *ud;
    rig_error err;             /* written by the completer, before done runs */
    struct rig_job *next;      /* run queue */
    struct rig_job *dl_prev, *dl_next; /* jobs with a deadline, queued or running */
    struct rig_job *next_expired;      /* the timer's private list */
    int64_t queued_ns;         /* when it joined the run queue */
    bool on_deadline_list;
};

struct rig_toolset {
    pthread_rwlock_t lock;     /* the tool table */
    rig_tool **tools;
    size_t n, cap;
    uint32_t *index;           /* open addressing: slot holds tool index + 1, 0 empty */
    size_t index_cap;          /* a power of two, at least 2n */

    hooks hooks;
    size_t output_cap;
    int64_t timeout_ms;
    unsigned n_workers;

    pthread_mutex_t mu;        /* everything below */
    pthread_cond_t work_cv;
    pthread_cond_t idle_cv;
    pthread_cond_t timer_cv;
    struct rig_job *qhead, *qtail;
    struct rig_job *deadlines;
    pthread_t *workers;
    unsigned started;          /* workers running, up to n_workers */
    unsigned idle;             /* workers waiting for a job */
    bool watching;             /* the timer watches the queue for a stall */
    int64_t last_take_ns;      /* when a worker last took a job */
    pthread_t timer;
    int64_t timer_wakes;       /* when the timer sleeps until (INT64_MAX: no deadline) */
    bool timer_started;
    bool stopping;
    size_t active;             /* jobs queued or running */

    pthread_mutex_t spare_mu;  /* finished calls kept for reuse */
    struct rig_call *spares;
    unsigned n_spares;
};

/* Enough for the worker threads and a few callers; each spare holds a
 * parsed-document buffer and an arena chunk. */
#define SPARES_MAX 16

/* ---- the tool table --------------------------------------------------- */

static size_t slot_of(const rig_toolset *ts, const char *name, size_t len)
{
    return (size_t)rig__hash_bytes(name, len) & (ts->index_cap - 1);
}

static int index_rebuild(rig_toolset *ts, size_t want)
{
    size_t cap = 16;
    while (cap < want * 2)
        cap *= 2;
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return RIG_ENOMEM;
    free(ts->index);
    ts->index = idx;
    ts->index_cap = cap;
    for (size_t i = 0; i < ts->n; i++) {
        const char *nm = ts->tools[i]->name;
        size_t s = slot_of(ts, nm, strlen(nm));
        while (idx[s])
            s = (s + 1) & (cap - 1);
        idx[s] = (uint32_t)i + 1;
    }
    return RIG_OK;
}

static rig_tool *lookup(const rig_toolset *ts, const char *name)
{
    if (!ts->index_cap)
        return NULL;
    size_t len = strlen(name);
    for (size_t s = slot_of(ts, name, len);; s = (s + 1) & (ts->index_cap - 1)) {
        uint32_t i = ts->index[s];
        if (!i)
            return NULL;
        rig_tool *t = ts->tools[i - 1];
        if (strcmp(t->name, name) == 0)
            return t;
    }
}

static void fire(rig_toolset *ts, const char *event, const rig_tool *t)
{
    char data[RIG_TOOL_NAME_MAX + 16];
    /* Tool names are [A-Za-z0-9_.-]: nothing in them needs escaping. */
    snprintf(data, sizeof data, "{\"name\":\"%s\"}", t->name);
    rig__hooks_fire(&ts->hooks, event, t, data);
}

rig_toolset *rig_toolset_new(void)
{
    rig_toolset *ts = calloc(1, sizeof *ts);
    if (!ts)
        return NULL;
    pthread_rwlock_init(&ts->lock, NULL);
    pthread_mutex_init(&ts->mu, NULL);
    pthread_mutex_init(&ts->spare_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ts->work_cv, NULL);
    pthread_cond_init(&ts->idle_cv, NULL);
    pthread_cond_init(&ts->timer_cv, &ca);
    pthread_condattr_destroy(&ca);
    ts->output_cap = RIG_OUTPUT_CAP_DEFAULT;
    ts->timeout_ms = RIG_TIMEOUT_DEFAULT_MS;
    ts->n_workers = RIG_WORKERS_DEFAULT;
    ts->timer_wakes = INT64_MAX;
    return ts;
}

static void job_complete(rig_job *job, rig_result *res, const rig_error *err);
static rig_result *stop_result(const rig_tool *t, bool timeout, rig_error *err);

void rig_toolset_free(rig_toolset *ts)
{
    if (!ts)
        return;
    /* Answer every pending call, then wait for the tools still running. */
    pthread_mutex_lock(&ts->mu);
    ts->stopping = true;
    for (rig_job *j = ts->qhead; j; j = j->next)
        atomic_fetch_add(&j->refs, 1);
    rig_job *queued = ts->qhead;
    pthread_mutex_unlock(&ts->mu);
    for (rig_job *j = queued, *next; j; j = next) {
        next = j->next;
        rig_error e;
        rig__call_cancel(j->call);
        rig_result *res = stop_result(j->call->tool, false, &e);
        job_complete(j, res, &e);
        rig_job_release(j);
    }
    pthread_mutex_lock(&ts->mu);
    pthread_cond_broadcast(&ts->work_cv);
    pthread_cond_broadcast(&ts->timer_cv);
    while (ts->active)
        pthread_cond_wait(&ts->idle_cv, &ts->mu);
    pthread_mutex_unlock(&ts->mu);
    for (unsigned i = 0; i < ts->started; i++)
        pthread_join(ts->workers[i], NULL);
    if (ts->timer_started)
        pthread_join(ts->timer, NULL);
    free(ts->workers);
    for (size_t i = 0; i < ts->n; i++) {
        ts->tools[i]->owner = NULL;
        rig__tool_unref(ts->tools[i]);
    }
    free(ts->tools);
    free(ts->index);
    rig__hooks_free(&ts->hooks);
    for (struct rig_call *c = ts->spares, *next; c; c = next) {
        next = c->next_spare;
        rig__call_free(c);
    }
    pthread_mutex_destroy(&ts->spare_mu);
    pthread_rwlock_destroy(&ts->lock);
    pthread_mutex_destroy(&ts->mu);
    pthread_cond_destroy(&ts->work_cv);
    pthread_cond_destroy(&ts->idle_cv);
    pthread_cond_destroy(&ts->timer_cv);
    free(ts);
}

int rig_toolset_add(rig_toolset *ts, rig_tool *t, rig_error *err)
{
    if (!ts || !t)
        return rig_error_set(err, RIG_EINVAL, "No toolset or tool was given.");
    if (t->owner || t->in_hub)
        return rig_error_set(err, RIG_EINVAL, "Tool '%s' already belongs to a %s.", t->name,
                             t->owner ? "toolset" : "hub");
    pthread_rwlock_wrlock(&ts->lock);
    int rc = RIG_OK;
    if (lookup(ts, t->name)) {
        rc = rig_error_set(err, RIG_EEXIST,
                           "A tool named '%s' is already in the toolset; pick another name or "
                           "remove the old tool first.", t->name);
        goto out;
    }
    if (ts->n == ts->cap) {
        size_t ncap = ts->cap ? ts->cap * 2 : 16;
        rig_tool **nt = realloc(ts->tools, ncap * sizeof *nt);
        if (!nt) {
            rc = rig_error_set(err, RIG_ENOMEM, "Out of memory.");
            goto out;
        }
        ts->tools = nt;
        ts->cap = ncap;
    }
    ts->tools[ts->n++] = t;
    if ((ts->n * 2 > ts->index_cap && index_rebuild(ts, ts->n) != RIG_OK) || !ts->index_cap) {
        ts->n--;
        rc = rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        goto out;
    }
    if (ts->index_cap >= ts->n * 2) {
        /* Insert just the new tool (the rebuild, when it ran, placed it). */
        size_t s = slot_of(ts, t->name, strlen(t->name));
        bool present = false;
        for (size_t k = s; ts->index[k]; k = (k + 1) & (ts->index_cap - 1))
            if (ts->index[k] == ts->n) {
                present = true;
                break;
            }
        if (!present) {
            while (ts->index[s])
                s = (s + 1) & (ts->index_cap - 1);
            ts->index[s] = (uint32_t)ts->n;
        }
    }
    t->owner = ts;
    /* Once the lock is released another thread may remove (and free) the
     * tool; keep it alive until its "add" event has been told. */
    rig__tool_ref(t);
out:
    pthread_rwlock_unlock(&ts->lock);
    if (rc == RIG_OK) {
        fire(ts, "add", t);
        rig__tool_unref(t);
    }
    return rc;
}

int rig_toolset_remove(rig_toolset *ts, const char *name)
{
    if (!ts || !name)
        return RIG_EINVAL;
    pthread_rwlock_wrlock(&ts->lock);
    rig_tool *t = lookup(ts, name);
    if (t) {
        size_t i = 0;
        while (ts->tools[i] != t)
            i++;
        memmove(&ts->tools[i], &ts->tools[i + 1], (ts->n - i - 1) * sizeof *ts->tools);
        ts->n--;
        if (index_rebuild(ts, ts->n) != RIG_OK) {
            /* Rebuilding in place cannot fail for want of memory if we keep
             * the old table size: clear it and reinsert. */
            memset(ts->index, 0, ts->index_cap * sizeof *ts->index);
            for (size_t k = 0; k < ts->n; k++) {
                size_t s = slot_of(ts, ts->tools[k]->name, strlen(ts->tools[k]->name));
                while (ts->index[s])
                    s = (s + 1) & (ts->index_cap - 1);
                ts->index[s] = (uint32_t)k + 1;
            }
        }
    }
    pthread_rwlock_unlock(&ts->lock);
    if (!t)
        return RIG_ENOENT;
    fire(ts, "remove", t);
    t->owner = NULL;
    rig__tool_unref(t);
    return RIG_OK;
}

rig_tool *rig_toolset_get(const rig_toolset *ts, const char *name)
{
    if (!ts || !name)
        return NULL;
    pthread_rwlock_rdlock((pthread_rwlock_t *)&ts->lock);
    rig_tool *t = lookup(ts, name);
    pthread_rwlock_unlock((pthread_rwlock_t *)&ts->lock);
    return t;
}

bool rig__toolset_visible(const rig_toolset *ts, const char *name)
{
    if (!ts || !name)
        return false;
    pthread_rwlock_rdlock((pthread_rwlock_t *)&ts->lock);
    rig_tool *t = lookup(ts, name);
    bool visible = t && !(t->flags & RIG_TOOL_HIDDEN); /* read under the lock: t may go after */
    pthread_rwlock_unlock((pthread_rwlock_t *)&ts->lock);
    return visible;
}

size_t rig_toolset_count(const rig_toolset *ts)
{
    return ts ? ts->n : 0;
}

rig_tool *rig_toolset_at(const rig_toolset *ts, size_t i)
{
    return ts && i < ts->n ? ts->tools[i] : NULL;
}

static rig_tool *find_native(const rig_toolset *ts, rig_provider provider, const char *name)
{
    if ((unsigned)provider < RIG_PROVIDER_COUNT)
        for (size_t i = 0; i < ts->n; i++) {
            const struct native *n = &ts->tools[i]->natives[provider];
            if (n->set && strcmp(n->spec.api_name, name) == 0)
                return ts->tools[i];
        }
    return lookup(ts, name);
}

rig_tool *rig_toolset_find_native(const rig_toolset *ts, rig_provider provider, const char *name)
{
    if (!ts || !name)
        return NULL;
    pthread_rwlock_rdlock((pthread_rwlock_t *)&ts->lock);
    rig_tool *t = find_native(ts, provider, name);
    pthread_rwlock_unlock((pthread_rwlock_t *)&ts->lock);
    return t;
}

void rig_toolset_set_output_cap(rig_toolset *ts, size_t max_chars)
{
    if (ts)
        ts->output_cap = max_chars;
}

void rig_toolset_set_timeout(rig_toolset *ts, int64_t ms)
{
    if (ts)
        ts->timeout_ms = ms > 0 ? ms : 0;
}

void rig_toolset_set_workers(rig_toolset *ts, unsigned n)
{
    if (ts && !ts->started)
        ts->n_workers = n ? n : 1;
}

int rig_toolset_before(rig_toolset *ts, rig_before_fn fn, void *ud)
{
    return ts ? rig__hooks_add_before(&ts->hooks, fn, ud) : RIG_EINVAL;
}

int rig_toolset_after(rig_toolset *ts, rig_after_fn fn, void *ud)
{
    return ts ? rig__hooks_add_after(&ts->hooks, fn, ud) : RIG_EINVAL;
}

int rig_toolset_on(rig_toolset *ts, const char *event, rig_event_fn fn, void *ud)
{
    return ts ? rig__hooks_add_listener(&ts->hooks, event, fn, ud) : RIG_EINVAL;
}

int rig_toolset_off(rig_toolset *ts, const char *event, rig_event_fn fn, void *ud)
{
    return ts ? rig__hooks_remove_listener(&ts->hooks, event, fn, ud) : RIG_EINVAL;
}

void rig__toolset_read_lock(const rig_toolset *ts)
{
    pthread_rwlock_rdlock((pthread_rwlock_t *)&ts->lock);
}

void rig__toolset_read_unlock(const rig_toolset *ts)
{
    pthread_rwlock_unlock((pthread_rwlock_t *)&ts->lock);
}

const hooks *rig__toolset_hooks(const rig_toolset *ts)
{
    return &ts->hooks;
}

size_t rig__toolset_cap(const rig_toolset *ts)
{
    return ts->output_cap;
}

int rig__toolset_adopt(rig_toolset *ts, rig_tool *t, rig_error *err)
{
    if (!t)
        return err && err->code ? err->code : RIG_ENOMEM;
    int rc = rig_toolset_add(ts, t, err);
    if (rc != RIG_OK)
        rig_tool_free(t);
    return rc;
}

struct rig_call *rig__toolset_take_spare(rig_toolset *ts)
{
    pthread_mutex_lock(&ts->spare_mu);
    struct rig_call *c = ts->spares;
    if (c) {
        ts->spares = c->next_spare;
        ts->n_spares--;
    }
    pthread_mutex_unlock(&ts->spare_mu);
    return c;
}

bool rig__toolset_put_spare(rig_toolset *ts, struct rig_call *c)
{
    pthread_mutex_lock(&ts->spare_mu);
    bool kept = ts->n_spares < SPARES_MAX;
    if (kept) {
        c->next_spare = ts->spares;
        ts->spares = c;
        ts->n_spares++;
    }
    pthread_mutex_unlock(&ts->spare_mu);
    return kept;
}

/* ---- preparing a call ------------------------------------------------- */

/* "Tool 'x' not found. Available: [a, b]" — the list is cut to fit. */
static rig_result *not_found(rig_toolset *ts, const char *name, rig_error *err)
{
    char list[RIG_ERROR_MESSAGE_MAX - 64];
    size_t used = 0;
    list[0] = '\0';
    pthread_rwlock_rdlock(&ts->lock);
    size_t shown = 0;
    for (size_t i = 0; i < ts->n; i++) {
        if (ts->tools[i]->flags & RIG_TOOL_HIDDEN)
            continue;
        const char *nm = ts->tools[i]->name;
        size_t need = strlen(nm) + (shown ? 2 : 0);
        if (used + need + 8 >= sizeof list) {
            snprintf(list + used, sizeof list - used, ", ...");
            break;
        }
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", shown ? ", " : "", nm);
        shown++;
    }
    pthread_rwlock_unlock(&ts->lock);
    /* The name came from the model: show at most its first 64 bytes. */
    int nlen = (int)strnlen(name, 64);
    rig_error_set(err, RIG_ENOENT, "Tool '%.*s' not found. Available: [%s]", nlen, name, list);
    return rig_result_error("Tool '%.*s' not found. Available: [%s]", nlen, name, list);
}

static struct rig_call *prepare_call(rig_toolset *ts, const char *name, const char *args,
                                     size_t len, const rig_call_opts *opts, bool queued,
                                     rig_result **fail, rig_error *err)
{
    *fail = NULL;
    if (!name) {
        rig_error_set(err, RIG_EINVAL, "No tool name was given.");
        *fail = rig_result_error("No tool name was given. Call a tool by its name.");
        return NULL;
    }
    pthread_rwlock_rdlock(&ts->lock);
    rig_tool *t = opts && opts->native ? find_native(ts, opts->provider, name) : lookup(ts, name);
    if (t)
        rig__tool_ref(t);
    pthread_rwlock_unlock(&ts->lock);
    if (!t) {
        *fail = not_found(ts, name, err);
        return NULL;
    }
    /* Only an inline call that the caller waits for can read the
     * arguments in place; anything on a worker may outlive the buffer. */
    bool copy = queued || !(t->flags & RIG_TOOL_INLINE);
    struct rig_call *c = rig__call_new(t, ts, NULL, args, len, opts ? opts->session : NULL, copy,
                                       fail, err);
    rig__tool_unref(t);
    if (!c)
        return NULL;
    if (opts && opts->peer) {
        c->peer = opts->peer;
        c->peer_ud = opts->peer_ud;
    }
    int64_t timeout = opts && opts->timeout_ms ? opts->timeout_ms : ts->timeout_ms;
    int64_t now = rig__now_ns();
    /* A timeout too long to count in nanoseconds (centuries) is none, not
     * a deadline that overflowed into the past. */
    if (timeout > 0 && timeout <= (INT64_MAX - now) / 1000000)
        c->deadline_ns = now + timeout * 1000000;
    return c;
}

/* `queued`: the call may run after the caller's buffers are gone. A call
 * that cannot start ends its progress channel at once, as a finished call
 * would. */
static struct rig_call *prepare(rig_toolset *ts, const char *name, const char *args, size_t len,
                                const rig_call_opts *opts, bool queued, rig_result **fail,
                                rig_error *err)
{
    struct rig_call *c = prepare_call(ts, name, args, len, opts, queued, fail, err);
    if (!c && opts && opts->peer && opts->peer->end)
        opts->peer->end(opts->peer_ud);
    return c;
}

static rig_result *run_capped(rig_toolset *ts, struct rig_call *c, rig_error *err)
{
    rig_result *res = rig__call_run(c, err);
    /* A tool that gave up because it was stopped says so in its own words
     * (it knows best what was left undone); the status says why it stopped,
     * whether the tool or the deadline timer answers first. */
    if (rig_result_is_error(res) && rig_call_cancelled(c) && err) {
        bool late = c->deadline_ns && rig__now_ns() >= c->deadline_ns;
        rig_error_set(err, late ? RIG_ETIMEDOUT : RIG_ECANCELED, "Tool '%s' %s.", c->tool->name,
                      late ? "ran out of time" : "was cancelled");
    }
    rig_result_cap(res, ts->output_cap);
    return res;
}

static rig_result *stop_result(const rig_tool *t, bool timeout, rig_error *err)
{
    if (timeout) {
        rig_error_set(err, RIG_ETIMEDOUT, "Tool '%s' ran out of time.", t->name);
        return rig_result_error("Tool '%s' did not finish before its deadline and was stopped. "
                                "Try a smaller request, or allow it more time.", t->name);
    }
    rig_error_set(err, RIG_ECANCELED, "Tool '%s' was cancelled.", t->name);
    return rig_result_error("Tool '%s' was cancelled before it finished.", t->name);
}

/* ---- jobs and the pool ------------------------------------------------ */

static void job_complete(rig_job *job, rig_result *res, const rig_error *err)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&job->completed, &expected, 1)) {
        rig_result_free(res);
        return;
    }
    if (err)
        job->err = *err;
    job->done(res, job->err.code, job->ud);
}

void rig_job_release(rig_job *job)
{
    if (!job || atomic_fetch_sub(&job->refs, 1) != 1)
        return;
    rig__call_free(job->call);
    free(job);
}

void rig_job_cancel(rig_job *job)
{
    if (!job || !job->call || atomic_load(&job->completed))
        return;
    rig__call_cancel(job->call);
    rig_error e;
    rig_result *res = stop_result(job->call->tool, false, &e);
    job_complete(job, res, &e);
}

static void deadline_unlink(rig_toolset *ts, rig_job *j)
{
    if (!j->on_deadline_list)
        return;
    if (j->dl_prev)
        j->dl_prev->dl_next = j->dl_next;
    else
        ts->deadlines = j->dl_next;
    if (j->dl_next)
        j->dl_next->dl_prev = j->dl_prev;
    j->on_deadline_list = false;
}

static void *worker_main(void *arg)
{
    rig_toolset *ts = arg;
    pthread_mutex_lock(&ts->mu);
    for (;;) {
        while (!ts->qhead && !ts->stopping) {
            ts->idle++;
            pthread_cond_wait(&ts->work_cv, &ts->mu);
            ts->idle--;
        }
        if (!ts->qhead)
            break;
        rig_job *j = ts->qhead;
        ts->last_take_ns = rig__now_ns();
        ts->qhead = j->next;
        if (!ts->qhead)
            ts->qtail = NULL;
        /* Jobs left behind and no worker free (those signalled but not yet
         * awake counted as free when they were queued): the timer watches. */
        if (ts->qhead && ts->idle == 0 && !ts->watching && ts->started < ts->n_workers) {
            ts->watching = true;
            pthread_cond_signal(&ts->timer_cv);
        }
        pthread_mutex_unlock(&ts->mu);

        if (!atomic_load(&j->completed)) {
            rig_error e;
            rig_error_clear(&e);
            rig_result *res = run_capped(ts, j->call, &e);
            job_complete(j, res, &e);
        }

        pthread_mutex_lock(&ts->mu);
        deadline_unlink(ts, j);
        if (--ts->active == 0)
            pthread_cond_broadcast(&ts->idle_cv);
        pthread_mutex_unlock(&ts->mu);
        rig_job_release(j);
        pthread_mutex_lock(&ts->mu);
    }
    pthread_mutex_unlock(&ts->mu);
    return NULL;
}

/* How long the queue may stand still, every worker busy, before the pool
 * grows by one: long next to a call of a CPU-light tool (a few µs), short
 * next to anything that blocks. */
#define GROW_NS 10000000

/* The deadline timer (which also grows the pool). It scans the list of jobs with deadlines, which is
 * O(jobs in flight) per wake-up; in-flight calls number in the tens, so a
 * heap would cost more in code than it saves in time. */
static void *timer_main(void *arg)
{
    rig_toolset *ts = arg;
    pthread_mutex_lock(&ts->mu);
    while (!ts->stopping) {
        int64_t now = rig__now_ns(), next = INT64_MAX;
        rig_job *expired = NULL;
        for (rig_job *j = ts->deadlines; j; j = j->dl_next) {
            if (atomic_load(&j->completed))
                continue;
            int64_t dl = j->call->deadline_ns;
            if (dl <= now) {
                atomic_fetch_add(&j->refs, 1);
                j->next_expired = expired;
                expired = j;
            } else if (dl < next) {
                next = dl;
            }
        }
        if (expired) {
            pthread_mutex_unlock(&ts->mu);
            for (rig_job *j = expired, *n; j; j = n) {
                n = j->next_expired;
                rig__call_cancel(j->call);
                rig_error e;
                rig_result *res = stop_result(j->call->tool, true, &e);
                job_complete(j, res, &e);
                rig_job_release(j);
            }
            pthread_mutex_lock(&ts->mu);
            continue;
        }
        /* A queue that stalls (every worker busy, and none has taken a job
         * for GROW_NS while one waited) gets one more worker, up to
         * n_workers. A queue that moves, however long, needs none. */
        ts->watching = ts->qhead && ts->idle == 0 && ts->started < ts->n_workers;
        if (ts->watching) {
            int64_t since = ts->qhead->queued_ns > ts->last_take_ns ? ts->qhead->queued_ns
                                                                     : ts->last_take_ns;
            if (now - since >= GROW_NS) {
                if (pthread_create(&ts->workers[ts->started], NULL, worker_main, ts) == 0)
                    ts->started++;
                else
                    ts->n_workers = ts->started; /* out of threads: make do */
                /* One at a time: the new worker has GROW_NS to show it helps. */
                ts->last_take_ns = now;
                continue;
            }
            if (since + GROW_NS < next)
                next = since + GROW_NS;
        }
        ts->timer_wakes = next;
        if (next == INT64_MAX) {
            pthread_cond_wait(&ts->timer_cv, &ts->mu);
        } else {
            struct timespec when = {.tv_sec = next / 1000000000, .tv_nsec = next % 1000000000};
            pthread_cond_timedwait(&ts->timer_cv, &ts->mu, &when);
        }
    }
    pthread_mutex_unlock(&ts->mu);
    return NULL;
}

/* Start the workers (and the timer) on first use. Called with mu held. */
static int pool_start(rig_toolset *ts)
{
    if (ts->started)
        return RIG_OK;
    /* A start that made no thread left its array behind (and the worker
     * count may have changed since): make a new one. */
    free(ts->workers);
    ts->workers = calloc(ts->n_workers, sizeof *ts->workers);
    if (!ts->workers)
        return RIG_ENOMEM;
    /* As many workers as cores to start with: tools that compute run best
     * so. Tools that block (sleep, I/O) stall the queue, and the timer adds
     * workers then (see GROW_NS). */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned core = cpus < 2 ? 2 : (unsigned)cpus;
    if (core > ts->n_workers)
        core = ts->n_workers;
    for (unsigned i = 0; i < core; i++) {
        if (pthread_create(&ts->workers[i], NULL, worker_main, ts) != 0)
            break;
        ts->started++;
    }
    if (!ts->started)
        return RIG_ENOMEM;
    if (pthread_create(&ts->timer, NULL, timer_main, ts) == 0)
        ts->timer_started = true;
    return RIG_OK;
}

static rig_job *job_new(rig_toolset *ts, rig_done_fn done, void *ud)
{
    rig_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    atomic_init(&j->refs, 1);
    atomic_init(&j->completed, 0);
    j->ts = ts;
    j->done = done;
    j->ud = ud;
    return j;
}

/* Queue a prepared job, or answer it at once if the pool cannot take it. */
static void enqueue(rig_toolset *ts, rig_job *j)
{
    pthread_mutex_lock(&ts->mu);
    if (ts->stopping || pool_start(ts) != RIG_OK) {
        pthread_mutex_unlock(&ts->mu);
        rig_error e;
        rig_error_set(&e, RIG_ESTATE, "The toolset is shutting down.");
        job_complete(j, rig_result_error("Tool '%s' could not start: the toolset is shutting "
                                         "down or out of threads.", j->call->tool->name), &e);
        return;
    }
    atomic_fetch_add(&j->refs, 1); /* the pool's */
    ts->active++;
    if (ts->qtail)
        ts->qtail->next = j;
    else
        ts->qhead = j;
    ts->qtail = j;
    j->queued_ns = rig__now_ns();
    if (ts->idle == 0 && !ts->watching && ts->started < ts->n_workers) {
        ts->watching = true; /* every worker is busy: the timer watches for a stall */
        pthread_cond_signal(&ts->timer_cv);
    }
    if (j->call->deadline_ns) {
        j->dl_next = ts->deadlines;
        if (ts->deadlines)
            ts->deadlines->dl_prev = j;
        ts->deadlines = j;
        j->on_deadline_list = true;
        /* Every call has a deadline (300 s by default), so waking the timer
         * for each would cost a thread wake-up a call; it needs to know
         * only of one earlier than the one it sleeps until. */
        if (j->call->deadline_ns < ts->timer_wakes) {
            ts->timer_wakes = j->call->deadline_ns;
            pthread_cond_signal(&ts->timer_cv);
        }
    }
    pthread_cond_signal(&ts->work_cv);
    pthread_mutex_unlock(&ts->mu);
}

rig_job *rig_toolset_submit(rig_toolset *ts, const char *name, const char *args, size_t len,
                            const rig_call_opts *opts, rig_done_fn done, void *ud)
{
    if (!ts || !done)
        return NULL;
    rig_job *j = job_new(ts, done, ud);
    if (!j) {
        if (opts && opts->peer && opts->peer->end)
            opts->peer->end(opts->peer_ud);
        done(rig_result_error("Out of memory starting tool '%.64s'.", name ? name : ""),
             RIG_ENOMEM, ud);
        return NULL;
    }
    rig_error e;
    rig_error_clear(&e);
    rig_result *fail = NULL;
    j->call = prepare(ts, name, args, len, opts, true, &fail, &e);
    if (!j->call)
        job_complete(j, fail, &e);
    else if (j->call->tool->flags & RIG_TOOL_INLINE)
        job_complete(j, run_capped(ts, j->call, &e), &e);
    else
        enqueue(ts, j);
    return j;
}

/* ---- the synchronous call --------------------------------------------- */

struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    rig_result *res;
};

static void wake_waiter(rig_result *res, int status, void *ud)
{
    (void)status;
    struct waiter *w = ud;
    pthread_mutex_lock(&w->mu);
    w->res = res;
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

rig_result *rig_toolset_call(rig_toolset *ts, const char *name, const char *args, size_t len,
                             const rig_call_opts *opts, rig_error *err)
{
    rig_error_clear(err);
    if (!ts) {
        rig_error_set(err, RIG_EINVAL, "No toolset was given.");
        return rig_result_error("No toolset was given.");
    }
    rig_error local;
    rig_error *e = err ? err : &local;
    rig_error_clear(e);
    rig_result *fail = NULL;
    struct rig_call *c = prepare(ts, name, args, len, opts, false, &fail, e);
    if (!c)
        return fail;
    if (c->tool->flags & RIG_TOOL_INLINE) {
        /* Pure, bounded tools skip the worker hand-off, which would cost
         * more than the call itself. */
        rig_result *res = run_capped(ts, c, e);
        rig__call_recycle(c);
        return res;
    }
    struct waiter w = {.done = false};
    rig_job *j = job_new(ts, wake_waiter, &w);
    if (!j) {
        rig__call_free(c);
        rig_error_set(e, RIG_ENOMEM, "Out of memory.");
        return rig_result_error("Out of memory starting tool '%s'.", name);
    }
    j->call = c;
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    enqueue(ts, j);
    pthread_mutex_lock(&w.mu);
    while (!w.done)
        pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    *e = j->err;
    rig_job_release(j);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
    return w.res;
}
