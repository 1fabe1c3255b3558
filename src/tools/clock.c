/* clock.c — `get_current_time` and `convert_time`: the time now in a time
 * zone, and a wall-clock time carried from one zone to another, with the
 * output of the reference MCP time server ({timezone, datetime, day_of_week,
 * is_dst}; {source, target, time_difference}).
 *
 * Zones are IANA names read from the system tz database by util/tz.c, never
 * through setenv("TZ") + localtime, which would race between worker threads.
 * Each tool keeps its own cache of loaded zones, freed with the tool.
 *
 * convert_time reads the time on today's date in the source zone. A time
 * the source zone skips that day (clocks going forward) is read with the
 * offset in force before the change, i.e. moved forward by the gap, as
 * Python's zoneinfo (fold=0) and JavaScript's Temporal ("compatible") do; a
 * time that occurs twice (clocks going back) means its first occurrence.
 * The result says so whenever either happens. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tools/builtins.h"
#include "util/tz.h"

static const char *const day_name[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                        "Thursday", "Friday", "Saturday"};

/* One instant as a zone shows it. */
typedef struct moment {
    const char *zone;
    tz_offset off;
    tz_civil civil;
    char iso[96];   /* 2026-11-26T01:30:00+01:00 (sized for any int64 year) */
    char utc[32];   /* UTC+01:00 */
} moment;

static void format_offset(int32_t off, const char *prefix, char *buf, size_t cap) {
    char sign = off < 0 ? '-' : '+';
    int32_t a = off < 0 ? -off : off;
    if (a % 60)
        snprintf(buf, cap, "%s%c%02d:%02d:%02d", prefix, sign, a / 3600, a / 60 % 60, a % 60);
    else
        snprintf(buf, cap, "%s%c%02d:%02d", prefix, sign, a / 3600, a / 60 % 60);
}

static void moment_at(moment *m, const tz_zone *z, int64_t t) {
    m->zone = rig__tz_name(z);
    rig__tz_at(z, t, &m->off);
    rig__tz_civil(t + m->off.utoff, &m->civil);
    char off[32];
    format_offset(m->off.utoff, "", off, sizeof off);
    snprintf(m->iso, sizeof m->iso, "%04lld-%02d-%02dT%02d:%02d:%02d%s",
             (long long)m->civil.year, m->civil.month, m->civil.day, m->civil.hour,
             m->civil.minute, m->civil.second, off);
    format_offset(m->off.utoff, "UTC", m->utc, sizeof m->utc);
}

static void write_moment(rig_json_writer *w, const moment *m) {
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "timezone");
    rig_json_write_string(w, m->zone);
    rig_json_write_key(w, "datetime");
    rig_json_write_string(w, m->iso);
    rig_json_write_key(w, "day_of_week");
    rig_json_write_string(w, day_name[m->civil.wday]);
    rig_json_write_key(w, "is_dst");
    rig_json_write_bool(w, m->off.is_dst);
    rig_json_write_object_end(w);
}

static int64_t now_unix(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec;
}

/* The zone named by argument `key`, or the local zone when it is absent
 * or empty. NULL with an error result in *fail. */
static const tz_zone *zone_arg(rig_call *call, const char *key, rig_result **fail) {
    tz_cache *cache = rig_call_data(call);
    const char *name = rig_call_str(call, key, NULL);
    rig_error e = {0};
    const tz_zone *z =
        name && *name ? rig__tz_get(cache, name, &e) : rig__tz_get_local(cache, &e);
    if (z)
        return z;
    if (e.code == RIG_ENOENT)
        *fail = rig_result_error("Unknown time zone '%.100s'. Use an IANA name such as "
                                 "'Europe/Berlin' or 'UTC'.",
                                 name ? name : "");
    else
        *fail = rig_result_error("%s Use another IANA zone name, such as 'UTC'.", e.message);
    return NULL;
}

static rig_result *get_current_time_run(rig_call *call) {
    rig_result *fail = NULL;
    const tz_zone *z = zone_arg(call, "timezone", &fail);
    if (!z)
        return fail;
    moment m;
    moment_at(&m, z, now_unix());
    rig_result *r = rig_result_new();
    rig_result_textf(r, "It is %s, %04lld-%02d-%02d %02d:%02d:%02d in %s (%s, %s; %s).",
                     day_name[m.civil.wday], (long long)m.civil.year, m.civil.month,
                     m.civil.day, m.civil.hour, m.civil.minute, m.civil.second, m.zone,
                     m.off.abbr, m.utc,
                     m.off.is_dst ? "daylight saving time" : "standard time");
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w)
        write_moment(w, &m);
    rig_result_structured_end(r);
    return r;
}

/* "HH:MM" or "H:MM", 24-hour. */
static bool parse_hhmm(const char *s, int *h, int *m) {
    if (!s)
        return false;
    size_t n = strlen(s);
    if (n != 4 && n != 5)
        return false;
    const char *c = s + n - 3; /* the colon */
    if (*c != ':')
        return false;
    for (const char *p = s; *p; p++)
        if (p != c && (*p < '0' || *p > '9'))
            return false;
    *h = (int)(s[0] - '0');
    if (n == 5)
        *h = *h * 10 + (s[1] - '0');
    *m = (c[1] - '0') * 10 + (c[2] - '0');
    return *h < 24 && *m < 60;
}

/* The reference server's form: "+1.0h" for whole hours, else up to two
 * decimals without trailing zeros ("+5.5h", "+5.75h"). */
static void format_difference(int32_t seconds, char *buf, size_t cap) {
    double hours = seconds / 3600.0;
    if (seconds % 3600 == 0) {
        snprintf(buf, cap, "%+.1fh", hours);
        return;
    }
    snprintf(buf, cap - 1, "%+.2f", hours);
    size_t n = strlen(buf);
    while (n && buf[n - 1] == '0')
        n--;
    if (n && buf[n - 1] == '.')
        n--;
    buf[n++] = 'h';
    buf[n] = '\0';
}

static rig_result *convert_time_run(rig_call *call) {
    const char *hhmm = rig_call_str(call, "time", NULL);
    int hour, minute;
    if (!parse_hhmm(hhmm, &hour, &minute))
        return rig_result_error("Invalid time '%.40s'. Use 24-hour HH:MM, e.g. '14:30'.",
                                hhmm ? hhmm : "");
    rig_result *fail = NULL;
    const tz_zone *src = zone_arg(call, "source_timezone", &fail);
    if (!src)
        return fail;
    const tz_zone *dst = zone_arg(call, "target_timezone", &fail);
    if (!dst)
        return fail;

    moment today;
    moment_at(&today, src, now_unix());
    int64_t wall = rig__tz_days(today.civil.year, today.civil.month, today.civil.day) * 86400 +
                   hour * 3600 + minute * 60;
    int64_t t;
    int fit = rig__tz_resolve(src, wall, &t);
    moment a, b;
    moment_at(&a, src, t);
    moment_at(&b, dst, t);
    char diff[16];
    format_difference(b.off.utoff - a.off.utoff, diff, sizeof diff);

    char note[320] = "";
    if (fit == TZ_GAP)
        snprintf(note, sizeof note,
                 "%02d:%02d does not exist in %s on %04lld-%02d-%02d (the clocks skip forward "
                 "there); it was read with the offset in force before the change, which is "
                 "%02d:%02d %s.",
                 hour, minute, a.zone, (long long)today.civil.year, today.civil.month,
                 today.civil.day, a.civil.hour, a.civil.minute, a.off.abbr);
    else if (fit == TZ_AMBIGUOUS)
        snprintf(note, sizeof note,
                 "%02d:%02d occurs twice in %s on %04lld-%02d-%02d (the clocks go back there); "
                 "the first occurrence, %s (%s), was used.",
                 hour, minute, a.zone, (long long)today.civil.year, today.civil.month,
                 today.civil.day, a.off.abbr, a.utc);

    rig_result *r = rig_result_new();
    rig_result_textf(r,
                     "%02d:%02d in %s (%s %04lld-%02d-%02d, %s, %s) is %02d:%02d in %s "
                     "(%s %04lld-%02d-%02d, %s, %s). Time difference: %s.%s%s",
                     a.civil.hour, a.civil.minute, a.zone, day_name[a.civil.wday],
                     (long long)a.civil.year, a.civil.month, a.civil.day, a.off.abbr, a.utc,
                     b.civil.hour, b.civil.minute, b.zone, day_name[b.civil.wday],
                     (long long)b.civil.year, b.civil.month, b.civil.day, b.off.abbr, b.utc,
                     diff, *note ? "\nNote: " : "", note);
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "source");
        write_moment(w, &a);
        rig_json_write_key(w, "target");
        write_moment(w, &b);
        rig_json_write_key(w, "time_difference");
        rig_json_write_string(w, diff);
        if (*note) {
            rig_json_write_key(w, "note");
            rig_json_write_string(w, note);
        }
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
    return r;
}

static void clock_close(void *data) { rig__tz_cache_free(data); }

#define ZONE_HINT "an IANA time zone name such as 'Europe/Berlin', 'America/New_York' or 'UTC'"

#define TIME_RESULT_SCHEMA                                                                    \
    "{\"type\":\"object\",\"properties\":{\"timezone\":{\"type\":\"string\"},"                \
    "\"datetime\":{\"type\":\"string\"},\"day_of_week\":{\"type\":\"string\"},"               \
    "\"is_dst\":{\"type\":\"boolean\"}},"                                                     \
    "\"required\":[\"timezone\",\"datetime\",\"day_of_week\",\"is_dst\"]}"

static const rig_builtin_spec get_current_time_spec = {
    .name = "get_current_time",
    .title = "Get the current time",
    .description =
        "Get the current date and time in a time zone. Use it whenever the precise current "
        "time or date matters (you do not otherwise know it). Returns the zone, the date and "
        "time in ISO 8601 with the UTC offset (e.g. 2026-11-26T01:30:00+01:00), the day of "
        "the week, and whether daylight saving time is in effect.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{\"timezone\":{\"type\":\"string\","
        "\"description\":\"The zone: " ZONE_HINT ". Leave it out for the local time zone.\"}},"
        "\"additionalProperties\":false}",
    .output_schema = TIME_RESULT_SCHEMA,
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = RIG_TOOL_INLINE,
    .fn = get_current_time_run,
};

static const rig_builtin_spec convert_time_spec = {
    .name = "convert_time",
    .title = "Convert a time between time zones",
    .description =
        "Convert a wall-clock time (24-hour HH:MM) on today's date from one time zone to "
        "another, e.g. to find what 09:00 in New York is in Berlin. Returns both times in "
        "ISO 8601 with their UTC offsets, their days of the week and DST flags, and the "
        "difference between the zones (e.g. \"+5.5h\"). A time the source zone skips when "
        "its clocks go forward is read with the offset before the change; a time that "
        "occurs twice means its first occurrence; the result notes either case.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"source_timezone\":{\"type\":\"string\",\"description\":\"The zone the time is "
        "in: " ZONE_HINT ". Leave it out for the local time zone.\"},"
        "\"time\":{\"type\":\"string\",\"description\":\"The time to convert, 24-hour "
        "HH:MM, e.g. '14:30'.\"},"
        "\"target_timezone\":{\"type\":\"string\",\"description\":\"The zone to convert "
        "to: " ZONE_HINT ". Leave it out for the local time zone.\"}},"
        "\"required\":[\"time\"],\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{\"source\":" TIME_RESULT_SCHEMA ","
        "\"target\":" TIME_RESULT_SCHEMA ",\"time_difference\":{\"type\":\"string\"},"
        "\"note\":{\"type\":\"string\"}},"
        "\"required\":[\"source\",\"target\",\"time_difference\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = RIG_TOOL_INLINE,
    .fn = convert_time_run,
};

static rig_tool *clock_tool_new(const rig_builtin_spec *spec, rig_error *err) {
    tz_cache *cache = rig__tz_cache_new(NULL);
    if (!cache) {
        rig_error_set(err, RIG_ENOMEM, "Out of memory creating tool '%s'.", spec->name);
        return NULL;
    }
    return rig__builtin_new(spec, cache, clock_close, err);
}

rig_tool *rig__get_current_time_tool_new(rig_error *err) {
    return clock_tool_new(&get_current_time_spec, err);
}

rig_tool *rig__convert_time_tool_new(rig_error *err) {
    return clock_tool_new(&convert_time_spec, err);
}
