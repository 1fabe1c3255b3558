/* rig/common.h — macros shared by every public rig header. */
#ifndef RIG_COMMON_H
#define RIG_COMMON_H

/* librig is built with hidden visibility; only what is marked RIG_API is
 * exported from the shared library. */
#if defined(__GNUC__) || defined(__clang__)
#define RIG_API __attribute__((visibility("default")))
#else
#define RIG_API
#endif

#endif
