/* main.c — the rig command: finds the subcommand in a table and runs it.
 *
 * Every subcommand is a file of its own (json.c, ...) with one entry point;
 * adding one is a row in the table below. Diagnostics go to stderr; stdout
 * carries only the command's output. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "rig/rig.h"

typedef struct command {
    const char *name;
    cli_command_fn fn;
    const char *summary;
} command;

static const command commands[] = {
    {"serve", cli_serve, "serve the built-in tools over MCP (stdio)"},
    {"tools", cli_tools, "print the tools in MCP, OpenAI, Anthropic or Gemini format"},
    {"call", cli_call, "run one tool and print its result"},
    {"json", cli_json, "check and format JSON with rig's parser and writer"},
    {"policy", cli_policy, "say whether the approval policy lets a call run"},
    {"env", cli_env, "serve an environment's tasks over the control channel"},
    {"task", cli_task, "start a task on an environment's control channel, grade it later"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: rig [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nrig COMMAND --help describes a command.\n");
}

int cli_read_file(const char *path, char **out, size_t *len) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return errno;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int err = 0;
    if (!buf) {
        err = ENOMEM;
        goto done;
    }
    for (;;) {
        if (n == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                err = ENOMEM;
                goto done;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                err = errno ? errno : EIO;
            break;
        }
    }
done:
    if (f != stdin)
        fclose(f);
    if (err) {
        free(buf);
        return err;
    }
    *out = buf;
    *len = n;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("rig %s\n", rig_version());
        return CLI_OK;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "rig: unknown command '%s'\n", cmd);
    usage(stderr);
    return CLI_USAGE;
}
