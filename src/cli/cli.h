/* cli.h — what the rig command's subcommand files share. */
#ifndef RIG_CLI_H
#define RIG_CLI_H

#include <stddef.h>

/* Exit statuses every subcommand uses. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* A subcommand: argv[0] is its own name. */
typedef int (*cli_command_fn)(int argc, char **argv);

int cli_json(int argc, char **argv);
int cli_tools(int argc, char **argv);
int cli_call(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_policy(int argc, char **argv);

struct rig_toolset;
struct rig_roots;
/* The toolset the commands serve: rig's built-in tools and the file tools,
 * confined to `roots` (which must outlive the toolset). Prints why on
 * failure. */
int cli_toolset_new(struct rig_roots *roots, struct rig_toolset **out);

/* The roots of `dirs` (n of them; none: the current directory), the first
 * being where relative paths resolve. A directory that cannot be a root is
 * a usage error naming it ("rig CMD: --root DIR: why"). CLI_OK, CLI_USAGE
 * or CLI_FAIL (out of memory). */
int cli_roots_new(const char *cmd, const char *const *dirs, size_t n, struct rig_roots **out);

/* Reads a whole file ("-" is stdin) into a malloc'd buffer. Returns 0, or an
 * errno value. */
int cli_read_file(const char *path, char **out, size_t *len);

#endif
