/* opts.c — the options every command that runs tools shares (rig serve,
 * rig call): how the shell is sandboxed, which hosts fetch may reach, the
 * approval policy, the config file; and the toolset they all build from
 * them. One parser, so a flag means the same thing in every command. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "rig/rig.h"

void cli_opts_init(struct cli_opts *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->sandbox = true;
}

void cli_opts_free(struct cli_opts *o)
{
    rig_shell_free(o->shell);
    o->shell = NULL;
    /* After the toolset: the gate's hooks and tools borrow it. */
    rig_approval_free(o->approval);
    o->approval = NULL;
    cli_tty_close(o->tty);
    o->tty = NULL;
    free(o->allowlist_default);
    o->allowlist_default = NULL;
    free(o->allow_hosts);
    o->allow_hosts = NULL;
    o->n_allow_hosts = 0;
}

/* Appends `s` to a growable array of borrowed strings. */
static int push_str(const char ***arr, size_t *n, const char *s)
{
    const char **grown = realloc(*arr, (*n + 2) * sizeof **arr);
    if (!grown)
        return -1;
    grown[(*n)++] = s;
    grown[*n] = NULL;
    *arr = grown;
    return 0;
}

int cli_opts_parse(struct cli_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    static const char *const valued[] = {"--sandbox", "--allow-host", "--config", "--policy",
                                         "--allowlist", "--plans-dir", NULL};
    for (size_t k = 0; valued[k]; k++) {
        if (strcmp(a, valued[k]) == 0 && !val) {
            fprintf(stderr, "rig %s: %s needs a value\n", o->cmd, a);
            return -1;
        }
    }
    if (strcmp(a, "--sandbox") == 0) {
        if (strcmp(val, "on") == 0)
            o->sandbox = true, o->isolate = false;
        else if (strcmp(val, "strict") == 0)
            o->sandbox = true, o->isolate = true;
        else if (strcmp(val, "off") == 0)
            o->sandbox = false, o->isolate = false;
        else {
            fprintf(stderr, "rig %s: --sandbox takes on, strict or off (got '%s')\n", o->cmd,
                    val);
            return -1;
        }
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--config") == 0) {
        o->config = val;
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--allow-host") == 0) {
        /* a host: not a URL, and no port (an allowed host is allowed on
         * every port); an IPv6 address has two colons or more */
        const char *colon = strchr(val, ':');
        bool one_colon = colon && !strchr(colon + 1, ':');
        if (!*val || strpbrk(val, "/ \t@") || (one_colon && val[0] != '[')) {
            fprintf(stderr,
                    "rig %s: --allow-host takes a host name or IP address, without a scheme, "
                    "path or port (got '%s')\n",
                    o->cmd, val);
            return -1;
        }
        if (push_str(&o->allow_hosts, &o->n_allow_hosts, val) != 0) {
            fprintf(stderr, "rig %s: out of memory\n", o->cmd);
            return -1;
        }
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--policy") == 0) {
        rig_policy_mode mode;
        if (rig_policy_mode_parse(val, &mode) != 0) {
            fprintf(stderr, "rig %s: --policy takes auto, ask, read-only or yolo (got '%s')\n",
                    o->cmd, val);
            return -1;
        }
        o->policy = (int)mode;
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--yolo") == 0) {
        o->policy = RIG_POLICY_YOLO;
        return 1;
    }
    if (strcmp(a, "--allowlist") == 0) {
        o->allowlist = val;
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--plans-dir") == 0) {
        o->plans_dir = val;
        (*i)++;
        return 1;
    }
    return 0;
}

/* $XDG_CONFIG_HOME/rig/allowlist.json, else ~/.config/rig/allowlist.json
 * (malloc'd); NULL when neither variable is set. */
static char *default_allowlist(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char *path = NULL;
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = asprintf(&path, "%s/rig/allowlist.json", xdg);
    else if (home && *home)
        n = asprintf(&path, "%s/.config/rig/allowlist.json", home);
    return n < 0 ? NULL : path;
}

/* The approval gate the options ask for, made once per cli_opts. */
static int approval_setup(struct cli_opts *o, rig_error *err)
{
    if (o->approval)
        return RIG_OK;
    const char *allow = o->allowlist;
    if (!allow && o->policy == RIG_POLICY_ASK)
        allow = o->allowlist_default = default_allowlist();
    if (!(o->approval = rig_approval_new((rig_policy_mode)o->policy, allow, err)))
        return err->code;
    rig_approval_set_roots(o->approval, o->roots);
    if (o->plans_dir && rig_approval_set_plans_dir(o->approval, o->plans_dir, err) != RIG_OK)
        return err->code;
    if (o->tty_prompt && (o->tty = cli_tty_open()))
        cli_tty_use(o->tty, o->approval);
    return RIG_OK;
}

/* fetch and web_search, with the hosts --allow-host and the config file
 * allow and the config file's search provider. */
static int add_web_tools(struct cli_opts *o, rig_toolset *ts)
{
    struct cli_config cfg;
    if (cli_config_load(o->cmd, o->config, &cfg) != 0)
        return -1;
    int rc = -1;
    rig_error err;
    const char **hosts = calloc(cfg.n_allow_hosts + o->n_allow_hosts + 1, sizeof *hosts);
    if (!hosts) {
        fprintf(stderr, "rig %s: out of memory\n", o->cmd);
        goto out;
    }
    size_t n = 0;
    for (size_t i = 0; i < cfg.n_allow_hosts; i++)
        hosts[n++] = cfg.allow_hosts[i];
    for (size_t i = 0; i < o->n_allow_hosts; i++)
        hosts[n++] = o->allow_hosts[i];
    rig_web_opts wo = cfg.web;
    wo.allow_hosts = hosts;
    if (rig_web_tools_add(ts, &wo, &err) != RIG_OK) {
        fprintf(stderr, "rig %s: %s%s%s\n", o->cmd, cfg.path ? cfg.path : "",
                cfg.path ? ": " : "", err.message);
        goto out;
    }
    rc = 0;
out:
    free(hosts);
    cli_config_free(&cfg);
    return rc;
}

int cli_toolset_new(struct cli_opts *o, rig_toolset **out)
{
    rig_error err;
    rig_registry *reg = rig_registry_new();
    rig_toolset *ts = rig_toolset_new();
    if (!reg || !ts) {
        fprintf(stderr, "rig: out of memory\n");
        goto fail;
    }
    if (rig_registry_add_builtins(reg, &err) != RIG_OK ||
        rig_registry_resolve(reg, "default", NULL, 0, ts, &err) != RIG_OK ||
        rig_fs_tools_add(ts, o->roots, &err) != RIG_OK) {
        fprintf(stderr, "rig: %s\n", err.message);
        goto fail;
    }
    if (add_web_tools(o, ts) != 0)
        goto fail;
    rig_shell_opts so = {.no_sandbox = !o->sandbox, .isolate = o->isolate};
    if (!o->shell && !(o->shell = rig_shell_new(o->roots, &so, &err))) {
        fprintf(stderr, "rig: %s\n", err.message);
        goto fail;
    }
    if (rig_shell_tools_add(ts, o->shell, &err) != RIG_OK) {
        fprintf(stderr, "rig: %s\n", err.message);
        goto fail;
    }
    char why[256];
    if (o->sandbox && !rig_shell_sandboxed(o->shell, why, sizeof why))
        fprintf(stderr, "rig %s: warning: %s\n", o->cmd, why);
    if (approval_setup(o, &err) != RIG_OK ||
        rig_approval_add_tools(o->approval, ts, &err) != RIG_OK ||
        rig_approval_attach(o->approval, ts, &err) != RIG_OK) {
        fprintf(stderr, "rig %s: %s\n", o->cmd, err.message);
        goto fail;
    }
    rig_registry_free(reg);
    *out = ts;
    return CLI_OK;
fail:
    rig_registry_free(reg);
    rig_toolset_free(ts);
    return CLI_FAIL;
}
