/* bench.h — what the benchmarks share: the timing harness (harness.c), the
 * report header (machine.c), and what bench_json.c shares with its peers
 * (peer_jansson.c, peer_jsonc.c).
 *
 * The peers live in their own files for one reason: jansson declares a
 * function json_object() and json-c a type json_object, so their headers
 * cannot meet in one translation unit. Each benchmark loop runs entirely
 * inside one file (the harness calls it once per run through a pointer), so
 * the split costs nothing per message. */
#ifndef RIG_BENCH_H
#define RIG_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Checksum of outputs, printed at the end so no work can be optimised away. */
extern uint64_t bench_sink;

/* Reports a failed check and exits. */
#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 1, 2)))
#endif
void bench_die(const char *fmt, ...);

/* harness.c: clocks and the race. A contestant is a function doing `reps`
 * repetitions of one job on `ctx`; bench_race sizes each contestant's runs
 * to about `target` seconds, runs them in turns `runs` times, and fills in
 * the per-repetition medians (wall clock and CPU) and spread. */
#define BENCH_MAX_RUNS 51
typedef void (*bench_fn)(void *ctx, long reps);
typedef struct bench_contestant {
    const char *key;  /* a short name for figures files, or NULL */
    const char *name;
    bench_fn fn;
    void *ctx;
    long reps;                 /* per run, from calibration */
    double t[BENCH_MAX_RUNS];  /* wall-clock seconds per rep, one per run */
    double ct[BENCH_MAX_RUNS]; /* CPU seconds per rep, one per run */
    double med, min, max;      /* wall-clock seconds per rep */
    double cmed;               /* CPU seconds per rep, median */
    double cpu_share;          /* CPU time / wall time over all its runs */
} bench_contestant;
double bench_now_s(void);
double bench_cpu_s(void);
double bench_median(double *v, int n); /* sorts v[0..n) */
void bench_race(bench_contestant *cs, int n, int runs, double target, long min_reps,
                long max_reps);

/* machine.c: the header of every benchmark's report. bench_print_machine
 * prints the title and the date, CPU, kernel, compiler and rig rows of the
 * table; the caller adds its own rows (peers, load, method). */
void bench_print_machine(const char *title);
const char *bench_loadavg(void); /* /proc/loadavg's line */

typedef struct bench_text {
    const char *p;
    size_t len;
} bench_text;

/* The tools/call round: requests cycled through, the text of the reply. */
typedef struct round_ctx {
    const bench_text *msgs;
    size_t nmsgs;
    bench_text text;
    void *state; /* per peer: a reused document, writer or tokener */
} round_ctx;

/* Parse throughput: one document parsed reps times. */
typedef struct parse_ctx {
    bench_text doc;
    void *state;
} parse_ctx;

/* Writer throughput: one text escaped into a JSON string reps times. */
typedef struct write_ctx {
    bench_text text;
    void *state; /* the prebuilt string value for jansson and json-c */
} write_ctx;

/* What a parsed document holds, walked outside the timed loops to check that
 * every parser read the same thing. Numbers are summed as doubles in document
 * order, so equal sums mean equal conversions (all parsers round correctly). */
typedef struct tally {
    uint64_t values; /* every value, containers included; keys not counted */
    uint64_t keys;
    uint64_t strings;
    uint64_t str_bytes; /* decoded */
    uint64_t numbers;
    double numsum;
} tally;

/* ---- jansson (peer_jansson.c) */
const char *peer_jansson_version(void);
void peer_jansson_round(void *ctx, long reps);      /* json_object_set_new */
void peer_jansson_round_pack(void *ctx, long reps); /* json_pack */
/* One round on message i; the reply, malloc'd. */
char *peer_jansson_round_once(const round_ctx *c, size_t i, int pack);
void peer_jansson_parse(void *ctx, long reps);
int peer_jansson_tally(bench_text doc, tally *t);
void *peer_jansson_write_prepare(bench_text text);
void peer_jansson_write_release(void *state);
void peer_jansson_write(void *ctx, long reps);
char *peer_jansson_write_once(void *state, size_t *len); /* malloc'd */

/* ---- json-c (peer_jsonc.c) */
const char *peer_jsonc_version(void);
void *peer_jsonc_tokener_new(void);
void peer_jsonc_tokener_free(void *tok);
void peer_jsonc_round(void *ctx, long reps);
char *peer_jsonc_round_once(const round_ctx *c, size_t i); /* malloc'd */
void peer_jsonc_parse(void *ctx, long reps);
int peer_jsonc_tally(bench_text doc, tally *t);
void *peer_jsonc_write_prepare(bench_text text);
void peer_jsonc_write_release(void *state);
void peer_jsonc_write(void *ctx, long reps);
char *peer_jsonc_write_once(void *state, size_t *len); /* malloc'd */

#endif
