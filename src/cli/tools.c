/* tools.c — `rig tools`: print the built-in toolset in any provider's tool
 * format, and the roots the other commands share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "rig/rig.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rig tools [--format mcp|openai|responses|anthropic|gemini] [--model M]\n"
            "                 [--security-risk] [--compact]\n"
            "\n"
            "Print rig's tools (the built-ins and the file tools, confined to the current\n"
            "directory) as JSON in the chosen provider's format (default mcp):\n"
            "  mcp        {\"tools\":[...]}, the result of MCP tools/list\n"
            "  openai     {\"tools\":[...]} for Chat Completions\n"
            "  responses  {\"tools\":[...]} for the Responses API (native tools for --model)\n"
            "  anthropic  {\"tools\":[...],\"betas\":[...]} (native tools for --model)\n"
            "  gemini     {\"tools\":[{\"functionDeclarations\":[...]}, ...]}\n"
            "\n"
            "options:\n"
            "  --model M          use the native tool specs that support model M\n"
            "  --security-risk    add optional security_risk and summary fields to tools\n"
            "                     that are not read-only\n"
            "  --compact          one line instead of indented JSON\n"
            "\n"
            "exit status: 0 ok, 2 usage error\n");
}

int cli_roots_new(const char *cmd, const char *const *dirs, size_t n, rig_roots **out)
{
    static const char *const here[] = {"."};
    if (n == 0) {
        dirs = here;
        n = 1;
    }
    rig_roots *roots = rig_roots_new();
    if (!roots) {
        fprintf(stderr, "rig %s: out of memory\n", cmd);
        return CLI_FAIL;
    }
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        errno = 0;
        rig_error err = {0};
        if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "rig %s: --root %s: %s\n", cmd, dirs[i],
                    errno ? strerror(errno) : "not a directory");
        } else if (rig_roots_add(roots, dirs[i], &err) != RIG_OK) {
            if (err.code == RIG_ENOMEM) {
                fprintf(stderr, "rig %s: out of memory\n", cmd);
                rig_roots_free(roots);
                return CLI_FAIL;
            }
            fprintf(stderr, "rig %s: --root %s: %s\n", cmd, dirs[i], err.message);
        } else {
            continue;
        }
        rig_roots_free(roots);
        return CLI_USAGE;
    }
    *out = roots;
    return CLI_OK;
}

int cli_tools(int argc, char **argv)
{
    rig_export_opts opts = {.format = RIG_FORMAT_MCP};
    unsigned flags = RIG_JSON_WRITE_PRETTY;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return CLI_OK;
        } else if ((strcmp(a, "--format") == 0 || strcmp(a, "--model") == 0) && i + 1 >= argc) {
            fprintf(stderr, "rig tools: %s needs a value\n", a);
            return CLI_USAGE;
        } else if (strcmp(a, "--format") == 0 && i + 1 < argc) {
            int f = rig_format_parse(argv[++i]);
            if (f < 0) {
                fprintf(stderr, "rig tools: unknown format '%s' (use mcp, openai, responses, "
                                "anthropic or gemini)\n", argv[i]);
                return CLI_USAGE;
            }
            opts.format = (rig_format)f;
        } else if (strcmp(a, "--model") == 0 && i + 1 < argc) {
            opts.model = argv[++i];
        } else if (strcmp(a, "--security-risk") == 0) {
            opts.security_risk = true;
        } else if (strcmp(a, "--compact") == 0) {
            flags = 0;
        } else {
            fprintf(stderr, "rig tools: unexpected argument '%s'\n", a);
            usage(stderr);
            return CLI_USAGE;
        }
    }
    rig_roots *roots;
    int rrc = cli_roots_new("tools", NULL, 0, &roots);
    if (rrc != CLI_OK)
        return rrc;
    rig_toolset *ts;
    struct cli_opts o;
    cli_opts_init(&o, "tools");
    o.roots = roots;
    if (cli_toolset_new(&o, &ts) != CLI_OK) {
        rig_roots_free(roots);
        return CLI_FAIL;
    }
    rig_json_writer w;
    rig_json_writer_init(&w, flags);
    rig_error err;
    int rc = rig_toolset_export(ts, &opts, &w, &err);
    size_t len = 0;
    const char *json = rc == RIG_OK ? rig_json_writer_finish(&w, &len) : NULL;
    if (json) {
        fwrite(json, 1, len, stdout);
        fputc('\n', stdout);
    } else {
        fprintf(stderr, "rig tools: %s\n", rc == RIG_OK ? "out of memory" : err.message);
    }
    rig_json_writer_free(&w);
    rig_toolset_free(ts);
    cli_opts_free(&o);
    rig_roots_free(roots);
    return json ? CLI_OK : CLI_FAIL;
}
