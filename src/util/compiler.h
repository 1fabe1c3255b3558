/* compiler.h — compiler hints used across librig's sources. Internal. */
#ifndef RIG_UTIL_COMPILER_H
#define RIG_UTIL_COMPILER_H

/* Functions shared between librig's files but not part of its API: hidden
 * from the shared library's symbol table. */
#define RIG_INTERNAL __attribute__((visibility("hidden")))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#endif
