/* todo.c — `update_todos`: the model keeps a structured todo list for the
 * work at hand (Hooman's todo tool, the list behind its status bar). Each
 * call replaces the whole list; the result renders it with counts, and the
 * tool emits a "todos" event with the list so a host can show it.
 *
 * Per session the tool remembers only the previous list's counts, which is
 * all it reads back ("replaced a list of 4"). The full list lives in the
 * model's context and in the event; storing it here as well would make the
 * memory of RIG_TOOL_MAX_SESSIONS sessions depend on how long the model's
 * lists are. Nothing beyond the schema is enforced (Hooman enforces nothing
 * either): several items may be in progress, and duplicates are allowed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/builtins.h"
#include "tools/sessions.h"

enum { PENDING, IN_PROGRESS, COMPLETED, N_STATUS };

static const char *const status_name[N_STATUS] = {"pending", "in_progress", "completed"};
static const char *const status_box[N_STATUS] = {"[ ]", "[~]", "[x]"};

typedef struct todo_counts {
    size_t total;
    size_t by_status[N_STATUS];
} todo_counts;

typedef struct todo_session {
    todo_counts last;
    bool seen; /* a list was set before */
} todo_session;

typedef struct todo_state {
    pthread_mutex_t mu;
    session_table sessions;
} todo_state;

static void *session_make(void) { return calloc(1, sizeof(todo_session)); }
static void session_drop(void *p) { free(p); }

static int status_of(rig_json_val item) {
    rig_json_val v = rig_json_get(item, "status");
    for (int i = 0; i < N_STATUS; i++)
        if (rig_json_str_eq(v, status_name[i]))
            return i;
    return PENDING; /* unreachable: the schema's enum let the value through */
}

/* "3 todos: 1 completed, 1 in progress, 1 pending" */
static void print_counts(FILE *f, const todo_counts *c) {
    fprintf(f, "%zu todo%s: %zu completed, %zu in progress, %zu pending", c->total,
            c->total == 1 ? "" : "s", c->by_status[COMPLETED], c->by_status[IN_PROGRESS],
            c->by_status[PENDING]);
}

static void write_structured(rig_result *r, rig_call *call, rig_json_val todos,
                             const todo_counts *c) {
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "todos");
        rig_json_write_array_begin(w);
        rig_json_iter it = rig_json_iter_init(todos);
        rig_json_val item;
        while (rig_json_iter_next(&it, &item)) {
            /* Rewritten field by field, so the list has one canonical form
             * whatever order the model sent. */
            rig_json_write_object_begin(w);
            rig_json_write_key(w, "content");
            rig_json_write_value(w, rig_json_get(item, "content"));
            rig_json_write_key(w, "status");
            rig_json_write_string(w, status_name[status_of(item)]);
            rig_json_val prio = rig_json_get(item, "priority");
            if (rig_json_exists(prio)) {
                rig_json_write_key(w, "priority");
                rig_json_write_value(w, prio);
            }
            rig_json_write_object_end(w);
        }
        rig_json_write_array_end(w);
        rig_json_write_key(w, "counts");
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "total");
        rig_json_write_uint(w, c->total);
        for (int i = 0; i < N_STATUS; i++) {
            rig_json_write_key(w, status_name[i]);
            rig_json_write_uint(w, c->by_status[i]);
        }
        rig_json_write_object_end(w);
        rig_json_write_object_end(w);
    }
    if (rig_result_structured_end(r) == RIG_OK)
        rig_call_emit(call, "todos", rig_result_structured_json(r, NULL));
}

static rig_result *todo_run(rig_call *call) {
    todo_state *st = rig_call_data(call);
    rig_json_val todos = rig_json_get(rig_call_args(call), "todos");
    rig_arena *arena = rig_call_arena(call);

    todo_counts c = {0};
    rig_json_iter it = rig_json_iter_init(todos);
    rig_json_val item;
    while (rig_json_iter_next(&it, &item)) {
        c.total++;
        c.by_status[status_of(item)]++;
    }

    pthread_mutex_lock(&st->mu);
    todo_session *s = rig__sessions_get(&st->sessions, rig_call_session(call));
    todo_session prev = {0};
    if (s) {
        prev = *s;
        s->last = c;
        s->seen = true;
    }
    pthread_mutex_unlock(&st->mu);
    if (!s)
        return rig_result_error("Out of memory updating the todo list. Try again later.");

    rig_result *r = rig_result_new();
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = open_memstream(&text, &text_len);
    if (f) {
        if (c.total == 0) {
            fprintf(f, "The todo list is now empty.");
        } else {
            print_counts(f, &c);
            fprintf(f, ".");
            it = rig_json_iter_init(todos);
            while (rig_json_iter_next(&it, &item)) {
                const char *content = rig_json_str_dup(rig_json_get(item, "content"), arena, NULL);
                const char *prio = rig_json_str_dup(rig_json_get(item, "priority"), arena, NULL);
                fprintf(f, "\n%s %s", status_box[status_of(item)], content ? content : "");
                if (prio)
                    fprintf(f, " (%s priority)", prio);
            }
        }
        if (prev.seen) {
            fprintf(f, "\nThis replaces the previous list of ");
            print_counts(f, &prev.last);
            fprintf(f, ".");
        }
        if (fclose(f) == 0)
            rig_result_textn(r, text, text_len);
        free(text);
    }
    write_structured(r, call, todos, &c);
    return r;
}

static void todo_close(void *data) {
    todo_state *st = data;
    rig__sessions_free(&st->sessions);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

#define TODO_ITEM_PROPERTIES                                                                  \
    "\"content\":{\"type\":\"string\",\"minLength\":1,\"description\":\"What is to be done, "  \
    "as a short imperative sentence, e.g. 'Add tests for the parser'.\"},"                     \
    "\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\"],"    \
    "\"description\":\"pending: not started; in_progress: being worked on now; completed: "    \
    "done.\"},"                                                                                \
    "\"priority\":{\"type\":\"string\",\"enum\":[\"high\",\"medium\",\"low\"],"                \
    "\"description\":\"How important the item is (optional).\"}"

static const rig_builtin_spec todo_spec = {
    .name = "update_todos",
    .title = "Update the todo list",
    .description =
        "Create or update the todo list for the current work. Use it for tasks with several "
        "steps: write the plan as todos, mark one in_progress when you start it and "
        "completed as soon as it is done, and add items you discover along the way. Each "
        "call replaces the whole list, so always send every item, not only the changed "
        "ones; an empty list clears it. Returns the list rendered as a checklist with "
        "counts per status.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":\"array\",\"description\":"
        "\"The complete todo list, in order. It replaces the previous list.\",\"items\":{"
        "\"type\":\"object\",\"properties\":{" TODO_ITEM_PROPERTIES "},"
        "\"required\":[\"content\",\"status\"],\"additionalProperties\":false}}},"
        "\"required\":[\"todos\"],\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":\"array\",\"items\":{"
        "\"type\":\"object\",\"properties\":{" TODO_ITEM_PROPERTIES "},"
        "\"required\":[\"content\",\"status\"]}},"
        "\"counts\":{\"type\":\"object\",\"properties\":{"
        "\"total\":{\"type\":\"integer\"},\"pending\":{\"type\":\"integer\"},"
        "\"in_progress\":{\"type\":\"integer\"},\"completed\":{\"type\":\"integer\"}},"
        "\"required\":[\"total\",\"pending\",\"in_progress\",\"completed\"]}},"
        "\"required\":[\"todos\",\"counts\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = RIG_TOOL_INLINE,
    .fn = todo_run,
};

rig_tool *rig__todo_tool_new(rig_error *err) {
    todo_state *st = calloc(1, sizeof *st);
    if (!st) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory creating tool 'update_todos'.");
        return NULL;
    }
    pthread_mutex_init(&st->mu, NULL);
    rig__sessions_init(&st->sessions, RIG_TOOL_MAX_SESSIONS, session_make, session_drop);
    return rig__builtin_new(&todo_spec, st, todo_close, err);
}
