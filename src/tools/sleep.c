/* sleep.c — `sleep`: wait a while without holding a shell process (Hooman's
 * sleep tool), e.g. before polling a build again.
 *
 * The wait is rig_call_sleep, which wakes as soon as the call is cancelled
 * or its deadline passes, so a long sleep never outlives the call that asked
 * for it. The tool runs on a worker thread (it is not inline: it blocks). */
#include <stdio.h>
#include <time.h>

#include "tools/builtins.h"

#define SLEEP_MAX_SECONDS 3600 /* Hooman's limit: one hour */

static double seconds_since(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static rig_result *sleep_run(rig_call *call) {
    double seconds = rig_call_double(call, "seconds", 0);
    if (!(seconds >= 0 && seconds <= SLEEP_MAX_SECONDS)) /* the schema already said so */
        return rig_result_error("seconds must be between 0 and %d.", SLEEP_MAX_SECONDS);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* A second at a time, reporting progress after each (an MCP client
     * that asked for progress sees the wait advance) but the last: the
     * result says that, and progress sent just before the result reaches
     * the TypeScript SDK's client after it, as an error ("unknown token"). */
    int64_t total_ms = (int64_t)(seconds * 1000 + 0.5), done_ms = 0;
    int rc = RIG_OK;
    while (rc == RIG_OK && done_ms < total_ms) {
        int64_t step = total_ms - done_ms < 1000 ? total_ms - done_ms : 1000;
        rc = rig_call_sleep(call, step);
        done_ms += step;
        if (rc == RIG_OK && done_ms < total_ms)
            rig_call_progress(call, (double)done_ms / 1000, seconds, NULL);
    }
    if (rc == RIG_OK) {
        rig_result *r = rig_result_new();
        rig_result_textf(r, "Slept for %g second%s.", seconds, seconds == 1 ? "" : "s");
        return r;
    }
    double slept = seconds_since(&t0);
    if (rc == RIG_ECANCELED)
        return rig_result_error("The sleep was cancelled after %.1f of %g seconds.", slept,
                                seconds);
    return rig_result_error("The sleep stopped after %.1f of %g seconds: the call's time limit "
                            "ran out. Sleep for less time, or in several shorter calls.",
                            slept, seconds);
}

static const rig_builtin_spec sleep_spec = {
    .name = "sleep",
    .title = "Sleep",
    .description =
        "Wait for a number of seconds (at most 3600) without running a shell command, for "
        "example before checking again on a build, a deployment or a rate limit. The wait "
        "ends early if the call is cancelled or runs out of time, and the result says so. "
        "Returns a confirmation of how long it slept.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\","
        "\"minimum\":0,\"maximum\":3600,\"description\":\"How long to wait, in seconds "
        "(fractions allowed, at most 3600 = one hour).\"}},"
        "\"required\":[\"seconds\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = sleep_run,
};

rig_tool *rig__sleep_tool_new(rig_error *err) {
    return rig__builtin_new(&sleep_spec, NULL, NULL, err);
}
