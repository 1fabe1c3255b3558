/* think.c — `think`, sequential thinking: a model records numbered thoughts,
 * revises earlier ones and branches into alternatives, and the tool keeps
 * count (the MCP reference sequential-thinking server's behaviour and
 * output, per session instead of per process).
 *
 * Rules, as the reference server applies them: a thoughtNumber above
 * totalThoughts raises totalThoughts to it; every thought is appended to the
 * session's history; a thought with both branchFromThought and branchId is
 * also recorded under that branch. rig adds two checks the reference lacks:
 * revisesThought and branchFromThought must name a thought this session has
 * already recorded, so a model that loses count hears about it.
 *
 * Memory is bounded: the history keeps the last RIG_THINK_MAX_THOUGHTS
 * thoughts of a session (the result says when older ones are dropped), a
 * session has at most RIG_THINK_MAX_BRANCHES branch ids, and the tool
 * remembers RIG_TOOL_MAX_SESSIONS sessions, forgetting the least recently
 * used. The history keeps each thought's number and branch, not its text:
 * nothing reads the text back (the model has it in its context), and
 * keeping it would let one session hold megabytes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/builtins.h"
#include "tools/sessions.h"

/* One recorded thought. */
typedef struct thought {
    int64_t number;
    int32_t branch; /* index into the session's branches, or -1 */
    bool revision;
} thought;

/* A session's history: a ring of the last RIG_THINK_MAX_THOUGHTS thoughts,
 * grown on demand. */
typedef struct think_session {
    thought *ring;
    size_t cap, head, len; /* the oldest thought is ring[head] */
    int64_t highest;       /* the highest thought number recorded, dropped ones included */
    char **branches;       /* ids, in the order they were first used */
    size_t n_branches;
} think_session;

typedef struct think_state {
    pthread_mutex_t mu;
    session_table sessions;
} think_state;

static void *session_make(void) { return calloc(1, sizeof(think_session)); }

static void session_drop(void *p) {
    think_session *s = p;
    for (size_t i = 0; i < s->n_branches; i++)
        free(s->branches[i]);
    free(s->branches);
    free(s->ring);
    free(s);
}

/* Append `t`, dropping the oldest thought when the ring is full. Returns
 * 1 when a thought was dropped, 0 when not, RIG_ENOMEM. */
static int history_push(think_session *s, thought t) {
    if (s->len == s->cap) {
        if (s->cap == RIG_THINK_MAX_THOUGHTS) {
            s->ring[s->head] = t;
            s->head = (s->head + 1) % s->cap;
            return 1;
        }
        /* Until the ring first fills, head stays 0, so the thoughts are in
         * order and realloc keeps them so. */
        size_t cap = s->cap ? s->cap * 2 : 16;
        if (cap > RIG_THINK_MAX_THOUGHTS)
            cap = RIG_THINK_MAX_THOUGHTS;
        thought *ring = realloc(s->ring, cap * sizeof *ring);
        if (!ring)
            return RIG_ENOMEM;
        s->ring = ring;
        s->cap = cap;
    }
    s->ring[(s->head + s->len) % s->cap] = t;
    s->len++;
    return 0;
}

/* The index of branch `id`, added when new. -1 when the session has too
 * many branches, -2 when out of memory. */
static int branch_index(think_session *s, const char *id) {
    for (size_t i = 0; i < s->n_branches; i++)
        if (strcmp(s->branches[i], id) == 0)
            return (int)i;
    if (s->n_branches == RIG_THINK_MAX_BRANCHES)
        return -1;
    char **b = realloc(s->branches, (s->n_branches + 1) * sizeof *b);
    if (!b)
        return -2;
    s->branches = b;
    if (!(b[s->n_branches] = strdup(id)))
        return -2;
    return (int)s->n_branches++;
}

/* The rule revisesThought and branchFromThought share: they must name a
 * thought already recorded in this session. NULL when `n` passes. */
static rig_result *check_earlier(const think_session *s, const char *arg, int64_t n) {
    if (n <= s->highest)
        return NULL;
    if (s->highest == 0)
        return rig_result_error("%s is %lld, but no thought has been recorded in this session "
                                "yet. Record thought 1 first, or leave %s out.",
                                arg, (long long)n, arg);
    return rig_result_error("%s is %lld, but this session has no thought %lld: the highest "
                            "thought number recorded so far is %lld. Name a thought you have "
                            "already recorded, or leave %s out.",
                            arg, (long long)n, (long long)n, (long long)s->highest, arg);
}

static void write_structured(rig_result *r, const think_session *s, int64_t number,
                             int64_t total, bool next) {
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "thoughtNumber");
        rig_json_write_int(w, number);
        rig_json_write_key(w, "totalThoughts");
        rig_json_write_int(w, total);
        rig_json_write_key(w, "nextThoughtNeeded");
        rig_json_write_bool(w, next);
        rig_json_write_key(w, "branches");
        rig_json_write_array_begin(w);
        for (size_t i = 0; i < s->n_branches; i++)
            rig_json_write_string(w, s->branches[i]);
        rig_json_write_array_end(w);
        rig_json_write_key(w, "thoughtHistoryLength");
        rig_json_write_uint(w, s->len);
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
}

static rig_result *think_run(rig_call *call) {
    think_state *st = rig_call_data(call);
    int64_t number = rig_call_int(call, "thoughtNumber", 1);
    int64_t asked_total = rig_call_int(call, "totalThoughts", 1);
    int64_t total = asked_total < number ? number : asked_total;
    bool next = rig_call_bool(call, "nextThoughtNeeded", false);
    bool revision = rig_call_bool(call, "isRevision", false);
    int64_t revises = rig_call_int(call, "revisesThought", 0);
    int64_t branch_from = rig_call_int(call, "branchFromThought", 0);
    const char *branch_id = rig_call_str(call, "branchId", NULL);
    bool needs_more = rig_call_bool(call, "needsMoreThoughts", false);

    rig_result *r = NULL;
    pthread_mutex_lock(&st->mu);
    think_session *s = rig__sessions_get(&st->sessions, rig_call_session(call));
    if (!s) {
        r = rig_result_error("Out of memory recording the thought. Try again later.");
        goto out;
    }
    if ((r = check_earlier(s, "revisesThought", revises)) ||
        (r = check_earlier(s, "branchFromThought", branch_from)))
        goto out;
    int branch = -1;
    if (branch_from && branch_id) {
        branch = branch_index(s, branch_id);
        if (branch == -1) {
            r = rig_result_error("This session already has %d branches, the limit. Continue "
                                 "one of them by giving its branchId again.",
                                 RIG_THINK_MAX_BRANCHES);
            goto out;
        }
        if (branch == -2) {
            r = rig_result_error("Out of memory recording the branch. Try again later.");
            goto out;
        }
    }
    int dropped = history_push(s, (thought){number, branch, revision});
    if (dropped < 0) {
        r = rig_result_error("Out of memory recording the thought. Try again later.");
        goto out;
    }
    if (number > s->highest)
        s->highest = number;

    r = rig_result_new();
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = open_memstream(&text, &text_len);
    if (f) {
        fprintf(f, "Thought %lld of %lld recorded", (long long)number, (long long)total);
        if (revision && revises)
            fprintf(f, " (a revision of thought %lld)", (long long)revises);
        else if (revision)
            fprintf(f, " (a revision)");
        if (branch >= 0)
            fprintf(f, " on branch '%s' (from thought %lld)", branch_id, (long long)branch_from);
        fprintf(f, ".\n");
        if (total != asked_total)
            fprintf(f, "totalThoughts was raised from %lld to %lld to match thoughtNumber.\n",
                    (long long)asked_total, (long long)total);
        if (branch_from && !branch_id)
            fprintf(f, "Not recorded as a branch: give branchId too to start or continue one.\n");
        else if (branch_id && !branch_from)
            fprintf(f, "Not recorded on branch '%s': give branchFromThought too.\n", branch_id);
        fprintf(f, "History: %zu thought%s", s->len, s->len == 1 ? "" : "s");
        if (s->n_branches) {
            fprintf(f, "; branches: ");
            for (size_t i = 0; i < s->n_branches; i++)
                fprintf(f, "%s'%s'", i ? ", " : "", s->branches[i]);
        }
        fprintf(f, ".\n");
        if (dropped)
            fprintf(f, "The history keeps the last %d thoughts of a session; the oldest was "
                       "dropped.\n", RIG_THINK_MAX_THOUGHTS);
        if (next)
            fprintf(f, "Continue with thought %lld%s.", (long long)number + 1,
                    needs_more ? ", raising totalThoughts as needed" : "");
        else if (needs_more)
            fprintf(f, "needsMoreThoughts is true but nextThoughtNeeded is false: set "
                       "nextThoughtNeeded to true to keep thinking.");
        else
            fprintf(f, "Thinking is complete.");
        if (fclose(f) == 0)
            rig_result_textn(r, text, text_len);
        free(text);
    }
    write_structured(r, s, number, total, next);
out:
    pthread_mutex_unlock(&st->mu);
    return r;
}

static void think_close(void *data) {
    think_state *st = data;
    rig__sessions_free(&st->sessions);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

static const rig_builtin_spec think_spec = {
    .name = "think",
    .title = "Think step by step",
    .description =
        "Think through a problem in numbered steps before acting. Use it to break a complex "
        "task into steps, plan with room for revision, check a hypothesis, or compare "
        "alternatives when the right approach is not yet clear. Each call records one "
        "thought; nothing outside changes.\n"
        "- Start with thoughtNumber 1 and an estimate in totalThoughts; adjust the estimate "
        "up or down as you learn (a thoughtNumber above totalThoughts raises it).\n"
        "- To reconsider an earlier thought, set isRevision and revisesThought to its "
        "number.\n"
        "- To explore an alternative, set branchFromThought to the thought it diverges from "
        "and name the branch in branchId.\n"
        "- Set nextThoughtNeeded to false only when you have a satisfactory answer.\n"
        "Returns the thought's number, the (possibly raised) total, whether another thought "
        "is expected, the branch ids so far and the length of this conversation's thought "
        "history.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"thought\":{\"type\":\"string\",\"description\":\"Your current thinking step: an "
        "analysis, a hypothesis or its check, a question about an earlier decision, a "
        "revision, or the realization that the approach must change.\"},"
        "\"nextThoughtNeeded\":{\"type\":\"boolean\",\"description\":\"True if another "
        "thought should follow, even when you seemed to be at the end; false when the "
        "thinking is done.\"},"
        "\"thoughtNumber\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"The number "
        "of this thought: 1, 2, 3, ... It may go past totalThoughts.\"},"
        "\"totalThoughts\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Your "
        "current estimate of how many thoughts are needed; change it as you go.\"},"
        "\"isRevision\":{\"type\":\"boolean\",\"description\":\"True if this thought "
        "revises earlier thinking.\"},"
        "\"revisesThought\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"With "
        "isRevision: the number of the earlier thought being reconsidered.\"},"
        "\"branchFromThought\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"When "
        "exploring an alternative: the number of the thought this branch diverges from. "
        "Give branchId too.\"},"
        "\"branchId\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":100,"
        "\"description\":\"A short name for the branch this thought belongs to, e.g. "
        "'use-cache'. Reuse it to continue the branch.\"},"
        "\"needsMoreThoughts\":{\"type\":\"boolean\",\"description\":\"True if you reached "
        "the end of your estimate but need more thoughts.\"}},"
        "\"required\":[\"thought\",\"nextThoughtNeeded\",\"thoughtNumber\",\"totalThoughts\"],"
        "\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"thoughtNumber\":{\"type\":\"integer\"},"
        "\"totalThoughts\":{\"type\":\"integer\"},"
        "\"nextThoughtNeeded\":{\"type\":\"boolean\"},"
        "\"branches\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
        "\"thoughtHistoryLength\":{\"type\":\"integer\"}},"
        "\"required\":[\"thoughtNumber\",\"totalThoughts\",\"nextThoughtNeeded\",\"branches\","
        "\"thoughtHistoryLength\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = RIG_TOOL_INLINE,
    .fn = think_run,
};

rig_tool *rig__think_tool_new(rig_error *err) {
    think_state *st = calloc(1, sizeof *st);
    if (!st) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory creating tool 'think'.");
        return NULL;
    }
    pthread_mutex_init(&st->mu, NULL);
    rig__sessions_init(&st->sessions, RIG_TOOL_MAX_SESSIONS, session_make, session_drop);
    return rig__builtin_new(&think_spec, st, think_close, err);
}
