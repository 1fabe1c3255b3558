/* arena.c — the bump allocator declared in rig/arena.h.
 *
 * Chunks form a singly linked list, newest first. reset keeps only the first
 * chunk made (of the default size), so a reused arena settles at one chunk and
 * allocates nothing per use. */
#include "rig/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_CHUNK 4096

typedef struct chunk {
    struct chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    _Alignas(ARENA_ALIGN) unsigned char data[];
} chunk;

struct rig_arena {
    chunk *head;
    chunk *first; /* kept by reset */
    size_t chunk_size;
    size_t used;
};

static chunk *chunk_new(size_t size) {
    if (size > SIZE_MAX - sizeof(chunk))
        return NULL;
    chunk *c = malloc(sizeof(chunk) + size);
    if (!c)
        return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    return c;
}

rig_arena *rig_arena_new(size_t chunk_size) {
    rig_arena *a = malloc(sizeof *a);
    if (!a)
        return NULL;
    a->chunk_size = chunk_size ? chunk_size : ARENA_DEFAULT_CHUNK;
    a->used = 0;
    a->head = a->first = chunk_new(a->chunk_size);
    if (!a->head) {
        free(a);
        return NULL;
    }
    return a;
}

void rig_arena_free(rig_arena *a) {
    if (!a)
        return;
    chunk *c = a->head;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

void *rig_arena_alloc(rig_arena *a, size_t size) {
    if (size > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (need == 0)
        need = ARENA_ALIGN; /* distinct pointers for zero-size requests */
    chunk *c = a->head;
    if (c->size - c->used < need) {
        /* A big request gets a chunk of its own, placed behind the current one
         * so the current chunk's free space is not wasted. */
        if (need > a->chunk_size / 4) {
            chunk *big = chunk_new(need);
            if (!big)
                return NULL;
            big->used = need;
            big->next = c->next;
            c->next = big;
            a->used += need;
            return big->data;
        }
        chunk *fresh = chunk_new(a->chunk_size);
        if (!fresh)
            return NULL;
        fresh->next = c;
        a->head = c = fresh;
    }
    void *p = c->data + c->used;
    c->used += need;
    a->used += need;
    return p;
}

char *rig_arena_strndup(rig_arena *a, const char *s, size_t n) {
    if (n == SIZE_MAX)
        return NULL;
    char *p = rig_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void rig_arena_reset(rig_arena *a) {
    chunk *c = a->head;
    while (c) {
        chunk *next = c->next;
        if (c != a->first)
            free(c);
        c = next;
    }
    a->first->next = NULL;
    a->first->used = 0;
    a->head = a->first;
    a->used = 0;
}

size_t rig_arena_used(const rig_arena *a) { return a->used; }
