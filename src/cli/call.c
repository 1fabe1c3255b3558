/* call.c — `rig call`: run one tool from the shell and print its result.
 *
 * Arguments come as one JSON object (--args) or as httpie-style pairs:
 * key=value gives a string (the tool's schema coerces "5" to 5 where it
 * wants a number), key:=json gives any JSON value. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "rig/rig.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rig call TOOL [--args JSON | key=value | key:=json ...] [OPTIONS]\n"
            "\n"
            "Run TOOL once with the given arguments and print its result.\n"
            "  --args JSON      all arguments as one JSON object ('-' reads it from stdin)\n"
            "  key=value        one string argument\n"
            "  key:=json        one argument given as JSON (a number, true, [1,2], ...)\n"
            "\n"
            "options:\n"
            "  --root DIR       a directory the file tools may work in; repeat for more\n"
            "                   (default: .). Relative paths resolve against the first,\n"
            "                   which is also the working directory\n"
            "  --session ID     the session whose state the tool uses (default: cli)\n"
            "  --timeout SECS   stop the tool after SECS seconds (default 300)\n"
            "  --sandbox on|off shell commands may write only inside the roots and their\n"
            "                   $TMPDIR (Landlock; default on)\n"
            "  --allow-host H   let fetch reach host H (a name or IP address, no port)\n"
            "                   whatever it resolves to; repeat for more. Other private,\n"
            "                   loopback and link-local addresses are always refused\n"
            "  --config FILE    the config file: allow_hosts, the web_search provider\n"
            "                   (default: $RIG_CONFIG, else $XDG_CONFIG_HOME/rig/config.json\n"
            "                   or ~/.config/rig/config.json if it exists; docs/web.md)\n"
            "  --max-output N   cut text results to N characters, keeping the head and\n"
            "                   tail (default 50000, as a model would see them; 0: no cap)\n"
            "  --json           print the whole MCP CallToolResult as JSON\n"
            "  --policy MODE    approval: auto (default: run everything), ask (read-only\n"
            "                   and allowlisted calls run, others are put to you on the\n"
            "                   terminal), read-only (refuse every tool that changes\n"
            "                   things), yolo (run everything); --yolo is --policy yolo\n"
            "  --allowlist FILE what \"always\" remembers, for --policy ask (default:\n"
            "                   $XDG_CONFIG_HOME/rig/allowlist.json or\n"
            "                   ~/.config/rig/allowlist.json)\n"
            "  --plans-dir DIR  where enter_plan_mode keeps plans (default:\n"
            "                   <first root>/.rig/plans)\n"
            "\n"
            "exit status: 0 ok, 1 the tool returned an error result, 2 usage error\n");
}

/* Append one key=value / key:=json pair to the object being written. */
static bool add_pair(rig_json_writer *w, const char *pair)
{
    const char *eq = strchr(pair, '=');
    if (!eq || eq == pair)
        return false;
    bool raw = eq > pair && eq[-1] == ':';
    size_t klen = (size_t)(eq - pair) - (raw ? 1 : 0);
    if (klen == 0)
        return false;
    const char *val = eq + 1;
    rig_json_write_keyn(w, pair, klen);
    if (!raw)
        return rig_json_write_string(w, val) == 0;
    rig_json_error jerr;
    rig_json_doc *doc = rig_json_parse(val, strlen(val), NULL, &jerr);
    if (!doc) {
        char msg[160];
        rig_json_error_format(&jerr, msg, sizeof msg);
        fprintf(stderr, "rig call: '%.*s:=' needs a JSON value: %s\n", (int)klen, pair, msg);
        return false;
    }
    rig_json_write_value(w, rig_json_doc_root(doc));
    rig_json_doc_free(doc);
    return true;
}

static void print_text(const rig_result *r)
{
    for (size_t i = 0; i < rig_result_count(r); i++) {
        const rig_content *c = rig_result_block(r, i);
        switch (c->type) {
        case RIG_CONTENT_TEXT:
            fwrite(c->text, 1, c->text_len, stdout);
            if (!c->text_len || c->text[c->text_len - 1] != '\n')
                fputc('\n', stdout);
            break;
        case RIG_CONTENT_IMAGE:
        case RIG_CONTENT_AUDIO:
            printf("[%s, %s, %zu base64 characters]\n",
                   c->type == RIG_CONTENT_IMAGE ? "image" : "audio", c->mime_type,
                   strlen(c->data));
            break;
        case RIG_CONTENT_RESOURCE_LINK:
            printf("[resource link: %s]\n", c->uri);
            break;
        case RIG_CONTENT_RESOURCE:
            if (c->text)
                printf("[resource %s]\n%s\n", c->uri, c->text);
            else
                printf("[resource %s, binary]\n", c->uri);
            break;
        }
    }
    size_t slen = 0;
    const char *s = rig_result_structured_json(r, &slen);
    bool has_text = false;
    for (size_t i = 0; i < rig_result_count(r); i++)
        has_text |= rig_result_block(r, i)->type == RIG_CONTENT_TEXT;
    if (s && !has_text)
        printf("%.*s\n", (int)slen, s);
}

int cli_call(int argc, char **argv)
{
    const char *tool = NULL, *args = NULL, *session = "cli";
    const char **roots_arg = calloc((size_t)argc + 1, sizeof *roots_arg);
    size_t nroots = 0;
    rig_roots *roots = NULL;
    bool as_json = false;
    double timeout = 0;
    long long max_output = -1; /* -1: the toolset's default */
    rig_json_writer pairs;
    rig_json_writer_init(&pairs, 0);
    rig_json_write_object_begin(&pairs);
    size_t npairs = 0;
    char *stdin_args = NULL;
    int status = CLI_USAGE;
    struct cli_opts copts;
    cli_opts_init(&copts, "call");

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        int shared = cli_opts_parse(&copts, argc, argv, &i);
        if (shared < 0)
            goto out;
        if (shared > 0)
            continue;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            status = CLI_OK;
            goto out;
        } else if (strcmp(a, "--args") == 0 && has_val) {
            args = argv[++i];
        } else if (strcmp(a, "--root") == 0 && has_val) {
            if (roots_arg)
                roots_arg[nroots++] = argv[++i];
            else
                i++;
        } else if (strcmp(a, "--session") == 0 && has_val) {
            session = argv[++i];
        } else if (strcmp(a, "--timeout") == 0 && has_val) {
            char *end;
            timeout = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(timeout > 0) || timeout > 86400) {
                fprintf(stderr, "rig call: --timeout needs seconds between 0 and 86400\n");
                goto out;
            }
        } else if (strcmp(a, "--max-output") == 0 && has_val) {
            char *end;
            errno = 0;
            max_output = strtoll(argv[++i], &end, 10);
            if (*end || end == argv[i] || errno || max_output < 0) {
                fprintf(stderr, "rig call: --max-output needs a number of characters (0: no cap)\n");
                goto out;
            }
        } else if (strcmp(a, "--json") == 0) {
            as_json = true;
        } else if (!has_val && (strcmp(a, "--args") == 0 || strcmp(a, "--root") == 0 ||
                                strcmp(a, "--session") == 0 || strcmp(a, "--timeout") == 0 ||
                                strcmp(a, "--max-output") == 0)) {
            fprintf(stderr, "rig call: %s needs a value\n", a);
            goto out;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "rig call: unknown option '%s'\n", a);
            usage(stderr);
            goto out;
        } else if (!tool) {
            tool = a;
        } else if (strchr(a, '=')) {
            if (!add_pair(&pairs, a)) {
                fprintf(stderr, "rig call: bad argument '%s' (use key=value or key:=json)\n", a);
                goto out;
            }
            npairs++;
        } else {
            fprintf(stderr, "rig call: unexpected argument '%s'\n", a);
            usage(stderr);
            goto out;
        }
    }
    if (!tool) {
        fprintf(stderr, "rig call: which tool? (rig tools lists them)\n");
        usage(stderr);
        goto out;
    }
    if (args && npairs) {
        fprintf(stderr, "rig call: give --args or key=value pairs, not both\n");
        goto out;
    }
    if (!roots_arg) {
        fprintf(stderr, "rig call: out of memory\n");
        status = CLI_FAIL;
        goto out;
    }
    /* The roots are opened first, relative to where rig was started; then
     * the first becomes the working directory. */
    status = cli_roots_new("call", roots_arg, nroots, &roots);
    if (status != CLI_OK)
        goto out;
    status = CLI_USAGE;
    if (nroots && chdir(roots_arg[0]) != 0) {
        fprintf(stderr, "rig call: --root %s: %s\n", roots_arg[0], strerror(errno));
        goto out;
    }
    size_t alen = 0;
    if (args && strcmp(args, "-") == 0) {
        int e = cli_read_file("-", &stdin_args, &alen);
        if (e) {
            fprintf(stderr, "rig call: reading stdin: %s\n", strerror(e));
            status = CLI_FAIL;
            goto out;
        }
        args = stdin_args;
    } else if (args) {
        alen = strlen(args);
    } else {
        rig_json_write_object_end(&pairs);
        args = rig_json_writer_finish(&pairs, &alen);
    }

    rig_toolset *ts;
    copts.roots = roots;
    copts.tty_prompt = true; /* approvals and ask_user on the terminal, if there is one */
    if (cli_toolset_new(&copts, &ts) != CLI_OK) {
        status = CLI_FAIL;
        goto out;
    }
    if (max_output >= 0)
        rig_toolset_set_output_cap(ts, (size_t)max_output);
    rig_call_opts opts = {.session = session, .timeout_ms = (int64_t)(timeout * 1000)};
    rig_error err;
    rig_result *res = rig_toolset_call(ts, tool, args, alen, &opts, &err);
    if (as_json) {
        rig_json_writer w;
        rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
        rig_result_write(res, &w);
        size_t len = 0;
        const char *json = rig_json_writer_finish(&w, &len);
        if (json)
            printf("%.*s\n", (int)len, json);
        rig_json_writer_free(&w);
    } else {
        print_text(res);
    }
    status = rig_result_is_error(res) ? CLI_FAIL : CLI_OK;
    rig_result_free(res);
    rig_toolset_free(ts);
out:
    rig_roots_free(roots);
    cli_opts_free(&copts);
    free(roots_arg);
    free(stdin_args);
    rig_json_writer_free(&pairs);
    return status;
}
