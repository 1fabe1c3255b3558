/* tz.h — time zones from the system tz database (TZif files, RFC 8536),
 * read and evaluated by rig itself. Internal.
 *
 * libc's localtime_r answers only for the zone in the TZ variable, and
 * switching zones means setenv + tzset: process-wide state that races
 * between threads (and glibc caches it). So rig parses the zone files into
 * immutable tz_zone values that any thread may read, and evaluates the
 * POSIX TZ rule at the end of a file ("CET-1CEST,M3.5.0,M10.5.0/3") for
 * times past its last transition. */
#ifndef RIG_UTIL_TZ_H
#define RIG_UTIL_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig/error.h"
#include "util/compiler.h"

#define RIG_TZ_DIR_DEFAULT "/usr/share/zoneinfo"
#define RIG_TZ_NAME_MAX 255            /* longest zone name accepted */
#define RIG_TZ_FILE_MAX (1u << 20)     /* largest zone file read; real ones are < 4 KiB */
#define RIG_TZ_ABBR_MAX 16

typedef struct tz_zone tz_zone;
typedef struct tz_cache tz_cache;

/* What a zone says at one instant. */
typedef struct tz_offset {
    int32_t utoff;               /* seconds east of UTC */
    bool is_dst;
    char abbr[RIG_TZ_ABBR_MAX];  /* "CEST", "+0530", ... */
} tz_offset;

/* A proleptic Gregorian date and time of day. */
typedef struct tz_civil {
    int64_t year;
    int month, day;              /* 1-12, 1-31 */
    int hour, minute, second;
    int wday;                    /* 0 = Sunday */
} tz_civil;

/* How a wall-clock time maps to an instant (rig__tz_resolve). */
enum tz_fit {
    TZ_EXACT = 0,     /* exactly one instant */
    TZ_AMBIGUOUS = 1, /* twice (clocks went back): the earlier instant */
    TZ_GAP = 2        /* never (clocks went forward): read with the offset in
                       * force before the gap, i.e. moved forward by its length */
};

/* A name made of components of [A-Za-z0-9_+-] joined by single '/': no
 * "..", no leading '/', at most RIG_TZ_NAME_MAX characters. This is what
 * keeps a zone name from naming a file outside the zone directory. */
RIG_INTERNAL bool rig__tz_name_valid(const char *name);

/* A zone from the bytes of a TZif file (version 1 to 4), named `name`.
 * NULL with `err` filled (RIG_EINVAL) when the data is not a usable zone. */
RIG_INTERNAL tz_zone *rig__tz_parse(const void *data, size_t len, const char *name,
                                    rig_error *err);
/* A zone from a POSIX TZ string alone ("EST5EDT,M3.2.0,M11.1.0"), named by
 * the string. NULL with `err` filled when it does not parse. */
RIG_INTERNAL tz_zone *rig__tz_posix(const char *tz, rig_error *err);
RIG_INTERNAL void rig__tz_zone_free(tz_zone *z);
RIG_INTERNAL const char *rig__tz_name(const tz_zone *z);

/* The zone's offset, DST flag and abbreviation at Unix time `t`. */
RIG_INTERNAL void rig__tz_at(const tz_zone *z, int64_t t, tz_offset *out);
/* The instant at which the zone's clocks show `wall` (local seconds since
 * 1970-01-01T00:00, as if the zone were UTC) in *t; returns an enum tz_fit. */
RIG_INTERNAL int rig__tz_resolve(const tz_zone *z, int64_t wall, int64_t *t);

/* Seconds since 1970-01-01T00:00 to a civil date and time, and the day
 * number of a date (days since 1970-01-01; month and day may be out of
 * range only as far as the algorithm tolerates: use real dates). */
RIG_INTERNAL void rig__tz_civil(int64_t secs, tz_civil *out);
RIG_INTERNAL int64_t rig__tz_days(int64_t year, int month, int day);

/* A cache of zones loaded from `dir` (NULL: $TZDIR, else
 * RIG_TZ_DIR_DEFAULT). Zones stay loaded, unchanging, until the cache is
 * freed, so pointers it hands out stay valid that long; it is bounded by
 * the number of zone files there are. Thread-safe. NULL when out of
 * memory. */
RIG_INTERNAL tz_cache *rig__tz_cache_new(const char *dir);
RIG_INTERNAL void rig__tz_cache_free(tz_cache *c);
/* The zone called `name`. NULL with `err` filled: RIG_ENOENT for a name
 * that is not valid or names no zone file, RIG_EINVAL for a damaged or
 * unsupported file, RIG_ENOMEM. "UTC" and "Etc/UTC" work without files. */
RIG_INTERNAL const tz_zone *rig__tz_get(tz_cache *c, const char *name, rig_error *err);
/* The local zone: $TZ when set (a zone name, optionally after ':', or a
 * POSIX TZ string; an unusable value means UTC, as in glibc), else the zone
 * /etc/localtime links to, else the name in /etc/timezone, else the
 * contents of /etc/localtime under the name "localtime", else UTC. Never
 * NULL unless out of memory. */
RIG_INTERNAL const tz_zone *rig__tz_get_local(tz_cache *c, rig_error *err);

#endif
