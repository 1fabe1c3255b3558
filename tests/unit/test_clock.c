/* test_clock.c — time zones and the clock tools.
 *
 * The zone code (util/tz.c) is tested at fixed instants whose answers are
 * known (DST in Berlin, New York, Lord Howe's half hour, Kolkata, the
 * footer rule far in the future), against glibc's localtime_r for every
 * zone installed and a set of POSIX TZ strings, and on crafted and damaged
 * TZif files. The tools are driven through a toolset: "now" cannot be
 * fixed, so their answers are checked against the clock and glibc, and DST
 * gaps and overlaps come from crafted zones whose rules change today. */
#define _GNU_SOURCE /* nftw */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin_testing.h"
#include "util/tz.h"

static tz_cache *cache;

static int setup(void **state) {
    (void)state;
    cache = rig__tz_cache_new(NULL);
    assert_non_null(cache);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rig__tz_cache_free(cache);
    return 0;
}

static const tz_zone *zone(const char *name) {
    rig_error err = {0};
    const tz_zone *z = rig__tz_get(cache, name, &err);
    if (!z)
        fail_msg("zone %s: %s", name, err.message);
    return z;
}

/* Unix time of a UTC date and time. */
static int64_t utc(int64_t y, int mo, int d, int h, int mi, int s) {
    return rig__tz_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

static void expect_at(const char *name, int64_t t, int32_t utoff, bool dst, const char *abbr) {
    tz_offset o;
    rig__tz_at(zone(name), t, &o);
    if (o.utoff != utoff || o.is_dst != dst || strcmp(o.abbr, abbr) != 0)
        fail_msg("%s at %lld: got %d %d %s, want %d %d %s", name, (long long)t, o.utoff, o.is_dst,
                 o.abbr, utoff, dst, abbr);
}

/* ---- names -------------------------------------------------------------- */

static void test_names(void **state) {
    (void)state;
    static const char *const good[] = {"UTC",       "Europe/Berlin", "America/Argentina/Buenos_Aires",
                                       "Etc/GMT+5", "Etc/GMT-14",    "America/Port-au-Prince",
                                       "EST5EDT"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!rig__tz_name_valid(good[i]))
            fail_msg("refused %s", good[i]);
    static const char *const bad[] = {
        "",          "/etc/passwd", "../../etc/passwd", "Europe/../../etc/passwd",
        "Europe/..", ".",           "Europe//Berlin",   "Europe/Berlin/",
        "zone.tab",  "Europe/Berlin\n", "Europe Berlin", "Europe\\Berlin",
        "~root",     "Europe/Berlin;rm", "\xc3\xa9t\xc3\xa9",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (rig__tz_name_valid(bad[i]))
            fail_msg("accepted %s", bad[i]);
    char longname[RIG_TZ_NAME_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_false(rig__tz_name_valid(longname));
    longname[RIG_TZ_NAME_MAX] = '\0';
    assert_true(rig__tz_name_valid(longname));
}

/* ---- civil dates -------------------------------------------------------- */

static void expect_civil(int64_t t, int64_t y, int mo, int d, int h, int mi, int s, int wday) {
    tz_civil c;
    rig__tz_civil(t, &c);
    if (c.year != y || c.month != mo || c.day != d || c.hour != h || c.minute != mi ||
        c.second != s || c.wday != wday)
        fail_msg("civil(%lld) = %lld-%d-%d %d:%d:%d wday %d", (long long)t, (long long)c.year,
                 c.month, c.day, c.hour, c.minute, c.second, c.wday);
}

static void test_civil(void **state) {
    (void)state;
    expect_civil(0, 1970, 1, 1, 0, 0, 0, 4);
    expect_civil(-1, 1969, 12, 31, 23, 59, 59, 3);
    expect_civil(951782400, 2000, 2, 29, 0, 0, 0, 2);
    expect_civil(4102444800, 2100, 1, 1, 0, 0, 0, 5);
    expect_civil(utc(2026, 11, 26, 1, 30, 0), 2026, 11, 26, 1, 30, 0, 4);
    expect_civil(-2208988800, 1900, 1, 1, 0, 0, 0, 1);
    expect_civil(utc(1600, 2, 29, 12, 0, 0), 1600, 2, 29, 12, 0, 0, 2);
    /* day numbers and dates agree both ways over ±2000 years */
    for (int64_t days = -800000; days < 800000; days += 997) {
        tz_civil c;
        rig__tz_civil(days * 86400 + 43210, &c);
        assert_int_equal(rig__tz_days(c.year, c.month, c.day), days);
        assert_int_equal(c.hour * 3600 + c.minute * 60 + c.second, 43210);
        assert_int_equal(c.wday, ((days % 7) + 7 + 4) % 7);
    }
}

/* ---- offsets at known instants ------------------------------------------ */

static void test_known_instants(void **state) {
    (void)state;
    /* Berlin: CEST in summer, CET in winter */
    expect_at("Europe/Berlin", utc(2026, 7, 1, 12, 0, 0), 7200, true, "CEST");
    expect_at("Europe/Berlin", utc(2026, 1, 15, 12, 0, 0), 3600, false, "CET");
    /* ... and far past the last transition in the file: the footer rule */
    expect_at("Europe/Berlin", utc(2100, 7, 1, 12, 0, 0), 7200, true, "CEST");
    expect_at("Europe/Berlin", utc(2100, 12, 1, 12, 0, 0), 3600, false, "CET");
    expect_at("Europe/Berlin", utc(2400, 3, 26, 1, 0, 0), 7200, true, "CEST");  /* last Sunday */
    expect_at("Europe/Berlin", utc(2400, 3, 26, 0, 59, 59), 3600, false, "CET");
    /* New York, 2026-03-08 02:00 EST = 07:00Z: the spring transition */
    expect_at("America/New_York", utc(2026, 3, 8, 6, 59, 59), -18000, false, "EST");
    expect_at("America/New_York", utc(2026, 3, 8, 7, 0, 0), -14400, true, "EDT");
    /* 2026-11-01 02:00 EDT = 06:00Z: back */
    expect_at("America/New_York", utc(2026, 11, 1, 5, 59, 59), -14400, true, "EDT");
    expect_at("America/New_York", utc(2026, 11, 1, 6, 0, 0), -18000, false, "EST");
    /* from the transition table, not the rule: 1990 and the 1974 energy crisis */
    expect_at("America/New_York", utc(1990, 7, 1, 12, 0, 0), -14400, true, "EDT");
    expect_at("America/New_York", utc(1974, 1, 15, 12, 0, 0), -14400, true, "EDT");
    expect_at("America/New_York", utc(1883, 1, 1, 0, 0, 0), -17762, false, "LMT");
    /* Lord Howe: +10:30, and half an hour of DST in the southern summer */
    expect_at("Australia/Lord_Howe", utc(2026, 1, 15, 0, 0, 0), 39600, true, "+11");
    expect_at("Australia/Lord_Howe", utc(2026, 7, 1, 0, 0, 0), 37800, false, "+1030");
    /* DST began 2026-10-04 02:00 local (+10:30) = 10-03 15:30Z */
    expect_at("Australia/Lord_Howe", utc(2026, 10, 3, 15, 29, 59), 37800, false, "+1030");
    expect_at("Australia/Lord_Howe", utc(2026, 10, 3, 15, 30, 0), 39600, true, "+11");
    /* Kolkata: +05:30 all year, and +06:30 war time in 1943 */
    expect_at("Asia/Kolkata", utc(2026, 7, 1, 0, 0, 0), 19800, false, "IST");
    expect_at("Asia/Kolkata", utc(2026, 1, 1, 0, 0, 0), 19800, false, "IST");
    expect_at("Asia/Kolkata", utc(1943, 6, 1, 0, 0, 0), 23400, true, "+0630");
    expect_at("UTC", utc(2026, 7, 1, 0, 0, 0), 0, false, "UTC");
    expect_at("Etc/GMT-14", utc(2026, 7, 1, 0, 0, 0), 50400, false, "+14");
    expect_at("Etc/GMT+12", utc(2026, 7, 1, 0, 0, 0), -43200, false, "-12");
}

static void expect_resolve(const char *name, int64_t wall, int fit, int64_t t) {
    int64_t got = 0;
    int f = rig__tz_resolve(zone(name), wall, &got);
    if (f != fit || got != t)
        fail_msg("%s wall %lld: fit %d t %lld, want fit %d t %lld", name, (long long)wall, f,
                 (long long)got, fit, (long long)t);
}

static void test_resolve(void **state) {
    (void)state;
    /* an ordinary time */
    expect_resolve("Europe/Berlin", utc(2026, 7, 1, 14, 0, 0), TZ_EXACT, utc(2026, 7, 1, 12, 0, 0));
    expect_resolve("Europe/Berlin", utc(2026, 1, 15, 13, 0, 0), TZ_EXACT,
                   utc(2026, 1, 15, 12, 0, 0));
    /* 2026-03-29 02:30 does not exist in Berlin: read as CET, i.e. 03:30 CEST */
    expect_resolve("Europe/Berlin", utc(2026, 3, 29, 2, 30, 0), TZ_GAP, utc(2026, 3, 29, 1, 30, 0));
    expect_resolve("Europe/Berlin", utc(2026, 3, 29, 2, 0, 0), TZ_GAP, utc(2026, 3, 29, 1, 0, 0));
    expect_resolve("Europe/Berlin", utc(2026, 3, 29, 3, 0, 0), TZ_EXACT, utc(2026, 3, 29, 1, 0, 0));
    expect_resolve("Europe/Berlin", utc(2026, 3, 29, 1, 59, 0), TZ_EXACT,
                   utc(2026, 3, 29, 0, 59, 0));
    /* 2026-10-25 02:30 happens twice: the first (CEST) */
    expect_resolve("Europe/Berlin", utc(2026, 10, 25, 2, 30, 0), TZ_AMBIGUOUS,
                   utc(2026, 10, 25, 0, 30, 0));
    expect_resolve("Europe/Berlin", utc(2026, 10, 25, 3, 0, 0), TZ_EXACT,
                   utc(2026, 10, 25, 2, 0, 0));
    /* New York */
    expect_resolve("America/New_York", utc(2026, 3, 8, 2, 30, 0), TZ_GAP, utc(2026, 3, 8, 7, 30, 0));
    expect_resolve("America/New_York", utc(2026, 11, 1, 1, 30, 0), TZ_AMBIGUOUS,
                   utc(2026, 11, 1, 5, 30, 0));
    /* Lord Howe's half-hour gap: 02:15 read at +10:30 */
    expect_resolve("Australia/Lord_Howe", utc(2026, 10, 4, 2, 15, 0), TZ_GAP,
                   utc(2026, 10, 3, 15, 45, 0));
    /* Samoa skipped all of 2011-12-30 */
    expect_resolve("Pacific/Apia", utc(2011, 12, 30, 12, 0, 0), TZ_GAP,
                   utc(2011, 12, 30, 12, 0, 0) + 36000);
    expect_resolve("UTC", utc(2026, 3, 29, 2, 30, 0), TZ_EXACT, utc(2026, 3, 29, 2, 30, 0));
    /* every hour of two years in New York maps back to itself, except in gaps */
    const tz_zone *ny = zone("America/New_York");
    for (int64_t wall = utc(2025, 1, 1, 0, 0, 0); wall < utc(2027, 1, 1, 0, 0, 0); wall += 1800) {
        int64_t t;
        int fit = rig__tz_resolve(ny, wall, &t);
        tz_offset o;
        rig__tz_at(ny, t, &o);
        if (fit == TZ_GAP)
            assert_int_equal(t + o.utoff, wall + 3600);
        else
            assert_int_equal(t + o.utoff, wall);
    }
}

/* ---- glibc as the oracle ------------------------------------------------ */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t next_rand(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t zones_checked, instants_checked;
static const char *zone_dir;

/* The same answers as glibc's localtime_r, which reads the same files, at
 * random instants between 1900 and 2200 plus a dense run around now. */
static int compare_zone(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag != FTW_F)
        return 0;
    const char *name = path + strlen(zone_dir) + 1;
    if (!rig__tz_name_valid(name) || strncmp(name, "right/", 6) == 0 ||
        strcmp(name, "localtime") == 0)
        return 0;
    rig_error err = {0};
    const tz_zone *z = rig__tz_get(cache, name, &err);
    if (!z) {
        if (err.code != RIG_ENOENT) /* a zone file we could not read */
            fail_msg("%s: %s", name, err.message);
        return 0; /* not a zone file (leapseconds, ...) */
    }
    setenv("TZ", name, 1);
    tzset();
    for (int i = 0; i < 120; i++) {
        int64_t t = i < 40 ? 1767225600 + (int64_t)(next_rand() % (40ull * 365 * 86400))
                           : -2208988800 + (int64_t)(next_rand() % 9467107200ull);
        time_t tt = (time_t)t;
        struct tm tm;
        assert_non_null(localtime_r(&tt, &tm));
        tz_offset o;
        rig__tz_at(z, t, &o);
        if (o.utoff != tm.tm_gmtoff || o.is_dst != (tm.tm_isdst > 0) || strcmp(o.abbr, tm.tm_zone))
            fail_msg("%s at %lld: rig %d %d %s, glibc %ld %d %s", name, (long long)t, o.utoff,
                     o.is_dst, o.abbr, tm.tm_gmtoff, tm.tm_isdst, tm.tm_zone);
        tz_civil c;
        rig__tz_civil(t + o.utoff, &c);
        assert_int_equal(c.year, tm.tm_year + 1900);
        assert_int_equal(c.month, tm.tm_mon + 1);
        assert_int_equal(c.day, tm.tm_mday);
        assert_int_equal(c.hour, tm.tm_hour);
        assert_int_equal(c.minute, tm.tm_min);
        assert_int_equal(c.second, tm.tm_sec);
        assert_int_equal(c.wday, tm.tm_wday);
        instants_checked++;
    }
    zones_checked++;
    return 0;
}

static void test_every_zone_against_glibc(void **state) {
    (void)state;
    zone_dir = getenv("TZDIR") ? getenv("TZDIR") : RIG_TZ_DIR_DEFAULT;
    char *saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    assert_int_equal(nftw(zone_dir, compare_zone, 16, FTW_PHYS), 0);
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
    /* tzdata has some 350 canonical zones; Debian installs more names */
    if (zones_checked < 300)
        fail_msg("only %zu zones found under %s", zones_checked, zone_dir);
}

static void test_posix_strings_against_glibc(void **state) {
    (void)state;
    static const char *const rules[] = {
        "CET-1CEST,M3.5.0,M10.5.0/3",
        "EST5EDT,M3.2.0,M11.1.0",
        "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
        "NZST-12NZDT,M9.5.0,M4.1.0/3",
        "IST-1GMT0,M10.5.0,M3.5.0/1",              /* Dublin: negative DST */
        "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",        /* Nuuk: negative times */
        "XXX3YYY,J60/2,J300/2",                    /* Julian days, Feb 29 not counted */
        "XXX3YYY,59/2,300/2",                      /* zero-based days, Feb 29 counted */
        "<-0330>3:30<-0230>,M3.2.0/-1:30:15,M11.1.0/26",
        "IST-5:30",
        "<+14>-14",
    };
    char *saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++) {
        rig_error err = {0};
        tz_zone *z = rig__tz_posix(rules[k], &err);
        if (!z)
            fail_msg("%s: %s", rules[k], err.message);
        assert_string_equal(rig__tz_name(z), rules[k]);
        setenv("TZ", rules[k], 1);
        tzset();
        for (int i = 0; i < 4000; i++) {
            int64_t t = i % 2 ? 1767225600 + (int64_t)(next_rand() % (30ull * 365 * 86400))
                              : (int64_t)(next_rand() % 7258118400ull);
            time_t tt = (time_t)t;
            struct tm tm;
            localtime_r(&tt, &tm);
            tz_offset o;
            rig__tz_at(z, t, &o);
            if (o.utoff != tm.tm_gmtoff || o.is_dst != (tm.tm_isdst > 0) ||
                strcmp(o.abbr, tm.tm_zone))
                fail_msg("%s at %lld: rig %d %d %s, glibc %ld %d %s", rules[k], (long long)t,
                         o.utoff, o.is_dst, o.abbr, tm.tm_gmtoff, tm.tm_isdst, tm.tm_zone);
        }
        rig__tz_zone_free(z);
    }
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

/* Rules whose transitions fall around the new year, checked by hand:
 * glibc computes a rule's transitions for the year of the UTC time only,
 * so it gets the hours between the new year in UTC and the local one
 * wrong (where they differ from these answers, glibc is the one off). */
static void test_posix_new_year(void **state) {
    (void)state;
    /* DST from Jan 1 00:00 standard (05:45:30Z) to Dec 31 23:59:59 DST
     * (Jan 1 04:44:59Z): standard time for one hour a year */
    tz_zone *z = rig__tz_posix("AAA+5:45:30BBB+4:45,J1/0,J365/23:59:59", NULL);
    assert_non_null(z);
    static const struct {
        int h, m, s;
        const char *abbr;
    } probes[] = {
        {0, 0, 0, "BBB"},  {3, 32, 56, "BBB"}, {4, 44, 58, "BBB"}, {4, 44, 59, "AAA"},
        {5, 45, 29, "AAA"}, {5, 45, 30, "BBB"}, {12, 0, 0, "BBB"},
    };
    for (int64_t y = 2030; y < 2100; y += 13) {
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
            tz_offset o;
            rig__tz_at(z, utc(y, 1, 1, probes[i].h, probes[i].m, probes[i].s), &o);
            if (strcmp(o.abbr, probes[i].abbr) != 0)
                fail_msg("%lld-01-01 %02d:%02d:%02dZ: %s, want %s", (long long)y, probes[i].h,
                         probes[i].m, probes[i].s, o.abbr, probes[i].abbr);
            assert_int_equal(o.utoff, probes[i].abbr[0] == 'A' ? -20730 : -17100);
        }
    }
    rig__tz_zone_free(z);
}

/* DST without a rule: the current US rule, as POSIX leaves it open and
 * glibc also uses (glibc takes it from its "posixrules" file, with the US
 * history before 2007, so it is no oracle here). */
static void test_posix_default_rule(void **state) {
    (void)state;
    tz_zone *z = rig__tz_posix("XST5XDT", NULL);
    assert_non_null(z);
    tz_offset o;
    rig__tz_at(z, utc(2026, 3, 8, 6, 59, 59), &o);
    assert_string_equal(o.abbr, "XST");
    assert_int_equal(o.utoff, -18000);
    rig__tz_at(z, utc(2026, 3, 8, 7, 0, 0), &o);
    assert_string_equal(o.abbr, "XDT");
    assert_int_equal(o.utoff, -14400); /* one hour ahead of standard */
    assert_true(o.is_dst);
    rig__tz_at(z, utc(2026, 11, 1, 5, 59, 59), &o);
    assert_string_equal(o.abbr, "XDT");
    rig__tz_at(z, utc(2026, 11, 1, 6, 0, 0), &o);
    assert_string_equal(o.abbr, "XST");
    rig__tz_zone_free(z);
}

/* RFC 8536's example of DST all year; glibc shows EST in the first hours
 * of each UTC year, so this one is checked by hand too. */
static void test_posix_dst_all_year(void **state) {
    (void)state;
    tz_zone *z = rig__tz_posix("EST5EDT,0/0,J365/25", NULL);
    assert_non_null(z);
    for (int64_t y = 1990; y < 2100; y += 7) {
        static const int64_t probes[] = {0, 3600, 4 * 3600 + 3599, 5 * 3600, 86400 * 180};
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
            tz_offset o;
            rig__tz_at(z, utc(y, 1, 1, 0, 0, 0) + probes[i], &o);
            assert_true(o.is_dst);
            assert_int_equal(o.utoff, -14400);
            assert_string_equal(o.abbr, "EDT");
        }
    }
    rig__tz_zone_free(z);
}

static void test_posix_refused(void **state) {
    (void)state;
    static const char *const bad[] = {
        "",       "CET",        "CE-1",   "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0",
        "CET-1CEST,M3.6.0,M10.5.0",       "CET-1CEST,M3.5.7,M10.5.0",   "CET-25",
        "CET-1CEST,M3.5.0,M10.5.0/168",   "CET-1CEST,J0,J10",           "CET-1CEST,366,10",
        "<CET-1",  "<C T>-1",   "CET-1:60", "CET-1CEST,M3.5.0,M10.5.0x", "CET-1 ",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rig_error err = {0};
        tz_zone *z = rig__tz_posix(bad[i], &err);
        if (z)
            fail_msg("accepted '%s'", bad[i]);
        assert_int_equal(err.code, RIG_EINVAL);
    }
}

/* ---- crafted TZif files --------------------------------------------------- */

typedef struct ttype {
    int32_t utoff;
    uint8_t isdst, abbr;
} ttype;

typedef struct tzif_spec {
    char version;           /* 0, '2', '3' */
    const int64_t *times;
    const uint8_t *idx;
    uint32_t n_times;
    const ttype *types;
    uint32_t n_types;
    const char *chars;      /* NUL-separated abbreviations */
    uint32_t n_chars;
    uint32_t leapcnt;
    const char *footer;     /* NULL: no footer line at all */
} tzif_spec;

static size_t put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return 4;
}

static size_t put_block(uint8_t *p, const tzif_spec *s, int tsize) {
    uint8_t *o = p;
    memcpy(p, "TZif", 4);
    p[4] = (uint8_t)s->version;
    memset(p + 5, 0, 15);
    p += 20;
    p += put32(p, 0);
    p += put32(p, 0);
    p += put32(p, s->leapcnt);
    p += put32(p, s->n_times);
    p += put32(p, s->n_types);
    p += put32(p, s->n_chars);
    for (uint32_t i = 0; i < s->n_times; i++) {
        if (tsize == 8)
            p += put32(p, (uint32_t)((uint64_t)s->times[i] >> 32));
        p += put32(p, (uint32_t)s->times[i]);
    }
    for (uint32_t i = 0; i < s->n_times; i++)
        *p++ = s->idx[i];
    for (uint32_t i = 0; i < s->n_types; i++) {
        p += put32(p, (uint32_t)s->types[i].utoff);
        *p++ = s->types[i].isdst;
        *p++ = s->types[i].abbr;
    }
    memcpy(p, s->chars, s->n_chars);
    p += s->n_chars;
    memset(p, 0, (size_t)s->leapcnt * (tsize + 4));
    p += (size_t)s->leapcnt * (tsize + 4);
    return (size_t)(p - o);
}

static size_t build_tzif(uint8_t *out, const tzif_spec *s) {
    size_t n = put_block(out, s, 4);
    if (s->version) {
        n += put_block(out + n, s, 8);
        if (s->footer)
            n += (size_t)sprintf((char *)out + n, "\n%s\n", s->footer);
    }
    return n;
}

/* A zone with two transitions: XST (+1) until 2000, XDT (+2) until 2010,
 * then XST again. */
static const int64_t two_times[] = {946684800, 1262304000};
static const uint8_t two_idx[] = {1, 0};
static const ttype two_types[] = {{3600, 0, 0}, {7200, 1, 4}};
static const char two_chars[] = "XST\0XDT";

static tzif_spec two_spec(char version, const char *footer) {
    tzif_spec s = {version, two_times, two_idx, 2, two_types, 2, two_chars, 8, 0, footer};
    return s;
}

static tz_zone *parse_ok_zone(const uint8_t *buf, size_t len) {
    rig_error err = {0};
    uint8_t *copy = malloc(len); /* exactly len bytes: ASan sees any over-read */
    assert_non_null(copy);
    memcpy(copy, buf, len);
    tz_zone *z = rig__tz_parse(copy, len, "Test/Zone", &err);
    free(copy);
    if (!z)
        fail_msg("crafted zone refused: %s", err.message);
    return z;
}

static void test_crafted_files(void **state) {
    (void)state;
    uint8_t buf[4096];
    /* version 1: 32-bit times, no footer */
    tzif_spec s = two_spec(0, NULL);
    tz_zone *z = parse_ok_zone(buf, build_tzif(buf, &s));
    tz_offset o;
    rig__tz_at(z, 0, &o); /* before the first transition: type 0 */
    assert_int_equal(o.utoff, 3600);
    assert_string_equal(o.abbr, "XST");
    rig__tz_at(z, 946684800, &o);
    assert_int_equal(o.utoff, 7200);
    assert_true(o.is_dst);
    assert_string_equal(o.abbr, "XDT");
    rig__tz_at(z, 1262303999, &o);
    assert_string_equal(o.abbr, "XDT");
    rig__tz_at(z, 4000000000, &o); /* after the last: its type, there is no rule */
    assert_string_equal(o.abbr, "XST");
    rig__tz_zone_free(z);

    /* version 2 with a rule after the last transition */
    s = two_spec('2', "XST-1XDT,M3.5.0,M10.5.0/3");
    z = parse_ok_zone(buf, build_tzif(buf, &s));
    rig__tz_at(z, utc(2020, 7, 1, 0, 0, 0), &o);
    assert_string_equal(o.abbr, "XDT");
    rig__tz_at(z, utc(2020, 12, 1, 0, 0, 0), &o);
    assert_string_equal(o.abbr, "XST");
    rig__tz_at(z, utc(2005, 12, 1, 0, 0, 0), &o); /* the table still rules before */
    assert_string_equal(o.abbr, "XDT");
    rig__tz_zone_free(z);

    /* version 3, empty footer: no rule */
    s = two_spec('3', "");
    z = parse_ok_zone(buf, build_tzif(buf, &s));
    rig__tz_at(z, utc(2020, 7, 1, 0, 0, 0), &o);
    assert_string_equal(o.abbr, "XST");
    rig__tz_zone_free(z);

    /* a file that is only a rule */
    tzif_spec rule_only = {'2', NULL, NULL, 0, two_types, 1, "XST", 4, 0, "XST-1XDT,M3.5.0,M10.5.0/3"};
    z = parse_ok_zone(buf, build_tzif(buf, &rule_only));
    rig__tz_at(z, utc(1950, 7, 1, 0, 0, 0), &o);
    assert_string_equal(o.abbr, "XDT");
    rig__tz_zone_free(z);
}

static void expect_refused(const uint8_t *buf, size_t len, const char *why) {
    rig_error err = {0};
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, buf, len);
    tz_zone *z = rig__tz_parse(copy, len, "Bad/Zone", &err);
    free(copy);
    if (z)
        fail_msg("accepted a file (%s)", why);
    assert_int_equal(err.code, RIG_EINVAL);
    assert_contains(err.message, "'Bad/Zone'");
    assert_contains(err.message, why);
}

static void test_damaged_files(void **state) {
    (void)state;
    uint8_t buf[4096];
    tzif_spec s = two_spec('2', "XST-1XDT,M3.5.0,M10.5.0/3");
    size_t n = build_tzif(buf, &s);
    /* cut anywhere: refused, never read past the end */
    for (size_t len = 0; len < n; len++) {
        rig_error err = {0};
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, buf, len);
        tz_zone *z = rig__tz_parse(copy, len, "Bad/Zone", &err);
        free(copy);
        if (z)
            fail_msg("accepted a file cut to %zu of %zu bytes", len, n);
    }
    uint8_t bad[4096];
    memcpy(bad, buf, n);
    bad[0] = 'X';
    expect_refused(bad, n, "not a TZif file");

    /* a transition pointing at a type that does not exist */
    static const uint8_t wild_idx[] = {1, 7};
    tzif_spec w = s;
    w.idx = wild_idx;
    expect_refused(buf, build_tzif(buf, &w), "time type that does not exist");
    /* transitions out of order */
    static const int64_t backwards[] = {1262304000, 946684800};
    w = s;
    w.times = backwards;
    expect_refused(buf, build_tzif(buf, &w), "out of order");
    /* leap seconds */
    w = s;
    w.leapcnt = 1;
    expect_refused(buf, build_tzif(buf, &w), "leap seconds");
    /* no types at all */
    w = s;
    w.n_types = 0;
    w.n_times = 0;
    expect_refused(buf, build_tzif(buf, &w), "inconsistent");
    /* an abbreviation index past the characters */
    static const ttype far_abbr[] = {{3600, 0, 0}, {7200, 1, 40}};
    w = s;
    w.types = far_abbr;
    expect_refused(buf, build_tzif(buf, &w), "malformed");
    /* footers */
    w = s;
    w.footer = "not a rule";
    expect_refused(buf, build_tzif(buf, &w), "does not parse");
    w.footer = NULL;
    expect_refused(buf, build_tzif(buf, &w), "footer is missing");
    n = build_tzif(buf, &s);
    expect_refused(buf, n - 1, "not terminated");
}

/* ---- the zone cache --------------------------------------------------- */

static void test_cache(void **state) {
    (void)state;
    rig_error err = {0};
    const tz_zone *a = rig__tz_get(cache, "Europe/Paris", &err);
    assert_non_null(a);
    assert_ptr_equal(rig__tz_get(cache, "Europe/Paris", &err), a); /* loaded once */
    assert_string_equal(rig__tz_name(a), "Europe/Paris");
    static const char *const unknown[] = {
        "Mars/Base", "../../etc/passwd", "/etc/passwd", "America", "leapseconds", "zone.tab",
        "Europe/Berlin/", "europe/berlin",
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_null(rig__tz_get(cache, unknown[i], &err));
        assert_int_equal(err.code, RIG_ENOENT);
    }
    assert_null(rig__tz_get(cache, "right/UTC", &err));
    assert_int_equal(err.code, RIG_EINVAL);
    assert_contains(err.message, "leap seconds");

    /* UTC works with no tz database at all */
    tz_cache *empty = rig__tz_cache_new("/nonexistent-zoneinfo");
    assert_non_null(empty);
    const tz_zone *u = rig__tz_get(empty, "UTC", &err);
    assert_non_null(u);
    tz_offset o;
    rig__tz_at(u, 1700000000, &o);
    assert_int_equal(o.utoff, 0);
    assert_string_equal(o.abbr, "UTC");
    assert_non_null(rig__tz_get(empty, "Etc/UTC", &err));
    assert_null(rig__tz_get(empty, "Europe/Berlin", &err));
    assert_int_equal(err.code, RIG_ENOENT);
    rig__tz_cache_free(empty);
}

/* ---- the local zone --------------------------------------------------- */

/* Run `fn` with TZ set to `value` (NULL: unset), restoring it after. */
static const char *local_name_with(const char *value, tz_cache *c) {
    char *saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    if (value)
        setenv("TZ", value, 1);
    else
        unsetenv("TZ");
    const tz_zone *z = rig__tz_get_local(c, NULL);
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    assert_non_null(z);
    return rig__tz_name(z);
}

/* What the system says the local zone is, found independently. */
static const char *system_zone(char *buf, size_t cap) {
    ssize_t n = readlink("/etc/localtime", buf, cap - 1);
    if (n > 0) {
        buf[n] = '\0';
        const char *z = strstr(buf, "zoneinfo/");
        if (z)
            return z + strlen("zoneinfo/");
    }
    FILE *f = fopen("/etc/timezone", "r");
    if (f) {
        if (fgets(buf, (int)cap, f)) {
            buf[strcspn(buf, "\r\n")] = '\0';
            fclose(f);
            return buf;
        }
        fclose(f);
    }
    return "UTC";
}

static void test_local_zone(void **state) {
    (void)state;
    tz_cache *c = rig__tz_cache_new(NULL);
    assert_string_equal(local_name_with("Asia/Tokyo", c), "Asia/Tokyo");
    assert_string_equal(local_name_with(":Europe/Berlin", c), "Europe/Berlin");
    assert_string_equal(local_name_with("/usr/share/zoneinfo/America/New_York", c),
                        "America/New_York");
    assert_string_equal(local_name_with("<+0330>-3:30", c), "<+0330>-3:30");
    assert_string_equal(local_name_with("<+0330>-3:30", c), "<+0330>-3:30"); /* cached */
    assert_string_equal(local_name_with("Mars/Base", c), "UTC"); /* as glibc: UTC */
    assert_string_equal(local_name_with("../../etc/passwd", c), "UTC");
    assert_string_equal(local_name_with("", c), "UTC");
    char buf[4096];
    assert_string_equal(local_name_with(NULL, c), system_zone(buf, sizeof buf));
    rig__tz_cache_free(c);
}

/* ---- the tools ---------------------------------------------------------- */

static int64_t parse_iso(const char *s, int32_t *off) {
    int y, mo, d, h, mi, se, oh, om;
    char sign;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c%2d:%2d", &y, &mo, &d, &h, &mi, &se, &sign, &oh,
               &om) != 9 ||
        strlen(s) != 25)
        fail_msg("not ISO 8601 with offset: %s", s);
    *off = (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    return utc(y, mo, d, h, mi, se) - *off;
}

static const char *const days[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                    "Thursday", "Friday", "Saturday"};

/* get_current_time in `name`; checks the result against the clock and the
 * expected offset (or one of two, for zones with DST). */
static void expect_now(rig_toolset *ts, const char *name, int32_t off_a, int32_t off_b) {
    char args[128];
    snprintf(args, sizeof args, "{\"timezone\":\"%s\"}", name);
    rig_error err;
    /* The tool reads CLOCK_REALTIME; time() may read a coarser clock that
     * lags it by a tick, and a second boundary between them failed this. */
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_REALTIME, &ts0);
    rig_result *r = call_in(ts, "get_current_time", NULL, args, &err);
    clock_gettime(CLOCK_REALTIME, &ts1);
    int64_t before = (int64_t)ts0.tv_sec, after = (int64_t)ts1.tv_sec;
    assert_ok_result(r, err);
    rig_json_doc *d = structured_of(r);
    assert_int_equal(rig_json_len(rig_json_doc_root(d)), 4);
    assert_string_equal(str_at(d, "/timezone"), name);
    int32_t off;
    int64_t t = parse_iso(str_at(d, "/datetime"), &off);
    assert_true(t >= before && t <= after);
    if (off != off_a && off != off_b)
        fail_msg("%s: offset %d", name, off);
    tz_civil c;
    rig__tz_civil(t + off, &c);
    assert_string_equal(str_at(d, "/day_of_week"), days[c.wday]);
    bool dst = bool_at(d, "/is_dst");
    if (off_a != off_b)
        assert_int_equal(dst, off == off_b);
    char *text = text_of(r);
    assert_contains(text, name);
    assert_contains(text, days[c.wday]);
    assert_contains(text, dst ? "daylight saving time" : "standard time");
    free(text);
    rig_json_doc_free(d);
    rig_result_free(r);
}

static void test_get_current_time(void **state) {
    (void)state;
    rig_toolset *ts = toolset_of(rig__get_current_time_tool_new);
    expect_now(ts, "UTC", 0, 0);
    expect_now(ts, "Asia/Kolkata", 19800, 19800);
    expect_now(ts, "Etc/GMT-14", 50400, 50400);
    expect_now(ts, "Asia/Kathmandu", 20700, 20700);
    expect_now(ts, "Europe/Berlin", 3600, 7200);
    expect_now(ts, "America/New_York", -18000, -14400);
    expect_now(ts, "Australia/Lord_Howe", 37800, 39600);

    /* Berlin agrees with glibc right now */
    rig_error err;
    rig_result *r = call_in(ts, "get_current_time", NULL, "{\"timezone\":\"Europe/Berlin\"}", &err);
    rig_json_doc *d = structured_of(r);
    int32_t off;
    int64_t t = parse_iso(str_at(d, "/datetime"), &off);
    char *saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", "Europe/Berlin", 1);
    tzset();
    time_t tt = (time_t)t;
    struct tm tm;
    localtime_r(&tt, &tm);
    assert_int_equal(off, tm.tm_gmtoff);
    assert_int_equal(bool_at(d, "/is_dst"), tm.tm_isdst > 0);
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
    rig_json_doc_free(d);
    rig_result_free(r);

    /* no zone, or an empty one: the local zone */
    char buf[4096];
    const char *local = system_zone(buf, sizeof buf);
    saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    unsetenv("TZ");
    static const char *const none[] = {"{}", "{\"timezone\":\"\"}"};
    for (size_t i = 0; i < 2; i++) {
        r = call_in(ts, "get_current_time", NULL, none[i], &err);
        assert_ok_result(r, err);
        d = structured_of(r);
        assert_string_equal(str_at(d, "/timezone"), local);
        rig_json_doc_free(d);
        rig_result_free(r);
    }
    setenv("TZ", "Asia/Tokyo", 1);
    r = call_in(ts, "get_current_time", NULL, "{}", &err);
    d = structured_of(r);
    assert_string_equal(str_at(d, "/timezone"), "Asia/Tokyo");
    assert_contains(str_at(d, "/datetime"), "+09:00");
    rig_json_doc_free(d);
    rig_result_free(r);
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    rig_toolset_free(ts);
}

static void test_unknown_zones(void **state) {
    (void)state;
    rig_toolset *ts = toolset_of(rig__get_current_time_tool_new);
    static const char *const names[] = {
        "Mars/Base", "../../etc/passwd", "/etc/passwd", "Europe/../../../etc/passwd",
        "America", "zone.tab", "Europe/Berlin ", "leapseconds",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char args[256], want[256];
        snprintf(args, sizeof args, "{\"timezone\":\"%s\"}", names[i]);
        snprintf(want, sizeof want,
                 "Unknown time zone '%s'. Use an IANA name such as 'Europe/Berlin' or 'UTC'.",
                 names[i]);
        rig_error err;
        rig_result *r = call_in(ts, "get_current_time", NULL, args, &err);
        assert_true(rig_result_is_error(r));
        assert_int_equal(err.code, RIG_ETOOL);
        char *text = text_of(r);
        assert_string_equal(text, want);
        free(text);
        rig_result_free(r);
    }
    rig_error err;
    rig_result *r = call_in(ts, "get_current_time", NULL, "{\"timezone\":\"right/UTC\"}", &err);
    assert_error_with(r, "leap seconds");
    rig_result_free(r);
    r = call_in(ts, "get_current_time", NULL, "{\"timezone\":5}", &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    r = call_in(ts, "get_current_time", NULL, "{\"tz\":\"UTC\"}", &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    rig_result_free(r);
    rig_toolset_free(ts);
}

/* convert_time; returns the structuredContent of a result that must be ok. */
static rig_json_doc *convert(rig_toolset *ts, const char *args, char **text) {
    rig_error err;
    rig_result *r = call_in(ts, "convert_time", NULL, args, &err);
    assert_ok_result(r, err);
    rig_json_doc *d = structured_of(r);
    if (text)
        *text = text_of(r);
    rig_result_free(r);
    return d;
}

/* The hour and minute in an ISO datetime. */
static int hhmm_of(const char *iso) { return atoi(iso + 11) * 100 + atoi(iso + 14); }

static void test_convert_time(void **state) {
    (void)state;
    rig_toolset *ts = toolset_of(rig__convert_time_tool_new);
    char *text;
    /* Berlin noon in Tokyo: +8h in winter, +7h in summer */
    rig_json_doc *d = convert(ts, "{\"source_timezone\":\"Europe/Berlin\",\"time\":\"12:00\","
                                  "\"target_timezone\":\"Asia/Tokyo\"}", &text);
    assert_string_equal(str_at(d, "/source/timezone"), "Europe/Berlin");
    assert_string_equal(str_at(d, "/target/timezone"), "Asia/Tokyo");
    assert_int_equal(hhmm_of(str_at(d, "/source/datetime")), 1200);
    bool summer = bool_at(d, "/source/is_dst");
    assert_contains(str_at(d, "/source/datetime"), summer ? "+02:00" : "+01:00");
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), summer ? 1900 : 2000);
    assert_contains(str_at(d, "/target/datetime"), "+09:00");
    assert_false(bool_at(d, "/target/is_dst"));
    assert_string_equal(str_at(d, "/time_difference"), summer ? "+7.0h" : "+8.0h");
    assert_false(rig_json_exists(rig_json_get(rig_json_doc_root(d), "note")));
    assert_contains(text, "12:00 in Europe/Berlin");
    assert_contains(text, summer ? "is 19:00 in Asia/Tokyo" : "is 20:00 in Asia/Tokyo");
    assert_contains(text, summer ? "Time difference: +7.0h." : "Time difference: +8.0h.");
    free(text);
    /* the source date is today in Berlin */
    char *saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", "Europe/Berlin", 1);
    tzset();
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char today[16];
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    assert_int_equal(strncmp(str_at(d, "/source/datetime"), today, 10), 0);
    assert_string_equal(str_at(d, "/source/day_of_week"), days[tm.tm_wday]);
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
    rig_json_doc_free(d);

    /* fractional differences, both ways */
    d = convert(ts, "{\"source_timezone\":\"UTC\",\"time\":\"12:00\","
                    "\"target_timezone\":\"Asia/Kolkata\"}", NULL);
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 1730);
    assert_string_equal(str_at(d, "/time_difference"), "+5.5h");
    rig_json_doc_free(d);
    d = convert(ts, "{\"source_timezone\":\"Asia/Kolkata\",\"time\":\"12:00\","
                    "\"target_timezone\":\"UTC\"}", NULL);
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 630);
    assert_string_equal(str_at(d, "/time_difference"), "-5.5h");
    rig_json_doc_free(d);
    d = convert(ts, "{\"source_timezone\":\"UTC\",\"time\":\"00:00\","
                    "\"target_timezone\":\"Asia/Kathmandu\"}", NULL);
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 545);
    assert_string_equal(str_at(d, "/time_difference"), "+5.75h");
    rig_json_doc_free(d);
    d = convert(ts, "{\"source_timezone\":\"Europe/Paris\",\"time\":\"7:05\","
                    "\"target_timezone\":\"Europe/Paris\"}", NULL);
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 705);
    assert_string_equal(str_at(d, "/time_difference"), "+0.0h");
    rig_json_doc_free(d);
    /* across midnight: the next day in Tokyo */
    d = convert(ts, "{\"source_timezone\":\"UTC\",\"time\":\"23:30\","
                    "\"target_timezone\":\"Asia/Tokyo\"}", NULL);
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 830);
    int src_day = -1, dst_day = -1;
    for (int i = 0; i < 7; i++) {
        if (!strcmp(str_at(d, "/source/day_of_week"), days[i]))
            src_day = i;
        if (!strcmp(str_at(d, "/target/day_of_week"), days[i]))
            dst_day = i;
    }
    assert_int_equal(dst_day, (src_day + 1) % 7);
    rig_json_doc_free(d);
    /* Etc/GMT+12 to Etc/GMT-14: a day apart, more or less */
    d = convert(ts, "{\"source_timezone\":\"Etc/GMT+12\",\"time\":\"00:00\","
                    "\"target_timezone\":\"Etc/GMT-14\"}", NULL);
    assert_string_equal(str_at(d, "/time_difference"), "+26.0h");
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 200);
    rig_json_doc_free(d);

    /* a missing zone is the local one */
    saved = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", "Asia/Tokyo", 1);
    d = convert(ts, "{\"time\":\"09:00\",\"target_timezone\":\"UTC\"}", NULL);
    assert_string_equal(str_at(d, "/source/timezone"), "Asia/Tokyo");
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 0);
    rig_json_doc_free(d);
    d = convert(ts, "{\"time\":\"09:00\",\"source_timezone\":\"UTC\"}", NULL);
    assert_string_equal(str_at(d, "/target/timezone"), "Asia/Tokyo");
    assert_int_equal(hhmm_of(str_at(d, "/target/datetime")), 1800);
    rig_json_doc_free(d);
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    rig_toolset_free(ts);
}

static void test_convert_time_errors(void **state) {
    (void)state;
    rig_toolset *ts = toolset_of(rig__convert_time_tool_new);
    static const char *const times[] = {"25:00", "12:60", "7",     "ab:cd", "",      "12:3",
                                        "123:00", " 12:00", "12:00 ", "12:00:00", "24:00",
                                        "-1:00", "12.30", "1230",  "+1:30", "12:+3"};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        char args[128], want[160];
        snprintf(args, sizeof args, "{\"source_timezone\":\"UTC\",\"time\":\"%s\"}", times[i]);
        snprintf(want, sizeof want, "Invalid time '%s'. Use 24-hour HH:MM, e.g. '14:30'.",
                 times[i]);
        rig_error err;
        rig_result *r = call_in(ts, "convert_time", NULL, args, &err);
        if (!rig_result_is_error(r))
            fail_msg("accepted time '%s'", times[i]);
        char *text = text_of(r);
        assert_string_equal(text, want);
        free(text);
        rig_result_free(r);
    }
    static const char *const good[] = {"00:00", "23:59", "0:00", "9:59"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "{\"source_timezone\":\"UTC\",\"time\":\"%s\"}", good[i]);
        rig_json_doc_free(convert(ts, args, NULL));
    }
    rig_error err;
    rig_result *r = call_in(ts, "convert_time", NULL,
                            "{\"source_timezone\":\"Mars/Base\",\"time\":\"12:00\"}", &err);
    assert_error_with(r, "Unknown time zone 'Mars/Base'.");
    rig_result_free(r);
    r = call_in(ts, "convert_time", NULL,
                "{\"source_timezone\":\"UTC\",\"time\":\"12:00\","
                "\"target_timezone\":\"../../etc/passwd\"}",
                &err);
    assert_error_with(r, "Unknown time zone '../../etc/passwd'.");
    rig_result_free(r);
    r = call_in(ts, "convert_time", NULL, "{\"source_timezone\":\"UTC\"}", &err);
    assert_int_equal(err.code, RIG_EVALIDATE);
    assert_error_with(r, "time");
    rig_result_free(r);
    rig_toolset_free(ts);
}

/* Zones whose rules change today, in a zone directory of our own: the tool
 * must meet a gap and an overlap whatever the date. The standard offset is
 * picked so that it is about 06:00 there now, far from midnight, so "today"
 * is one date whichever offset is in force. */
static char zdir[64];

static void write_zone(const char *name, const char *footer) {
    uint8_t buf[512];
    static const ttype xst[] = {{0, 0, 0}};
    tzif_spec s = {'2', NULL, NULL, 0, xst, 1, "XST", 4, 0, footer};
    size_t n = build_tzif(buf, &s);
    char path[128];
    snprintf(path, sizeof path, "%s/%s", zdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* "+02:00" */
static const char *offset_text(int hours) {
    static char buf[16];
    snprintf(buf, sizeof buf, "%c%02d:00", hours < 0 ? '-' : '+', hours < 0 ? -hours : hours);
    return buf;
}

/* "2026-11-26T13:30:00" for local seconds `wall` */
static const char *wall_text(int64_t wall) {
    static char buf[32];
    tz_civil c;
    rig__tz_civil(wall, &c);
    snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d", (long long)c.year, c.month,
             c.day, c.hour, c.minute, c.second);
    return buf;
}

static void test_convert_time_gap_and_overlap(void **state) {
    (void)state;
    snprintf(zdir, sizeof zdir, "/tmp/rig-zones-XXXXXX");
    assert_non_null(mkdtemp(zdir));
    int64_t now = (int64_t)time(NULL);
    int64_t delta = 6 * 3600 - now % 86400; /* to 06:00 UTC: in (-18 h, 6 h] */
    int std = (int)(delta >= 0 ? delta / 3600 : -((-delta + 3599) / 3600));
    tz_civil c;
    rig__tz_civil(now + std * 3600, &c);
    int64_t today = rig__tz_days(c.year, c.month, c.day);
    int64_t yday = today - rig__tz_days(c.year, 1, 1);
    int64_t other = (yday + 180) % 365;
    char footer[96];
    /* DST begins today at 12:00: 12:00-12:59 never happens */
    snprintf(footer, sizeof footer, "XST%dXDT,%lld/12,%lld/3", -std, (long long)yday,
             (long long)other);
    write_zone("Gap", footer);
    /* DST ends today at 12:00 XDT: 11:00-11:59 happens twice */
    snprintf(footer, sizeof footer, "XST%dXDT,%lld/3,%lld/12", -std, (long long)other,
             (long long)yday);
    write_zone("Overlap", footer);

    char *saved = getenv("TZDIR") ? strdup(getenv("TZDIR")) : NULL;
    setenv("TZDIR", zdir, 1); /* read when the tool's zone cache is made */
    rig_toolset *ts = toolset_of(rig__convert_time_tool_new);
    if (saved) {
        setenv("TZDIR", saved, 1);
        free(saved);
    } else {
        unsetenv("TZDIR");
    }

    char date[16], want[160], diff[16];
    snprintf(date, sizeof date, "%.10s", wall_text(today * 86400));
    /* 12:30 in the gap: read at the standard offset, so it shows as 13:30 XDT */
    char *text;
    rig_json_doc *d = convert(ts, "{\"source_timezone\":\"Gap\",\"time\":\"12:30\","
                                  "\"target_timezone\":\"UTC\"}", &text);
    int64_t wall = today * 86400 + 12 * 3600 + 1800;
    snprintf(want, sizeof want, "%sT13:30:00%s", date, offset_text(std + 1));
    assert_string_equal(str_at(d, "/source/datetime"), want);
    assert_true(bool_at(d, "/source/is_dst"));
    snprintf(want, sizeof want, "%s+00:00", wall_text(wall - std * 3600));
    assert_string_equal(str_at(d, "/target/datetime"), want);
    snprintf(diff, sizeof diff, "%+.1fh", (double)-(std + 1));
    assert_string_equal(str_at(d, "/time_difference"), diff);
    snprintf(want, sizeof want, "12:30 does not exist in Gap on %s", date);
    assert_contains(str_at(d, "/note"), want);
    assert_contains(str_at(d, "/note"), "which is 13:30 XDT");
    assert_contains(text, "Note: 12:30 does not exist in Gap");
    free(text);
    rig_json_doc_free(d);
    /* just before the gap: exact, no note */
    d = convert(ts, "{\"source_timezone\":\"Gap\",\"time\":\"11:59\","
                    "\"target_timezone\":\"UTC\"}", NULL);
    snprintf(want, sizeof want, "%sT11:59:00%s", date, offset_text(std));
    assert_string_equal(str_at(d, "/source/datetime"), want);
    assert_false(bool_at(d, "/source/is_dst"));
    assert_false(rig_json_exists(rig_json_get(rig_json_doc_root(d), "note")));
    rig_json_doc_free(d);

    /* 11:30 in the overlap: the first occurrence, still XDT */
    d = convert(ts, "{\"source_timezone\":\"Overlap\",\"time\":\"11:30\","
                    "\"target_timezone\":\"UTC\"}", &text);
    wall = today * 86400 + 11 * 3600 + 1800;
    snprintf(want, sizeof want, "%sT11:30:00%s", date, offset_text(std + 1));
    assert_string_equal(str_at(d, "/source/datetime"), want);
    assert_true(bool_at(d, "/source/is_dst"));
    snprintf(want, sizeof want, "%s+00:00", wall_text(wall - (std + 1) * 3600));
    assert_string_equal(str_at(d, "/target/datetime"), want);
    snprintf(want, sizeof want, "11:30 occurs twice in Overlap on %s", date);
    assert_contains(str_at(d, "/note"), want);
    snprintf(want, sizeof want, "the first occurrence, XDT (UTC%s), was used",
             offset_text(std + 1));
    assert_contains(str_at(d, "/note"), want);
    assert_contains(text, "Note: 11:30 occurs twice");
    free(text);
    rig_json_doc_free(d);
    /* after the overlap: exact, standard time */
    d = convert(ts, "{\"source_timezone\":\"Overlap\",\"time\":\"12:30\","
                    "\"target_timezone\":\"UTC\"}", NULL);
    assert_false(bool_at(d, "/source/is_dst"));
    snprintf(want, sizeof want, "%s+00:00", wall_text(today * 86400 + 12 * 3600 + 1800 - std * 3600));
    assert_string_equal(str_at(d, "/target/datetime"), want);
    assert_false(rig_json_exists(rig_json_get(rig_json_doc_root(d), "note")));
    rig_json_doc_free(d);
    rig_toolset_free(ts);

    char path[128];
    snprintf(path, sizeof path, "%s/Gap", zdir);
    unlink(path);
    snprintf(path, sizeof path, "%s/Overlap", zdir);
    unlink(path);
    rmdir(zdir);
}

static void test_definitions(void **state) {
    (void)state;
    rig_tool *(*const makers[])(rig_error *) = {rig__get_current_time_tool_new,
                                                rig__convert_time_tool_new};
    for (size_t i = 0; i < 2; i++) {
        rig_error err;
        rig_tool *t = makers[i](&err);
        assert_non_null(t);
        assert_hints(t, true, false, false, false);
        assert_true(rig_tool_flags(t) & RIG_TOOL_INLINE);
        assert_schema_strict(t);
        assert_non_null(rig_tool_output_schema(t));
        rig_tool_free(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_civil),
        cmocka_unit_test(test_known_instants),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_every_zone_against_glibc),
        cmocka_unit_test(test_posix_strings_against_glibc),
        cmocka_unit_test(test_posix_new_year),
        cmocka_unit_test(test_posix_default_rule),
        cmocka_unit_test(test_posix_dst_all_year),
        cmocka_unit_test(test_posix_refused),
        cmocka_unit_test(test_crafted_files),
        cmocka_unit_test(test_damaged_files),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_local_zone),
        cmocka_unit_test(test_get_current_time),
        cmocka_unit_test(test_unknown_zones),
        cmocka_unit_test(test_convert_time),
        cmocka_unit_test(test_convert_time_errors),
        cmocka_unit_test(test_convert_time_gap_and_overlap),
        cmocka_unit_test(test_definitions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
