/* opts.c — the options every command that runs tools shares (rig serve,
 * rig call): how the shell is sandboxed, which hosts fetch may reach, the
 * approval policy, the config file; and the toolset they all build from
 * them. One parser, so a flag means the same thing in every command. */
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
    static const char *const valued[] = {"--sandbox", "--allow-host", NULL};
    for (size_t k = 0; valued[k]; k++) {
        if (strcmp(a, valued[k]) == 0 && !val) {
            fprintf(stderr, "rig %s: %s needs a value\n", o->cmd, a);
            return -1;
        }
    }
    if (strcmp(a, "--sandbox") == 0) {
        if (strcmp(val, "on") == 0)
            o->sandbox = true;
        else if (strcmp(val, "off") == 0)
            o->sandbox = false;
        else {
            fprintf(stderr, "rig %s: --sandbox takes on or off (got '%s')\n", o->cmd, val);
            return -1;
        }
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--allow-host") == 0) {
        if (push_str(&o->allow_hosts, &o->n_allow_hosts, val) != 0) {
            fprintf(stderr, "rig %s: out of memory\n", o->cmd);
            return -1;
        }
        (*i)++;
        return 1;
    }
    return 0;
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
    rig_registry_free(reg);
    *out = ts;
    return CLI_OK;
fail:
    rig_registry_free(reg);
    rig_toolset_free(ts);
    return CLI_FAIL;
}
