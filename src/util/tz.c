/* tz.c — the TZif reader, POSIX TZ rules and zone cache declared in tz.h.
 *
 * A zone is its transition table (from the 64-bit section of a version 2+
 * file, or the 32-bit one of a version 1 file) plus the footer's POSIX TZ
 * rule, which takes over after the last transition: current "slim" files
 * end their tables in the 1990s or 2000s and leave today's DST to the rule.
 * Before the first transition, time type 0 applies (RFC 8536 3.2).
 *
 * Zones with leap-second records (the "right/" variants) are refused: their
 * transition times count leap seconds, Unix time does not, and rig has no
 * use for the difference. */
#include "util/tz.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY 86400

/* ---- civil dates (Howard Hinnant's algorithms, proleptic Gregorian) ---- */

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t rig__tz_days(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;                                   /* [0, 399] */
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

void rig__tz_civil(int64_t secs, tz_civil *out) {
    int64_t days = floor_div(secs, DAY);
    int64_t sod = secs - days * DAY;
    out->hour = (int)(sod / 3600);
    out->minute = (int)(sod / 60 % 60);
    out->second = (int)(sod % 60);
    out->wday = (int)(days + 4 - floor_div(days + 4, 7) * 7); /* 1970-01-01: a Thursday */
    int64_t z = days + 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    out->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    out->month = (int)(mp < 10 ? mp + 3 : mp - 9);
    out->year = yoe + era * 400 + (out->month <= 2);
}

static bool is_leap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

static int month_days(int64_t y, int m) {
    static const int len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return len[m - 1] + (m == 2 && is_leap(y));
}

static int64_t year_of(int64_t secs) {
    tz_civil c;
    rig__tz_civil(secs, &c);
    return c.year;
}

/* ---- POSIX TZ rules ---------------------------------------------------- */

/* One end of the DST period: a day of the year and a time on it, local. */
typedef struct tz_rule {
    enum { RULE_JULIAN, RULE_ZERO, RULE_MONTH } kind; /* Jn, n, Mm.w.d */
    int n, m, w, d;
    int32_t time; /* seconds after local midnight; may be negative or > 24 h */
} tz_rule;

typedef struct tz_posix {
    int32_t std_off, dst_off; /* seconds east of UTC */
    bool has_dst;
    char std_abbr[RIG_TZ_ABBR_MAX], dst_abbr[RIG_TZ_ABBR_MAX];
    tz_rule start, end;
} tz_posix;

static bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* An abbreviation: three or more letters, or <...> of letters, digits, '+'
 * and '-'. Stored cut to fit. */
static const char *parse_abbr(const char *s, char out[RIG_TZ_ABBR_MAX]) {
    const char *start;
    size_t len;
    if (*s == '<') {
        start = ++s;
        while (is_alpha(*s) || is_digit(*s) || *s == '+' || *s == '-')
            s++;
        if (*s != '>')
            return NULL;
        len = (size_t)(s++ - start);
    } else {
        start = s;
        while (is_alpha(*s))
            s++;
        len = (size_t)(s - start);
    }
    if (len < 3)
        return NULL;
    if (len >= RIG_TZ_ABBR_MAX)
        len = RIG_TZ_ABBR_MAX - 1;
    memcpy(out, start, len);
    out[len] = '\0';
    return s;
}

static const char *parse_num(const char *s, int max, int *out) {
    if (!is_digit(*s))
        return NULL;
    int v = 0;
    while (is_digit(*s)) {
        v = v * 10 + (*s++ - '0');
        if (v > max)
            return NULL;
    }
    *out = v;
    return s;
}

/* [+-]hh[:mm[:ss]] with hours up to `max_hours`, as signed seconds. */
static const char *parse_hms(const char *s, int max_hours, int32_t *out) {
    int sign = 1, h = 0, m = 0, sec = 0;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (!(s = parse_num(s, max_hours, &h)))
        return NULL;
    if (*s == ':') {
        if (!(s = parse_num(s + 1, 59, &m)))
            return NULL;
        if (*s == ':' && !(s = parse_num(s + 1, 59, &sec)))
            return NULL;
    }
    *out = sign * (h * 3600 + m * 60 + sec);
    return s;
}

static const char *parse_rule(const char *s, tz_rule *r) {
    if (*s == 'J') {
        r->kind = RULE_JULIAN;
        if (!(s = parse_num(s + 1, 365, &r->n)) || r->n < 1)
            return NULL;
    } else if (*s == 'M') {
        r->kind = RULE_MONTH;
        if (!(s = parse_num(s + 1, 12, &r->m)) || r->m < 1 || *s != '.' ||
            !(s = parse_num(s + 1, 5, &r->w)) || r->w < 1 || *s != '.' ||
            !(s = parse_num(s + 1, 6, &r->d)))
            return NULL;
    } else {
        r->kind = RULE_ZERO;
        if (!(s = parse_num(s, 365, &r->n)))
            return NULL;
    }
    r->time = 2 * 3600;
    if (*s == '/' && !(s = parse_hms(s + 1, 167, &r->time))) /* RFC 8536 allows ±167 h */
        return NULL;
    return s;
}

/* std offset [dst [offset] [,start[/time],end[/time]]]. Offsets in the
 * string count west of UTC; stored east. */
static bool parse_posix(const char *s, tz_posix *p) {
    memset(p, 0, sizeof *p);
    int32_t off;
    if (!(s = parse_abbr(s, p->std_abbr)) || !(s = parse_hms(s, 24, &off)))
        return false;
    p->std_off = -off;
    if (*s == '\0')
        return true;
    if (!(s = parse_abbr(s, p->dst_abbr)))
        return false;
    p->has_dst = true;
    p->dst_off = p->std_off + 3600;
    if (*s && *s != ',') {
        if (!(s = parse_hms(s, 24, &off)))
            return false;
        p->dst_off = -off;
    }
    if (*s == '\0') /* no rule: POSIX leaves it open; glibc takes the US one */
        s = ",M3.2.0,M11.1.0";
    if (*s++ != ',' || !(s = parse_rule(s, &p->start)) || *s++ != ',' ||
        !(s = parse_rule(s, &p->end)))
        return false;
    return *s == '\0';
}

/* The day number of rule date `r` in `year`. */
static int64_t rule_day(const tz_rule *r, int64_t year) {
    int64_t jan1 = rig__tz_days(year, 1, 1);
    switch (r->kind) {
    case RULE_JULIAN: /* 1..365, February 29 never counted */
        return jan1 + r->n - 1 + (is_leap(year) && r->n >= 60);
    case RULE_ZERO:
        return jan1 + r->n;
    case RULE_MONTH:
    default: {
        int64_t first = rig__tz_days(year, r->m, 1);
        int wday = (int)((first % 7 + 7 + 4) % 7); /* of the 1st; 1970-01-01 was a Thursday */
        int day = (r->d - wday + 7) % 7 + 7 * (r->w - 1); /* zero-based in the month */
        while (day >= month_days(year, r->m))
            day -= 7;
        return first + day;
    }
    }
}

/* Which of std and dst the rule puts `t` in. DST starts at a time given in
 * standard time and ends at one given in daylight time. Of the transitions
 * of the years around `t`, the last one at or before it decides; looking at
 * three years copes with rules whose periods wrap around the new year
 * (southern hemisphere) or span it whole. */
static void posix_at(const tz_posix *p, int64_t t, tz_offset *out) {
    bool dst = false;
    if (p->has_dst) {
        int64_t year = year_of(t + p->std_off);
        int64_t best = INT64_MIN;
        for (int64_t y = year - 1; y <= year + 1; y++) {
            int64_t start = rule_day(&p->start, y) * DAY + p->start.time - p->std_off;
            int64_t end = rule_day(&p->end, y) * DAY + p->end.time - p->dst_off;
            /* On a tie (DST all year: one year's end is the next one's
             * start) the start wins. */
            if (end <= t && end > best) {
                best = end;
                dst = false;
            }
            if (start <= t && start >= best) {
                best = start;
                dst = true;
            }
        }
    }
    out->utoff = dst ? p->dst_off : p->std_off;
    out->is_dst = dst;
    memcpy(out->abbr, dst ? p->dst_abbr : p->std_abbr, RIG_TZ_ABBR_MAX);
}

/* ---- zones ------------------------------------------------------------- */

typedef struct tz_type {
    int32_t utoff;
    bool is_dst;
    char abbr[RIG_TZ_ABBR_MAX];
} tz_type;

struct tz_zone {
    char *name;
    int64_t *times; /* transitions, ascending */
    uint8_t *idx;   /* the type each transition switches to */
    size_t n_times;
    tz_type *types;
    size_t n_types;
    bool has_rule;
    tz_posix rule;  /* after the last transition, when has_rule */
};

void rig__tz_zone_free(tz_zone *z) {
    if (!z)
        return;
    free(z->name);
    free(z->times);
    free(z->idx);
    free(z->types);
    free(z);
}

const char *rig__tz_name(const tz_zone *z) { return z->name; }

static void type_at(const tz_type *ty, tz_offset *out) {
    out->utoff = ty->utoff;
    out->is_dst = ty->is_dst;
    memcpy(out->abbr, ty->abbr, RIG_TZ_ABBR_MAX);
}

void rig__tz_at(const tz_zone *z, int64_t t, tz_offset *out) {
    size_t n = z->n_times;
    if (z->has_rule && (n == 0 || t >= z->times[n - 1])) {
        posix_at(&z->rule, t, out);
        return;
    }
    if (n == 0 || t < z->times[0]) {
        type_at(&z->types[0], out);
        return;
    }
    size_t lo = 0, hi = n; /* the last transition <= t is in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    type_at(&z->types[z->idx[lo]], out);
}

static int32_t utoff_at(const tz_zone *z, int64_t t) {
    tz_offset o;
    rig__tz_at(z, t, &o);
    return o.utoff;
}

/* Every offset the zone uses within two days of `wall` is among the
 * offsets at wall-2d, wall and wall+2d (no zone changes offset twice in
 * four days), and an instant showing `wall` is wall minus one of them. */
int rig__tz_resolve(const tz_zone *z, int64_t wall, int64_t *t) {
    int32_t offs[3];
    size_t n = 0;
    for (int k = -1; k <= 1; k++) {
        int32_t o = utoff_at(z, wall + k * 2 * DAY);
        bool seen = false;
        for (size_t i = 0; i < n; i++)
            seen |= offs[i] == o;
        if (!seen)
            offs[n++] = o;
    }
    size_t fits = 0;
    int64_t first = INT64_MAX, earliest = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        int64_t c = wall - offs[i];
        if (c < earliest)
            earliest = c;
        if (utoff_at(z, c) == offs[i]) {
            fits++;
            if (c < first)
                first = c;
        }
    }
    if (fits) {
        *t = first;
        return fits == 1 ? TZ_EXACT : TZ_AMBIGUOUS;
    }
    /* In a gap. The earliest candidate lies before the transition, so the
     * offset there is the one in force before the gap. */
    *t = wall - utoff_at(z, earliest);
    return TZ_GAP;
}

/* ---- reading TZif ------------------------------------------------------ */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const uint8_t *p) {
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

typedef struct tzif_header {
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
} tzif_header;

#define TZIF_HEADER 44

static bool read_header(const uint8_t *p, size_t len, tzif_header *h) {
    if (len < TZIF_HEADER || memcmp(p, "TZif", 4) != 0)
        return false;
    h->isutcnt = be32(p + 20);
    h->isstdcnt = be32(p + 24);
    h->leapcnt = be32(p + 28);
    h->timecnt = be32(p + 32);
    h->typecnt = be32(p + 36);
    h->charcnt = be32(p + 40);
    return true;
}

/* Bytes of the data block after a header, for times of `tsize` bytes. The
 * counts are 32-bit, so the 64-bit sum cannot overflow. */
static uint64_t block_size(const tzif_header *h, unsigned tsize) {
    return (uint64_t)h->timecnt * (tsize + 1) + (uint64_t)h->typecnt * 6 + h->charcnt +
           (uint64_t)h->leapcnt * (tsize + 4) + h->isstdcnt + h->isutcnt;
}

static tz_zone *damaged(tz_zone *z, const char *name, const char *why, rig_error *err) {
    rig_error_set(err, RIG_EINVAL, "The time zone file for '%s' is not usable: %s.", name, why);
    rig__tz_zone_free(z);
    return NULL;
}

tz_zone *rig__tz_parse(const void *data, size_t len, const char *name, rig_error *err) {
    const uint8_t *p = data, *end = p + len;
    tzif_header h;
    if (!read_header(p, len, &h))
        return damaged(NULL, name, "it is not a TZif file", err);
    unsigned version = p[4] == 0 ? 1 : (unsigned)(p[4] - '0');
    if (version < 1 || version > 9)
        return damaged(NULL, name, "unknown TZif version", err);
    unsigned tsize = 4;
    p += TZIF_HEADER;
    if (version >= 2) {
        /* Skip the 32-bit data: the 64-bit section after it says the same
         * without the 1901-2038 limit. */
        uint64_t skip = block_size(&h, 4);
        if (skip > (uint64_t)(end - p) || !read_header(p + skip, (size_t)(end - p - skip), &h))
            return damaged(NULL, name, "the file is cut short", err);
        p += skip + TZIF_HEADER;
        tsize = 8;
    }
    if (block_size(&h, tsize) > (uint64_t)(end - p))
        return damaged(NULL, name, "the file is cut short", err);
    if (h.leapcnt)
        return damaged(NULL, name, "it counts leap seconds; use the zone without the 'right/' "
                       "prefix", err);
    if (h.typecnt == 0 || h.typecnt > 256 || h.charcnt == 0 ||
        (h.isutcnt && h.isutcnt != h.typecnt) || (h.isstdcnt && h.isstdcnt != h.typecnt))
        return damaged(NULL, name, "its header counts are inconsistent", err);

    tz_zone *z = calloc(1, sizeof *z);
    if (!z || !(z->name = strdup(name)))
        goto oom;
    z->n_times = h.timecnt;
    z->n_types = h.typecnt;
    z->times = malloc((h.timecnt ? h.timecnt : 1) * sizeof *z->times);
    z->idx = malloc(h.timecnt ? h.timecnt : 1);
    z->types = calloc(h.typecnt, sizeof *z->types);
    if (!z->times || !z->idx || !z->types)
        goto oom;
    for (uint32_t i = 0; i < h.timecnt; i++, p += tsize) {
        z->times[i] = tsize == 8 ? be64(p) : (int64_t)(int32_t)be32(p);
        if (i && z->times[i] <= z->times[i - 1])
            return damaged(z, name, "its transitions are out of order", err);
    }
    for (uint32_t i = 0; i < h.timecnt; i++, p++) {
        if (*p >= h.typecnt)
            return damaged(z, name, "a transition names a time type that does not exist", err);
        z->idx[i] = *p;
    }
    const uint8_t *chars = p + (size_t)h.typecnt * 6;
    for (uint32_t i = 0; i < h.typecnt; i++, p += 6) {
        int32_t utoff = (int32_t)be32(p);
        uint8_t ai = p[5];
        if (utoff == INT32_MIN || p[4] > 1 || ai >= h.charcnt)
            return damaged(z, name, "a time type is malformed", err);
        z->types[i].utoff = utoff;
        z->types[i].is_dst = p[4];
        size_t alen = strnlen((const char *)chars + ai, h.charcnt - ai);
        if (alen >= RIG_TZ_ABBR_MAX)
            alen = RIG_TZ_ABBR_MAX - 1;
        memcpy(z->types[i].abbr, chars + ai, alen);
    }
    p = chars + h.charcnt + (size_t)h.leapcnt * (tsize + 4) + h.isstdcnt + h.isutcnt;

    if (version >= 2) {
        /* The footer: "\n" TZ-string "\n". An empty string means no rule. */
        if (p >= end || *p != '\n')
            return damaged(z, name, "the POSIX TZ footer is missing", err);
        const uint8_t *nl = memchr(p + 1, '\n', (size_t)(end - p - 1));
        if (!nl)
            return damaged(z, name, "the POSIX TZ footer is not terminated", err);
        size_t flen = (size_t)(nl - p - 1);
        if (flen) {
            char buf[128];
            if (flen >= sizeof buf || memchr(p + 1, '\0', flen))
                return damaged(z, name, "the POSIX TZ footer is malformed", err);
            memcpy(buf, p + 1, flen);
            buf[flen] = '\0';
            if (!parse_posix(buf, &z->rule))
                return damaged(z, name, "the POSIX TZ footer does not parse", err);
            z->has_rule = true;
        }
    }
    return z;
oom:
    rig__tz_zone_free(z);
    rig_error_set(err, RIG_ENOMEM, "Out of memory loading time zone '%s'.", name);
    return NULL;
}

static tz_zone *zone_of_rule(const char *name, const tz_posix *rule) {
    tz_zone *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->name = strdup(name);
    z->types = calloc(1, sizeof *z->types);
    if (!z->name || !z->types) {
        rig__tz_zone_free(z);
        return NULL;
    }
    z->n_types = 1;
    z->types[0].utoff = rule->std_off;
    memcpy(z->types[0].abbr, rule->std_abbr, RIG_TZ_ABBR_MAX);
    z->has_rule = true;
    z->rule = *rule;
    return z;
}

tz_zone *rig__tz_posix(const char *tz, rig_error *err) {
    tz_posix rule;
    if (strlen(tz) > RIG_TZ_NAME_MAX || !parse_posix(tz, &rule)) {
        rig_error_set(err, RIG_EINVAL, "'%.100s' is not a POSIX TZ string.", tz);
        return NULL;
    }
    tz_zone *z = zone_of_rule(tz, &rule);
    if (!z)
        rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    return z;
}

bool rig__tz_name_valid(const char *name) {
    size_t n = strlen(name), comp = 0;
    if (n == 0 || n > RIG_TZ_NAME_MAX)
        return false;
    for (size_t i = 0; i <= n; i++) {
        char c = name[i];
        if (c == '/' || c == '\0') {
            if (comp == 0)
                return false; /* leading '/', "//", trailing '/' */
            comp = 0;
        } else if (is_alpha(c) || is_digit(c) || c == '_' || c == '+' || c == '-') {
            comp++;
        } else {
            return false; /* '.' among others: no "..", no "zone.tab" */
        }
    }
    return true;
}

/* ---- the cache --------------------------------------------------------- */

struct tz_cache {
    pthread_mutex_t mu;
    char *dir;
    tz_zone **zones; /* a linear list: a process uses a handful of zones */
    size_t n, cap;
};

tz_cache *rig__tz_cache_new(const char *dir) {
    if (!dir)
        dir = getenv("TZDIR");
    if (!dir || !*dir)
        dir = RIG_TZ_DIR_DEFAULT;
    tz_cache *c = calloc(1, sizeof *c);
    if (!c || !(c->dir = strdup(dir))) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void rig__tz_cache_free(tz_cache *c) {
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        rig__tz_zone_free(c->zones[i]);
    free(c->zones);
    free(c->dir);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static const tz_zone *cache_find(const tz_cache *c, const char *name) {
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->zones[i]->name, name) == 0)
            return c->zones[i];
    return NULL;
}

/* Takes `z` (freeing it on failure). */
static const tz_zone *cache_put(tz_cache *c, tz_zone *z, rig_error *err) {
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        tz_zone **zs = realloc(c->zones, cap * sizeof *zs);
        if (!zs) {
            rig__tz_zone_free(z);
            rig_error_set(err, RIG_ENOMEM, "Out of memory.");
            return NULL;
        }
        c->zones = zs;
        c->cap = cap;
    }
    return c->zones[c->n++] = z;
}

static int unknown(const char *name, rig_error *err) {
    return rig_error_set(err, RIG_ENOENT, "Unknown time zone '%.100s'.", name);
}

/* Read the zone file at `path` as zone `name`. */
static tz_zone *load_path(const char *path, const char *name, rig_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        unknown(name, err);
        return NULL;
    }
    tz_zone *z = NULL;
    uint8_t *buf = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* "America" is a directory */
        unknown(name, err);
        goto out;
    }
    if (st.st_size > (off_t)RIG_TZ_FILE_MAX) {
        rig_error_set(err, RIG_EINVAL, "The time zone file for '%s' is too large.", name);
        goto out;
    }
    size_t size = (size_t)st.st_size, got = 0;
    if (!(buf = malloc(size ? size : 1))) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        goto out;
    }
    while (got < size) {
        ssize_t k = read(fd, buf + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    if (got < 4 || memcmp(buf, "TZif", 4) != 0) { /* "leapseconds" and friends */
        unknown(name, err);
        goto out;
    }
    z = rig__tz_parse(buf, got, name, err);
out:
    free(buf);
    close(fd);
    return z;
}

/* Read the zone file `name` under the cache's directory. */
static tz_zone *load(const tz_cache *c, const char *name, rig_error *err) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", c->dir, name) >= sizeof path) {
        unknown(name, err);
        return NULL;
    }
    return load_path(path, name, err);
}

static tz_zone *builtin_utc(const char *name) {
    tz_posix utc = {.std_abbr = "UTC"};
    return zone_of_rule(name, &utc);
}

/* rig__tz_get with the lock held. */
static const tz_zone *get_locked(tz_cache *c, const char *name, rig_error *err) {
    const tz_zone *found = cache_find(c, name);
    if (found)
        return found;
    if (!rig__tz_name_valid(name)) {
        unknown(name, err);
        return NULL;
    }
    rig_error e;
    tz_zone *z = load(c, name, &e);
    if (!z && e.code == RIG_ENOENT && (!strcmp(name, "UTC") || !strcmp(name, "Etc/UTC")))
        z = builtin_utc(name); /* no tz database installed: UTC still works */
    if (!z) {
        if (err)
            *err = e;
        return NULL;
    }
    return cache_put(c, z, err);
}

const tz_zone *rig__tz_get(tz_cache *c, const char *name, rig_error *err) {
    pthread_mutex_lock(&c->mu);
    const tz_zone *z = get_locked(c, name, err);
    pthread_mutex_unlock(&c->mu);
    return z;
}

/* The zone name in a path to a zone file: what follows "zoneinfo/", or
 * the path relative to the cache's directory. */
static const char *name_in_path(const tz_cache *c, const char *path) {
    size_t dl = strlen(c->dir);
    if (strncmp(path, c->dir, dl) == 0 && path[dl] == '/')
        return path + dl + 1;
    const char *z = strstr(path, "/zoneinfo/");
    return z ? z + strlen("/zoneinfo/") : NULL;
}

static const tz_zone *local_locked(tz_cache *c, rig_error *err) {
    const char *tz = getenv("TZ");
    if (tz) {
        if (*tz == ':')
            tz++;
        const char *name = *tz == '/' ? name_in_path(c, tz) : tz;
        const tz_zone *z = NULL;
        if (name && *name && (z = cache_find(c, name)))
            return z;
        if (name && *name && rig__tz_name_valid(name) && (z = get_locked(c, name, NULL)))
            return z;
        tz_posix rule;
        if (*tz != '/' && strlen(tz) <= RIG_TZ_NAME_MAX && parse_posix(tz, &rule)) {
            tz_zone *pz = zone_of_rule(tz, &rule);
            if (pz)
                return cache_put(c, pz, err);
        }
        return get_locked(c, "UTC", err);
    }
    char link[4096];
    ssize_t n = readlink("/etc/localtime", link, sizeof link - 1);
    if (n > 0) {
        link[n] = '\0';
        const char *name = name_in_path(c, link);
        const tz_zone *z;
        if (name && rig__tz_name_valid(name) && (z = get_locked(c, name, NULL)))
            return z;
    }
    FILE *f = fopen("/etc/timezone", "re");
    if (f) {
        char name[RIG_TZ_NAME_MAX + 2];
        bool ok = fgets(name, sizeof name, f) != NULL;
        fclose(f);
        if (ok) {
            name[strcspn(name, " \t\r\n")] = '\0';
            const tz_zone *z;
            if (rig__tz_name_valid(name) && (z = get_locked(c, name, NULL)))
                return z;
        }
    }
    /* A copied file rather than a link, with no name anywhere: its rules
     * are still right, under the name "localtime". */
    const tz_zone *z = cache_find(c, "localtime");
    if (z)
        return z;
    tz_zone *lz = load_path("/etc/localtime", "localtime", NULL);
    if (lz)
        return cache_put(c, lz, err);
    return get_locked(c, "UTC", err);
}

const tz_zone *rig__tz_get_local(tz_cache *c, rig_error *err) {
    pthread_mutex_lock(&c->mu);
    const tz_zone *z = local_locked(c, err);
    pthread_mutex_unlock(&c->mu);
    return z;
}
