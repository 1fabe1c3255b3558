/* shparse.h — reading a shell command line the way the approval policy
 * needs it: as the simple commands it would run, with the words each one
 * is sure to have. Internal.
 *
 * Every simple command is listed, wherever it stands: in a list (; & &&
 * || newline), a pipeline (| |&), a subshell or group, and inside command
 * substitutions ($(...) and `...`) and process substitutions (<(...)
 * >(...)), which the shell runs too. A word is "literal" when quote
 * removal alone gives its value; a word with an expansion ($x, ${x}, $'..',
 * a glob) is not, and its text is kept as written. */
#ifndef RIG_POLICY_SHPARSE_H
#define RIG_POLICY_SHPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

typedef struct rig__sh_word {
    char *text;    /* the value when literal, else the word as written */
    bool literal;
} rig__sh_word;

typedef struct rig__sh_cmd {
    rig__sh_word *words;   /* the command name and its arguments */
    size_t nwords;
    size_t nassign;        /* NAME=value words before the name */
    char *writes;          /* the first file an output redirection writes, or NULL */
} rig__sh_cmd;

typedef struct rig__sh_script {
    rig__sh_cmd *cmds;
    size_t n;
} rig__sh_script;

/* Parse `len` bytes of `src`. 0 with *out filled (free it with
 * rig__sh_script_free), or -1 with `why` (cap bytes) saying what could not
 * be read for certain. */
RIG_INTERNAL int rig__sh_parse(const char *src, size_t len, rig__sh_script *out, char *why,
                               size_t cap);
RIG_INTERNAL void rig__sh_script_free(rig__sh_script *s);

/* policy.c: does the command carry an option that makes it write files or
 * run others (`git log --output=F`, `sort -o F`, `find -exec`)? A "*" in an
 * allowlist pattern never stands for those. */
RIG_INTERNAL bool rig__sh_acts_by_option(const rig__sh_cmd *c);

#endif
