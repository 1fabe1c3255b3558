/* env.c — `rig env serve` and `rig env check`: an environment (a JSON
 * taskset, or one written in C and built as a plugin) served over the
 * control channel (REFERENCE 1), with rig's tools published as the
 * "tools" capability for tasks that have a workspace.
 *
 * stdout carries one line, RIG_SERVE_PORT=<port>, once the port is bound,
 * so a parent can start rig on port 0 and read where it listens; every
 * other word goes to stderr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "env/env_internal.h"
#include "env/workspace.h"
#include "rig/rig.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rig env serve TASKSET.json|PLUGIN.so [--host HOST] [--port PORT] [options]\n"
            "       rig env check TASKSET.json|PLUGIN.so\n"
            "\n"
            "serve: serve an environment over the control channel (newline-delimited\n"
            "JSON-RPC over TCP: hello, tasks.list, tasks.start, tasks.grade, tasks.cancel,\n"
            "bye, tunnel.open) until SIGINT or SIGTERM. Once the port is bound, stdout gets\n"
            "one line, RIG_SERVE_PORT=<port>. The environment is a taskset file (JSON:\n"
            "tasks with prompt templates, graders and workspaces; docs/env.md) or a\n"
            "shared object exporting rig_env_plugin_new (examples/env_plugin.c).\n"
            "For tasks with a workspace, each episode works in a fresh copy of it, and\n"
            "rig's tools (files, grep, edit, shell, ...) are served over MCP Streamable\n"
            "HTTP as the \"tools\" capability, rooted at that copy.\n"
            "check: load the environment, list its tasks, and exit (0 when it loads).\n"
            "\n"
            "options:\n"
            "  --host HOST           address to listen on (default 127.0.0.1)\n"
            "  --port PORT           port (default 0: any free port)\n"
            "  --work-dir DIR        where episodes' workspaces are made (default: a new\n"
            "                        directory under $TMPDIR, removed at exit)\n"
            "  --no-tools            do not serve the tools capability\n"
            "  --grade-timeout SECS  a start or grade running longer gets an error (600)\n"
            "  --park-timeout SECS   a disconnected session holding a task is kept this\n"
            "                        long for its client to come back (3600)\n"
            "  --max-sessions N      sessions holding a task at once (16384)\n"
            "  --timeout SECS        stop any tool call after SECS seconds (default 300)\n"
            "  --sandbox strict|on|off\n"
            "                        strict (the default): the agent's shell commands may\n"
            "                        write only in the episode's workspace and a TMPDIR\n"
            "                        of their own, read only there and in the system\n"
            "                        directories (/usr, /etc, ...), open no TCP connection\n"
            "                        and see no secrets in their environment; on: they may\n"
            "                        read anything and use the network; off: no sandbox.\n"
            "                        Command graders may write only in the workspace and\n"
            "                        a private $TMPDIR unless off\n"
            "  --allow-host, --config, --policy, --allowlist, --plans-dir\n"
            "                        as for rig serve (rig serve --help)\n"
            "\n"
            "exit status: 0 stopped by a signal (serve) or loaded (check), 1 failure,\n"
            "             2 usage error or an environment that does not load\n");
}

/* ELF objects are plugins; anything else is read as a taskset. */
static bool is_plugin(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    unsigned char magic[4] = {0};
    bool elf = fd >= 0 && read(fd, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0;
    if (fd >= 0)
        close(fd);
    return elf;
}

static rig_env *load_plugin(const char *path, void **handle)
{
    /* dlopen searches the library path for a name without a slash. */
    char *p = strchr(path, '/') ? strdup(path) : NULL;
    if (!p && asprintf(&p, "./%s", path) < 0)
        p = NULL;
    if (!p) {
        fprintf(stderr, "rig env: out of memory\n");
        return NULL;
    }
    *handle = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    free(p);
    if (!*handle) {
        fprintf(stderr, "rig env: %s: cannot load the plugin: %s\n", path, dlerror());
        return NULL;
    }
    rig_env_plugin_fn fn;
    *(void **)&fn = dlsym(*handle, RIG_ENV_PLUGIN_SYMBOL);
    if (!fn) {
        fprintf(stderr, "rig env: %s: exports no %s (see examples/env_plugin.c)\n", path,
                RIG_ENV_PLUGIN_SYMBOL);
        return NULL;
    }
    rig_error err = {0};
    rig_env *env = fn(&err);
    if (!env)
        fprintf(stderr, "rig env: %s: %s() failed: %s\n", path, RIG_ENV_PLUGIN_SYMBOL,
                err.message[0] ? err.message : "it returned no environment");
    return env;
}

static bool parse_secs(const char *cmd, const char *flag, const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d > 0) || d > 31 * 86400) {
        fprintf(stderr, "rig env %s: %s needs seconds above 0 (got '%s')\n", cmd, flag, v);
        return false;
    }
    *out = d;
    return true;
}

/* A tools session ended (its client hung up or its episode did): what
 * it holds beyond its roots goes too. */
static void on_tools_session_end(const char *session, void *ud)
{
    struct cli_opts *o = ud;
    rig_roots_drop_session(o->roots, session);
    rig_approval_session_end(o->approval, session);
    rig_shell_end_session(o->shell, session);
}

static void on_ready(int port, void *ud)
{
    (void)ud;
    printf("RIG_SERVE_PORT=%d\n", port);
    fflush(stdout);
}

/* Makes the work directory (a new one under $TMPDIR when dir is NULL) and
 * an empty, read-only directory in it that tools sessions fall back to
 * when they have no workspace: nothing to see, nowhere to write. */
static int make_work_dir(const char *dir, char **work, char **empty, bool *made)
{
    if (dir) {
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "rig env serve: --work-dir %s: %s\n", dir,
                    errno ? strerror(errno) : "not a directory");
            return CLI_USAGE;
        }
        *work = realpath(dir, NULL);
        *made = false;
    } else {
        const char *tmp = getenv("TMPDIR");
        char *tpl = NULL;
        if (asprintf(&tpl, "%s/rig-env-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
            return CLI_FAIL;
        *work = mkdtemp(tpl) ? realpath(tpl, NULL) : NULL;
        if (!*work)
            fprintf(stderr, "rig env serve: cannot make a work directory %s: %s\n", tpl,
                    strerror(errno));
        free(tpl);
        *made = *work != NULL;
    }
    if (!*work)
        return CLI_FAIL;
    char *e = NULL;
    if (asprintf(&e, "%s/.rig-no-workspace-%d", *work, (int)getpid()) < 0)
        return CLI_FAIL;
    if (mkdir(e, 0500) != 0 && errno != EEXIST) {
        fprintf(stderr, "rig env serve: %s: %s\n", e, strerror(errno));
        free(e);
        return CLI_FAIL;
    }
    *empty = e;
    return CLI_OK;
}

/* `rig env check`: what a client's tasks.list would show, as a table. */
static void print_tasks(const char *path, rig_env *env)
{
    printf("%s: %s %s, %zu task%s\n", path, env->name, env->version, env->ntasks,
           env->ntasks == 1 ? "" : "s");
    for (size_t i = 0; i < env->ntasks; i++)
        printf("  %-24s %s\n", env->tasks[i].id, env->tasks[i].description);
}

int cli_env(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    const char *sub = argv[1];
    bool check = strcmp(sub, "check") == 0;
    if (!check && strcmp(sub, "serve") != 0) {
        fprintf(stderr, "rig env: unknown command '%s' (serve or check)\n", sub);
        usage(stderr);
        return CLI_USAGE;
    }
    const char *source = NULL, *host = "127.0.0.1", *work_arg = NULL;
    long port = 0, max_sessions = 0;
    double grade_timeout = 0, park_timeout = 0, tool_timeout = 0;
    bool no_tools = false;
    int status = CLI_USAGE;
    struct cli_opts copts;
    cli_opts_init(&copts, check ? "env check" : "env serve");
    copts.isolate = true; /* the agent is not trusted: --sandbox strict unless told */
    rig_env *env = NULL;
    void *plugin = NULL;
    rig_roots *roots = NULL;
    rig_toolset *ts = NULL;
    rig_mcp_server *mcp = NULL;
    char *work = NULL, *empty = NULL;
    bool work_made = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int shared = cli_opts_parse(&copts, argc, argv, &i);
        if (shared < 0)
            goto out;
        if (shared > 0)
            continue;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            status = CLI_OK;
            goto out;
        }
        if (strcmp(a, "--no-tools") == 0) {
            no_tools = true;
            continue;
        }
        static const char *const valued[] = {"--host", "--port", "--work-dir", "--grade-timeout",
                                             "--park-timeout", "--max-sessions", "--timeout",
                                             NULL};
        bool is_valued = false;
        for (size_t k = 0; valued[k]; k++)
            is_valued |= strcmp(a, valued[k]) == 0;
        if (is_valued && !val) {
            fprintf(stderr, "rig env %s: %s needs a value\n", sub, a);
            goto out;
        }
        if (is_valued)
            i++;
        char *end;
        if (strcmp(a, "--host") == 0) {
            host = val;
        } else if (strcmp(a, "--port") == 0) {
            port = strtol(val, &end, 10);
            if (end == val || *end || port < 0 || port > 65535) {
                fprintf(stderr, "rig env %s: --port needs 0-65535 (got '%s')\n", sub, val);
                goto out;
            }
        } else if (strcmp(a, "--work-dir") == 0) {
            work_arg = val;
        } else if (strcmp(a, "--grade-timeout") == 0) {
            if (!parse_secs(sub, a, val, &grade_timeout))
                goto out;
        } else if (strcmp(a, "--park-timeout") == 0) {
            if (!parse_secs(sub, a, val, &park_timeout))
                goto out;
        } else if (strcmp(a, "--timeout") == 0) {
            if (!parse_secs(sub, a, val, &tool_timeout))
                goto out;
        } else if (strcmp(a, "--max-sessions") == 0) {
            max_sessions = strtol(val, &end, 10);
            if (end == val || *end || max_sessions < 1 || max_sessions > 1000000) {
                fprintf(stderr, "rig env %s: --max-sessions needs 1-1000000 (got '%s')\n", sub,
                        val);
                goto out;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "rig env %s: unknown option '%s'\n", sub, a);
            usage(stderr);
            goto out;
        } else if (!source) {
            source = a;
        } else {
            fprintf(stderr, "rig env %s: unexpected argument '%s'\n", sub, a);
            goto out;
        }
    }
    if (!source) {
        fprintf(stderr, "rig env %s: name a taskset file or a plugin\n", sub);
        usage(stderr);
        goto out;
    }
    if (access(source, R_OK) != 0) {
        fprintf(stderr, "rig env %s: %s: %s\n", sub, source, strerror(errno));
        goto out;
    }
    if (is_plugin(source)) {
        status = CLI_FAIL;
        if (!(env = load_plugin(source, &plugin)))
            goto out;
    } else {
        if (!check) {
            status = make_work_dir(work_arg, &work, &empty, &work_made);
            if (status != CLI_OK)
                goto out;
            status = CLI_FAIL;
            const char *dirs[1] = {empty};
            if (!no_tools) {
                if (cli_roots_new("env serve", dirs, 1, &roots) != CLI_OK)
                    goto out;
                copts.roots = roots;
                if (cli_toolset_new(&copts, &ts) != CLI_OK)
                    goto out;
                if (tool_timeout > 0)
                    rig_toolset_set_timeout(ts, (int64_t)(tool_timeout * 1000));
                rig_error merr = {0};
                rig_mcp_info info = {.name = "rig", .version = rig_version(),
                                     .instructions =
                                         "rig's tools, working in this task's workspace: read, "
                                         "search (grep, glob) and change files (edit_file, "
                                         "write_file), and run commands (shell). Relative "
                                         "paths resolve in the workspace."};
                if (!(mcp = rig_mcp_server_new(ts, &info, &merr))) {
                    fprintf(stderr, "rig env serve: %s\n", merr.message);
                    goto out;
                }
                rig_mcp_server_on_session_end(mcp, on_tools_session_end, &copts);
            }
        }
        rig_taskset_opts to = {.work_dir = work ? work : "/", .tools = mcp, .roots = roots,
                               .on_tools_session_end = on_tools_session_end, .ud = &copts,
                               .no_sandbox = !copts.sandbox};
        rig_error err = {0};
        if (!(env = rig_taskset_load(source, &to, &err))) {
            fprintf(stderr, "rig env %s: %s\n", sub, err.message);
            status = CLI_USAGE;
            goto out;
        }
    }
    if (check) {
        print_tasks(source, env);
        status = CLI_OK;
        goto out;
    }
    rig_env_serve_opts so = {.host = host, .port = (int)port,
                             .grade_timeout_ms = (int64_t)(grade_timeout * 1000),
                             .max_tasks = (unsigned)max_sessions,
                             .park_timeout_ms = (int64_t)(park_timeout * 1000)};
    rig_error err = {0};
    status = CLI_FAIL;
    if (rig_env_serve(env, &so, on_ready, NULL, &err) != RIG_OK) {
        fprintf(stderr, "rig env serve: %s\n", err.message);
        goto out;
    }
    status = CLI_OK;
out:
    rig_env_free(env);
    rig_mcp_server_free(mcp);
    rig_toolset_free(ts);
    cli_opts_free(&copts);
    rig_roots_free(roots);
    if (empty) {
        rmdir(empty);
        free(empty);
    }
    if (work && work_made) {
        char why[256];
        if (rig__tree_remove(work, why, sizeof why) != 0)
            fprintf(stderr, "rig env serve: %s\n", why);
    }
    free(work);
    /* The plugin's code may be behind the env's functions: close it last. */
    if (plugin)
        dlclose(plugin);
    return status;
}
