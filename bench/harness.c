/* harness.c — timing for every benchmark: clocks, and the race that runs
 * contestants in turns and takes medians, so that each benchmark measures
 * the same way and only its contestants differ. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

double bench_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: compared with the wall clock it shows whether the
 * runs had the CPU to themselves (a shared machine). */
double bench_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double time_run(const bench_contestant *c, long reps) {
    double t0 = bench_now_s();
    c->fn(c->ctx, reps);
    return bench_now_s() - t0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_race(bench_contestant *cs, int n, int runs, double target, long min_reps,
                long max_reps) {
    double wall[8] = {0}, cpu[8] = {0};
    if (n > 8)
        bench_die("race: too many contestants");
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        bench_die("race: %d runs (1 to %d)", runs, BENCH_MAX_RUNS);
    for (int i = 0; i < n; i++) {
        bench_contestant *c = &cs[i];
        long reps = 1;
        double t;
        for (;;) {
            t = time_run(c, reps);
            if (t >= 0.05 || reps >= max_reps)
                break;
            reps = reps * 4 > max_reps ? max_reps : reps * 4;
        }
        double want = target / (t / (double)reps);
        c->reps = want < (double)min_reps ? min_reps : want > (double)max_reps ? max_reps : (long)want;
    }
    for (int run = 0; run < runs; run++)
        for (int i = 0; i < n; i++) {
            double c0 = bench_cpu_s(), t = time_run(&cs[i], cs[i].reps), c = bench_cpu_s() - c0;
            cs[i].t[run] = t / (double)cs[i].reps;
            cs[i].ct[run] = c / (double)cs[i].reps;
            wall[i] += t;
            cpu[i] += c;
        }
    for (int i = 0; i < n; i++) {
        cs[i].cpu_share = cpu[i] / wall[i];
        double s[BENCH_MAX_RUNS];
        memcpy(s, cs[i].t, sizeof(double) * (size_t)runs);
        cs[i].med = bench_median(s, runs);
        cs[i].min = s[0];
        cs[i].max = s[runs - 1];
        memcpy(s, cs[i].ct, sizeof(double) * (size_t)runs);
        cs[i].cmed = bench_median(s, runs);
    }
}
