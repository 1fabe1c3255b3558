/* environ.h — the environment a child process gets: the parent's, with
 * TMPDIR pointed at a private directory and, optionally, only the
 * variables a filter keeps. Shared by the shell tool and command graders.
 * Internal. */
#ifndef RIG_UTIL_ENVIRON_H
#define RIG_UTIL_ENVIRON_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* A new NULL-ended array: environ's variables other than TMPDIR that
 * `keep` accepts (NULL: all of them), then `tmpdir_env` ("TMPDIR=..."). The
 * strings are borrowed, from environ and the caller; free only the array.
 * NULL when out of memory. */
static inline char **rig__environ_with_tmpdir(const char *tmpdir_env, bool (*keep)(const char *))
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "TMPDIR=", 7) != 0 && (!keep || keep(environ[i])))
            env[k++] = environ[i];
    env[k++] = (char *)tmpdir_env;
    env[k] = NULL;
    return env;
}

#endif
