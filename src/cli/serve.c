/* serve.c — `rig serve`: rig's built-in tools as an MCP server on stdin and
 * stdout, for an MCP host (Claude Desktop, an IDE, an agent) to start as a
 * child process.
 *
 * stdout carries MCP messages and nothing else. The transport writes to a
 * private duplicate of fd 1, and fd 1 itself is pointed at stderr while the
 * server runs, so a stray printf anywhere in the process lands in the log
 * instead of corrupting the protocol stream. Likewise fd 0 becomes
 * /dev/null: only the transport reads the client's input. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "rig/rig.h"

static const char instructions[] =
    "rig's built-in tools: think through a problem step by step (think), keep a todo list "
    "(update_todos), tell and convert the time across time zones (get_current_time, "
    "convert_time), wait without a shell (sleep), and hand in a final answer (finish).";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rig serve [--root DIR] [--timeout SECS]\n"
            "\n"
            "Serve rig's built-in tools over MCP on stdin and stdout (newline-delimited\n"
            "JSON-RPC, MCP's stdio transport) until stdin ends or SIGINT/SIGTERM comes;\n"
            "calls still running are answered first (a second signal stops them).\n"
            "Diagnostics go to stderr.\n"
            "\n"
            "options:\n"
            "  --root DIR       the directory file tools are confined to (default: .)\n"
            "  --timeout SECS   stop any tool call after SECS seconds (default 300)\n"
            "  --http ...       MCP over Streamable HTTP: not yet implemented\n"
            "\n"
            "exit status: 0 the session ended (end of input, a signal, the client hung up),\n"
            "             1 failure, 2 usage error\n");
}

/* Keeps fd 0 and fd 1 away from everything but the transport: returns
 * private duplicates of them in *in and *out, then points fd 0 at
 * /dev/null and fd 1 at stderr. */
static int claim_stdio(int *in, int *out)
{
    *in = fcntl(0, F_DUPFD_CLOEXEC, 3);
    *out = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (*in < 0 || *out < 0) {
        fprintf(stderr, "rig serve: stdin and stdout must be open: %s\n", strerror(errno));
        return -1;
    }
    fflush(stdout);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        if (dup2(2, 1) < 0)
            dup2(null, 1);
        close(null);
    }
    return 0;
}

int cli_serve(int argc, char **argv)
{
    const char *root = NULL;
    double timeout = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return CLI_OK;
        } else if (strcmp(a, "--http") == 0 || strncmp(a, "--http=", 7) == 0) {
            fprintf(stderr, "rig serve: --http is not yet implemented; rig serves MCP over "
                            "stdio only for now (run it without --http)\n");
            return CLI_USAGE;
        } else if (strcmp(a, "--root") == 0 && has_val) {
            root = argv[++i];
        } else if (strcmp(a, "--timeout") == 0 && has_val) {
            char *end;
            timeout = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(timeout > 0) || timeout > 86400) {
                fprintf(stderr, "rig serve: --timeout needs seconds between 0 and 86400\n");
                return CLI_USAGE;
            }
        } else if (strcmp(a, "--root") == 0 || strcmp(a, "--timeout") == 0) {
            fprintf(stderr, "rig serve: %s needs a value\n", a);
            return CLI_USAGE;
        } else {
            fprintf(stderr, "rig serve: unexpected argument '%s'\n", a);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    if (root) {
        struct stat st;
        errno = 0;
        if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode) || chdir(root) != 0) {
            fprintf(stderr, "rig serve: --root %s: %s\n", root,
                    errno ? strerror(errno) : "not a directory");
            return CLI_USAGE;
        }
    }

    rig_toolset *ts;
    if (cli_toolset_new(&ts) != CLI_OK)
        return CLI_FAIL;
    if (timeout > 0)
        rig_toolset_set_timeout(ts, (int64_t)(timeout * 1000));
    rig_error err;
    rig_mcp_info info = {.name = "rig", .version = rig_version(), .instructions = instructions};
    rig_mcp_server *s = rig_mcp_server_new(ts, &info, &err);
    int status = CLI_FAIL, in = -1, out = -1;
    if (!s) {
        fprintf(stderr, "rig serve: %s\n", err.message);
        goto out;
    }
    if (claim_stdio(&in, &out) != 0)
        goto out;
    if (rig_mcp_serve_stdio(s, in, out, &err) != RIG_OK) {
        fprintf(stderr, "rig serve: %s\n", err.message);
        goto out;
    }
    status = CLI_OK;
out:
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    rig_mcp_server_free(s);
    rig_toolset_free(ts);
    return status;
}
