/* sessions.h — per-session state for the built-in tools that remember a
 * conversation (think, update_todos). Internal.
 *
 * A table maps rig_call_session() ids to one state object each. It holds at
 * most `max` sessions and drops the least recently used one to make room,
 * so a server that sees endless session ids keeps bounded memory. The table
 * does no locking: its owner calls it under its own mutex, which it needs
 * anyway to guard the states themselves. */
#ifndef RIG_TOOLS_SESSIONS_H
#define RIG_TOOLS_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

typedef struct session_slot session_slot;

typedef struct session_table {
    session_slot *slots;
    size_t n, cap, max;
    uint64_t tick;                 /* bumped on every use; the oldest tick goes first */
    void *(*make)(void);           /* a fresh state; NULL when out of memory */
    void (*drop)(void *state);
} session_table;

RIG_INTERNAL void rig__sessions_init(session_table *t, size_t max, void *(*make)(void),
                                     void (*drop)(void *state));
/* Drops every state and the table's memory. */
RIG_INTERNAL void rig__sessions_free(session_table *t);
/* The state of session `id`, made when absent (evicting the least recently
 * used session when the table is full). NULL when out of memory. */
RIG_INTERNAL void *rig__sessions_get(session_table *t, const char *id);
RIG_INTERNAL size_t rig__sessions_count(const session_table *t);
/* The state of session `id` if it has one (counted as a use), else NULL. */
RIG_INTERNAL void *rig__sessions_find(session_table *t, const char *id);
/* Drop session `id`'s state, if it has one (its session ended). */
RIG_INTERNAL void rig__sessions_drop(session_table *t, const char *id);

#endif
