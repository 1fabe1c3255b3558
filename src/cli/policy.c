/* policy.c — `rig policy check`: what the approval policy says of one
 * call, for people writing allowlists (and for tests). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "rig/rig.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rig policy check [--allowlist FILE] TOOL ARGS_JSON\n"
               "\n"
               "Say whether a call of TOOL with ARGS_JSON (an object) may run without asking,\n"
               "under the allowlist FILE ({\"shell\": [\"git log *\"], ...}; none: an empty\n"
               "one). Prints 'allow: REASON' or 'ask: REASON', then the patterns an \"always\"\n"
               "would remember ('remember: PATTERN'), if any.\n"
               "\n"
               "exit status: 0 allow, 1 ask, 2 usage error or an unreadable allowlist\n");
}

int cli_policy(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "check") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            usage(stdout);
            return CLI_OK;
        }
        usage(stderr);
        return CLI_USAGE;
    }
    const char *file = NULL, *tool = NULL, *args = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--allowlist") == 0 && i + 1 < argc) {
            file = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return CLI_OK;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "rig policy check: unknown option '%s'\n", argv[i]);
            return CLI_USAGE;
        } else if (!tool) {
            tool = argv[i];
        } else if (!args) {
            args = argv[i];
        } else {
            fprintf(stderr, "rig policy check: unexpected argument '%s'\n", argv[i]);
            return CLI_USAGE;
        }
    }
    if (!tool || !args) {
        usage(stderr);
        return CLI_USAGE;
    }
    rig_allowlist *a = rig_allowlist_new();
    rig_error err = {0};
    if (!a || (file && rig_allowlist_load(a, file, &err) != RIG_OK)) {
        fprintf(stderr, "rig policy check: %s\n", a ? err.message : "out of memory");
        rig_allowlist_free(a);
        return CLI_USAGE;
    }
    char reason[1024];
    rig_verdict v = rig_allowlist_check(a, tool, args, strlen(args), reason, sizeof reason);
    printf("%s: %s\n", v == RIG_VERDICT_ALLOW ? "allow" : "ask", reason);
    if (v != RIG_VERDICT_ALLOW) {
        char *s = rig_allowlist_suggest(tool, args, strlen(args));
        for (char *line = s; line && *line;) {
            char *nl = strchr(line, '\n');
            printf("remember: %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
            line = nl ? nl + 1 : line + strlen(line);
        }
        free(s);
    }
    rig_allowlist_free(a);
    return v == RIG_VERDICT_ALLOW ? CLI_OK : CLI_FAIL;
}
