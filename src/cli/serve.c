/* serve.c — `rig serve`: rig's built-in tools as an MCP server, on stdin and
 * stdout for an MCP host (Claude Desktop, an IDE, an agent) to start as a
 * child process, or over Streamable HTTP (--http) for hosts that connect to
 * a URL.
 *
 * The file tools work in the --root directories, unless the client offers
 * roots of its own (MCP roots/list): those replace them for that client's
 * session alone, each HTTP session having its own, until the client offers
 * none or the session ends. --fixed-roots keeps the --root list whatever a
 * client says, for operators who do not want a client to widen access.
 *
 * In stdio mode
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
    "convert_time), wait without a shell (sleep), hand in a final answer (finish), and "
    "read, find, list and change files inside the allowed directories (read_file, glob, "
    "list_directory, write_file and the other file tools; relative paths resolve against "
    "the first allowed directory); ask the user a multiple-choice question (ask_user); and "
    "plan before acting on large or risky work (enter_plan_mode, then exit_plan_mode to "
    "propose the plan to the user).";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rig serve [--root DIR]... [--fixed-roots] [--timeout SECS]\n"
            "       rig serve --http HOST:PORT [--token TOKEN] [--allow-origin ORIGIN]...\n"
            "\n"
            "Serve rig's built-in tools and file tools over MCP. Without --http, on stdin\n"
            "and stdout "
            "(newline-delimited JSON-RPC, MCP's stdio transport) until stdin ends or\n"
            "SIGINT/SIGTERM comes; calls still running are answered first (a second\n"
            "signal stops them). With --http, over Streamable HTTP at\n"
            "http://HOST:PORT/mcp until SIGINT/SIGTERM. Diagnostics go to stderr.\n"
            "\n"
            "options:\n"
            "  --root DIR            a directory the file tools may work in; repeat for\n"
            "                        more (default: .). Relative paths resolve against\n"
            "                        the first, which is also the working directory. A\n"
            "                        client that offers roots (MCP roots/list) replaces\n"
            "                        them for its own session (relative paths: its first)\n"
            "  --fixed-roots         keep the --root list whatever a client offers\n"
            "  --timeout SECS        stop any tool call after SECS seconds (default 300)\n"
            "  --sandbox on|off      shell commands may write only inside the roots and\n"
            "                        their $TMPDIR (Landlock; default on); strict also\n"
            "                        confines reads to the system directories and the\n"
            "                        roots, and forbids TCP (docs/shell.md)\n"
            "  --allow-host HOST     let fetch reach HOST (a name or IP address, no port)\n"
            "                        whatever it resolves to; repeat for more. Other\n"
            "                        private and loopback addresses are always refused\n"
            "  --config FILE         the config file: allow_hosts, the web_search\n"
            "                        provider (default: $RIG_CONFIG, else\n"
            "                        $XDG_CONFIG_HOME/rig/config.json or\n"
            "                        ~/.config/rig/config.json if it exists; docs/web.md)\n"
            "  --http HOST:PORT      serve over HTTP; HOST 127.0.0.1 keeps it on this\n"
            "                        machine; PORT 0 picks a free port\n"
            "  --token TOKEN         HTTP clients must send Authorization: Bearer TOKEN\n"
            "                        (default: $RIG_TOKEN, if set)\n"
            "  --allow-origin ORIG   let browser pages from ORIG (e.g. https://app.example)\n"
            "                        call the server; loopback origins always may\n"
            "  --policy MODE         approval: auto (default: run everything; the MCP\n"
            "                        client asks its user), ask (read-only and\n"
            "                        allowlisted calls run; others are put to the user\n"
            "                        through MCP elicitation, and refused when the client\n"
            "                        cannot ask), read-only (refuse every tool that\n"
            "                        changes things), yolo (run everything); --yolo is\n"
            "                        --policy yolo\n"
            "  --allowlist FILE      what \"always\" remembers, for --policy ask (default:\n"
            "                        $XDG_CONFIG_HOME/rig/allowlist.json or\n"
            "                        ~/.config/rig/allowlist.json)\n"
            "  --plans-dir DIR       where enter_plan_mode keeps plans (default:\n"
            "                        <first root>/.rig/plans)\n"
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

/* A client offered roots: they replace the --root list for its session
 * (none offered: the --root list again). What could not be used is told to
 * the client through `note` and to the operator on stderr. */
static void on_client_roots(const char *session, const char *const *paths, size_t n, void *ud,
                            rig_error *note)
{
    rig_roots *roots = ud;
    rig_error err = {0};
    int rc = rig_roots_set_session(roots, session, paths, n, &err);
    if (rc < 0) {
        rig_error_set(note, err.code, "rig could not take the client's roots: %s", err.message);
        fprintf(stderr, "rig serve: %s: the client's roots: %s\n", session, err.message);
        return;
    }
    if (n == 0) {
        fprintf(stderr, "rig serve: %s: the client offers no roots; the file tools use --root\n",
                session);
        return;
    }
    fprintf(stderr, "rig serve: %s: the file tools use the client's roots:", session);
    rig_roots *view = rig_roots_acquire(roots, session);
    for (size_t i = 0; i < rig_roots_count(view); i++)
        fprintf(stderr, " %s", rig_roots_path(view, i));
    rig_roots_release(view);
    fprintf(stderr, "%s\n", rc == 0 ? " (none usable: every path is refused)" : "");
    if (err.code)
        rig_error_set(note, err.code, "%s%s", err.message,
                      rc == 0 ? " No directory is open to the file tools in this session." : "");
}

/* A session ended: drop its roots (if it had its own) and its plan mode. */
static void on_session_end(const char *session, void *ud)
{
    struct cli_opts *o = ud;
    rig_roots_drop_session(o->roots, session);
    rig_approval_session_end(o->approval, session);
    rig_shell_end_session(o->shell, session); /* its background jobs die with it */
}

/* "127.0.0.1:8765", "[::1]:8765", "localhost:0" */
static int parse_hostport(const char *arg, char *host, size_t cap, unsigned *port)
{
    const char *colon = strrchr(arg, ':');
    if (!colon || colon == arg)
        return -1;
    size_t hlen = (size_t)(colon - arg);
    const char *h = arg;
    if (h[0] == '[' && hlen >= 2 && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    }
    char *end;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (hlen == 0 || hlen >= cap || end == colon + 1 || *end || p > 65535)
        return -1;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = (unsigned)p;
    return 0;
}

struct http_ready {
    const char *host;
    bool token;
};

/* Where to point a client, once the port is known. */
static void on_ready(unsigned port, void *ud)
{
    struct http_ready *r = ud;
    const char *h = r->host;
    bool v6 = strchr(h, ':') != NULL;
    char url[320];
    snprintf(url, sizeof url, "http://%s%s%s:%u/mcp", v6 ? "[" : "", h, v6 ? "]" : "", port);
    printf("rig serve: MCP over Streamable HTTP at %s\n", url);
    if (r->token)
        printf("  (clients must send Authorization: Bearer <token>)\n");
    printf("  Claude Code:     claude mcp add --transport http rig %s\n", url);
    printf("  Claude Desktop:  add to claude_desktop_config.json: "
           "\"mcpServers\": {\"rig\": {\"command\": \"npx\", "
           "\"args\": [\"mcp-remote\", \"%s\"]}}\n",
           url);
    printf("  MCP Inspector:   npx @modelcontextprotocol/inspector "
           "--transport http --server-url %s\n",
           url);
    printf("  Stop with Ctrl-C.\n");
    fflush(stdout);
}

int cli_serve(int argc, char **argv)
{
    const char **roots_arg = calloc((size_t)argc + 1, sizeof *roots_arg);
    size_t nroots = 0;
    rig_roots *roots = NULL;
    rig_toolset *ts = NULL;
    rig_mcp_server *s = NULL;
    int status = CLI_USAGE, in = -1, out = -1;
    double timeout = 0;
    const char *http = NULL, *token_arg = NULL;
    const char *origins[33] = {0};
    size_t norigins = 0;
    bool fixed_roots = false;
    struct cli_opts copts;
    cli_opts_init(&copts, "serve");
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
        } else if (strcmp(a, "--fixed-roots") == 0) {
            fixed_roots = true;
        } else if (strcmp(a, "--http") == 0 && has_val) {
            http = argv[++i];
        } else if (strcmp(a, "--token") == 0 && has_val) {
            token_arg = argv[++i];
        } else if (strcmp(a, "--allow-origin") == 0 && has_val) {
            if (norigins == 32) {
                fprintf(stderr, "rig serve: at most 32 --allow-origin\n");
                goto out;
            }
            origins[norigins++] = argv[++i];
        } else if (strcmp(a, "--root") == 0 && has_val) {
            if (roots_arg)
                roots_arg[nroots++] = argv[++i];
            else
                i++;
        } else if (strcmp(a, "--timeout") == 0 && has_val) {
            char *end;
            timeout = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(timeout > 0) || timeout > 86400) {
                fprintf(stderr, "rig serve: --timeout needs seconds between 0 and 86400\n");
                goto out;
            }
        } else if (strcmp(a, "--root") == 0 || strcmp(a, "--timeout") == 0 ||
                   strcmp(a, "--http") == 0 || strcmp(a, "--token") == 0 ||
                   strcmp(a, "--allow-origin") == 0) {
            fprintf(stderr, "rig serve: %s needs a value\n", a);
            goto out;
        } else {
            fprintf(stderr, "rig serve: unexpected argument '%s'\n", a);
            usage(stderr);
            goto out;
        }
    }
    char host[256];
    unsigned port = 0;
    if (http && parse_hostport(http, host, sizeof host, &port) != 0) {
        fprintf(stderr, "rig serve: --http needs HOST:PORT, e.g. 127.0.0.1:8765 (got '%s')\n",
                http);
        goto out;
    }
    const char *token = token_arg ? token_arg : getenv("RIG_TOKEN");
    if ((token_arg || norigins) && !http) {
        fprintf(stderr, "rig serve: --token and --allow-origin go with --http\n");
        goto out;
    }
    if (!roots_arg) {
        fprintf(stderr, "rig serve: out of memory\n");
        status = CLI_FAIL;
        goto out;
    }
    /* The roots are opened first, relative to where rig was started; then
     * the first becomes the working directory. */
    status = cli_roots_new("serve", roots_arg, nroots, &roots);
    if (status != CLI_OK)
        goto out;
    status = CLI_USAGE;
    if (nroots && chdir(roots_arg[0]) != 0) {
        fprintf(stderr, "rig serve: --root %s: %s\n", roots_arg[0], strerror(errno));
        goto out;
    }
    status = CLI_FAIL;
    copts.roots = roots;
    if (cli_toolset_new(&copts, &ts) != CLI_OK)
        goto out;
    if (timeout > 0)
        rig_toolset_set_timeout(ts, (int64_t)(timeout * 1000));
    rig_error err;
    rig_mcp_info info = {.name = "rig", .version = rig_version(), .instructions = instructions};
    s = rig_mcp_server_new(ts, &info, &err);
    if (!s) {
        fprintf(stderr, "rig serve: %s\n", err.message);
        goto out;
    }
    if (!fixed_roots)
        rig_mcp_server_on_roots(s, on_client_roots, roots);
    rig_mcp_server_on_session_end(s, on_session_end, &copts);
    if (http) {
        rig_mcp_http_opts o = {.host = host, .port = port, .token = token, .origins = origins};
        struct http_ready r = {host, token && *token};
        if (rig_mcp_serve_http(s, &o, on_ready, &r, &err) != RIG_OK) {
            fprintf(stderr, "rig serve: %s\n", err.message);
            goto out;
        }
        status = CLI_OK;
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
    rig_roots_free(roots);
    cli_opts_free(&copts);
    free(roots_arg);
    return status;
}
