/* machine.c — the header every benchmark prints: the date, the machine, the
 * compiler and the load, so that a figure always travels with what it was
 * measured on. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "rig/rig.h"

const char *bench_loadavg(void) {
    static char load[128];
    snprintf(load, sizeof load, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fgets(load, sizeof load, f))
            load[strcspn(load, "\n")] = '\0';
        fclose(f);
    }
    return load;
}

void bench_print_machine(const char *title) {
    char model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *p = strchr(line, ':');
                if (p) {
                    snprintf(model, sizeof model, "%s", p + 1 + strspn(p + 1, " \t"));
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    char kernel[300] = "unknown";
    if (uname(&u) == 0)
        snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);

    printf("# %s\n\n", title);
    printf("| | |\n|---|---|\n");
    printf("| date | %s |\n", date);
    printf("| CPU | %s (%ld online) |\n", model, sysconf(_SC_NPROCESSORS_ONLN));
    printf("| kernel | %s |\n", kernel);
#if defined(__clang__)
    printf("| compiler | clang %s (%s) |\n", __clang_version__, BENCH_BUILD);
#elif defined(__GNUC__)
    printf("| compiler | gcc %s (%s) |\n", __VERSION__, BENCH_BUILD);
#else
    printf("| compiler | unknown (%s) |\n", BENCH_BUILD);
#endif
    printf("| rig | %s (static, built with this project) |\n", rig_version());
}
