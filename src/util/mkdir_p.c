/* mkdir_p.c — `mkdir -p` (mkdir_p.h). */
#include "util/mkdir_p.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

int rig__mkdir_p(const char *dir, mode_t mode)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return ENAMETOOLONG;
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return errno;
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(buf, &st) != 0)
        return errno;
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}
