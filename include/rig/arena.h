/* rig/arena.h — a bump allocator for short-lived data with one owner.
 *
 * Many small allocations that die together (the decoded strings of one request,
 * say) cost one pointer bump each and are released in one call. Memory comes in
 * chunks; an allocation larger than a chunk gets a chunk of its own. */
#ifndef RIG_ARENA_H
#define RIG_ARENA_H

#include <stddef.h>

#include "rig/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rig_arena rig_arena;

/* chunk_size 0 means 4 KiB. NULL when out of memory. */
RIG_API rig_arena *rig_arena_new(size_t chunk_size);
/* Frees every chunk and the arena itself. NULL is allowed. */
RIG_API void rig_arena_free(rig_arena *a);
/* size bytes aligned to 16; NULL when out of memory (or size overflows). A
 * zero size returns a unique non-NULL pointer. */
RIG_API void *rig_arena_alloc(rig_arena *a, size_t size);
/* A NUL-terminated copy of s[0..n). */
RIG_API char *rig_arena_strndup(rig_arena *a, const char *s, size_t n);
/* Forgets every allocation but keeps the first chunk for reuse. */
RIG_API void rig_arena_reset(rig_arena *a);
/* Bytes handed out since creation or the last reset. */
RIG_API size_t rig_arena_used(const rig_arena *a);

#ifdef __cplusplus
}
#endif
#endif
