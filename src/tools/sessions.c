/* sessions.c — the bounded per-session state table declared in sessions.h.
 *
 * Lookup is a linear scan over stored hashes: with the table capped at a few
 * hundred sessions that is a few hundred word compares, cheaper than keeping
 * a hash index and an LRU list in step. Eviction scans for the oldest tick
 * the same way, and only runs when the table is full. */
#include "tools/sessions.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

struct session_slot {
    uint64_t hash;
    uint64_t used;   /* the table's tick at the last lookup */
    char *id;
    void *state;
};

void rig__sessions_init(session_table *t, size_t max, void *(*make)(void),
                        void (*drop)(void *state)) {
    memset(t, 0, sizeof *t);
    t->max = max ? max : 1;
    t->make = make;
    t->drop = drop;
}

void rig__sessions_free(session_table *t) {
    for (size_t i = 0; i < t->n; i++) {
        t->drop(t->slots[i].state);
        free(t->slots[i].id);
    }
    free(t->slots);
    memset(t, 0, sizeof *t);
}

size_t rig__sessions_count(const session_table *t) { return t->n; }

/* The slot to fill for a new session: a new one at the end, or the least
 * recently used one emptied. NULL when the array cannot grow. */
static session_slot *free_slot(session_table *t) {
    if (t->n < t->max) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 8;
            if (cap > t->max)
                cap = t->max;
            session_slot *s = realloc(t->slots, cap * sizeof *s);
            if (!s)
                return NULL;
            t->slots = s;
            t->cap = cap;
        }
        return &t->slots[t->n++];
    }
    session_slot *oldest = &t->slots[0];
    for (size_t i = 1; i < t->n; i++)
        if (t->slots[i].used < oldest->used)
            oldest = &t->slots[i];
    t->drop(oldest->state);
    free(oldest->id);
    return oldest;
}

static session_slot *lookup(session_table *t, const char *id, size_t len) {
    uint64_t h = rig__hash_bytes(id, len);
    for (size_t i = 0; i < t->n; i++) {
        session_slot *s = &t->slots[i];
        if (s->hash == h && strcmp(s->id, id) == 0)
            return s;
    }
    return NULL;
}

void *rig__sessions_find(session_table *t, const char *id) {
    session_slot *s = lookup(t, id, strlen(id));
    if (!s)
        return NULL;
    s->used = ++t->tick;
    return s->state;
}

void rig__sessions_drop(session_table *t, const char *id) {
    session_slot *s = lookup(t, id, strlen(id));
    if (!s)
        return;
    t->drop(s->state);
    free(s->id);
    /* The last slot fills the hole: order does not matter, ticks do. */
    *s = t->slots[--t->n];
}

void *rig__sessions_get(session_table *t, const char *id) {
    size_t len = strlen(id);
    uint64_t h = rig__hash_bytes(id, len);
    session_slot *found = lookup(t, id, len);
    if (found) {
        found->used = ++t->tick;
        return found->state;
    }
    /* Make the state before taking a slot, so running out of memory evicts
     * nobody. */
    char *copy = malloc(len + 1);
    void *state = copy ? t->make() : NULL;
    if (!state) {
        free(copy);
        return NULL;
    }
    memcpy(copy, id, len + 1);
    session_slot *s = free_slot(t);
    if (!s) {
        t->drop(state);
        free(copy);
        return NULL;
    }
    s->hash = h;
    s->used = ++t->tick;
    s->id = copy;
    s->state = state;
    return state;
}
