/* cli.h — what the rig command's subcommand files share. */
#ifndef RIG_CLI_H
#define RIG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "rig/web.h"

/* Exit statuses every subcommand uses. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* A subcommand: argv[0] is its own name. */
typedef int (*cli_command_fn)(int argc, char **argv);

int cli_json(int argc, char **argv);
int cli_tools(int argc, char **argv);
int cli_call(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_policy(int argc, char **argv);
int cli_env(int argc, char **argv);
int cli_task(int argc, char **argv);

struct rig_toolset;
struct rig_roots;

/* The options shared by the commands that run tools (serve, call), in
 * opts.c. Each command sets `roots` itself (its --root handling differs in
 * messages only) and hands every other argument to cli_opts_parse first. */
struct cli_opts {
    const char *cmd;             /* "serve", "call": for messages */
    struct rig_roots *roots;     /* borrowed; must outlive the toolset */
    bool sandbox;                /* --sandbox on|strict|off (default on): Landlock for the shell */
    bool isolate;                /* --sandbox strict: confined reads, no TCP, per-session TMPDIR */
    const char **allow_hosts;    /* --allow-host HOST, repeatable; NULL-ended; borrowed strings */
    size_t n_allow_hosts;
    const char *config;          /* --config FILE; NULL: $RIG_CONFIG, else the default file */
    struct rig_shell *shell;     /* made by cli_toolset_new; freed by cli_opts_free */
    int policy;                  /* --policy MODE, a rig_policy_mode (default auto) */
    const char *allowlist;       /* --allowlist FILE; NULL: $XDG_CONFIG_HOME/rig/allowlist.json */
    const char *plans_dir;       /* --plans-dir DIR; NULL: <first root>/.rig/plans */
    bool tty_prompt;             /* rig call: ask on the terminal, when there is one */
    struct rig_approval *approval; /* the gate, made by cli_toolset_new; freed by cli_opts_free */
    struct cli_tty *tty;         /* the terminal prompter in use, or NULL */
    char *allowlist_default;     /* the default path, when it is used */
};

void cli_opts_init(struct cli_opts *o, const char *cmd);
void cli_opts_free(struct cli_opts *o);
/* Is argv[*i] one of the shared options? 1: yes, taken (with its value:
 * *i moves past it); 0: not one of them; -1: it is, but its value is bad
 * (said on stderr: a usage error). */
int cli_opts_parse(struct cli_opts *o, int argc, char **argv, int *i);

/* The config file (config.c says what it holds and where it is looked for),
 * read with the strings it gives kept in `arena`. */
struct cli_config {
    char *path;                  /* the file read, or NULL when there is none */
    char *text;
    struct rig_json_doc *doc;
    struct rig_arena *arena;
    const char **allow_hosts;    /* NULL-ended */
    size_t n_allow_hosts;
    rig_web_opts web;            /* the search provider (allow_hosts left NULL) */
};
/* Read the config file (`explicit_path`: --config, or NULL). 0, or -1 when it
 * is bad (said on stderr, naming the file and the setting). */
int cli_config_load(const char *cmd, const char *explicit_path, struct cli_config *c);
void cli_config_free(struct cli_config *c);

/* The toolset the commands serve: rig's built-in tools, the file tools
 * confined to o->roots, and the shell, web and interaction tools as the
 * options say. Prints why on failure. */
int cli_toolset_new(struct cli_opts *o, struct rig_toolset **out);

/* The terminal prompter (prompt.c): NULL unless /dev/tty opens and stdin
 * or stderr is a terminal. cli_tty_use makes `ap` ask on it. */
struct cli_tty;
struct rig_approval;
struct cli_tty *cli_tty_open(void);
void cli_tty_use(struct cli_tty *t, struct rig_approval *ap);
void cli_tty_close(struct cli_tty *t);

/* The roots of `dirs` (n of them; none: the current directory), the first
 * being where relative paths resolve. A directory that cannot be a root is
 * a usage error naming it ("rig CMD: --root DIR: why"). CLI_OK, CLI_USAGE
 * or CLI_FAIL (out of memory). */
int cli_roots_new(const char *cmd, const char *const *dirs, size_t n, struct rig_roots **out);

/* Reads a whole file ("-" is stdin) into a malloc'd buffer. Returns 0, or an
 * errno value. */
int cli_read_file(const char *path, char **out, size_t *len);

#endif
