/* hash.h — keyed hashing for tables that hold untrusted keys. Internal. */
#ifndef RIG_UTIL_HASH_H
#define RIG_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

/* SipHash-1-3 of data under a per-process random key. Tables fed with keys an
 * attacker chooses need a hash whose collisions cannot be predicted, or they
 * degrade to quadratic time (the reason Redis uses SipHash too). */
RIG_INTERNAL uint64_t rig__hash_bytes(const void *data, size_t len);

#endif
