/* workspace.c — copying a task's workspace template for one episode, and
 * removing the copy afterwards.
 *
 * Both walk with directory descriptors (openat, fdopendir, unlinkat), so a
 * path is resolved one component at a time from a directory already open:
 * an agent that swaps a directory for a symlink while the episode ends
 * cannot make the removal follow it out (O_NOFOLLOW on every open, and
 * unlinkat on a symlink removes the link itself). */
#define _GNU_SOURCE
#include "env/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct walk {
    char *why;
    size_t cap;
    size_t entries;
    int top_fd;      /* removal: the directory being removed */
    unsigned long moved; /* removal: subtrees moved up to top_fd this round */
    unsigned long serial; /* removal: names them, never reused */
} walk;

#define REMOVE_DEPTH 64 /* deeper subtrees are moved up and removed in a later round */

static int fail(walk *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, w->cap, fmt, ap);
    va_end(ap);
    return -1;
}

static int copy_file(walk *w, int sdir, int ddir, const char *name, const struct stat *st,
                     const char *where) {
    int in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return fail(w, "%s/%s: %s", where, name, strerror(errno));
    int out = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     st->st_mode & 07777);
    if (out < 0) {
        int e = errno;
        close(in);
        return fail(w, "cannot create the copy of %s/%s: %s", where, name, strerror(e));
    }
    off_t left = st->st_size;
    int rc = 0;
    while (left > 0) {
        /* copy_file_range shares extents where the file system can (btrfs,
         * XFS reflinks); sendfile is the in-kernel copy elsewhere. */
        ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
        if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP))
            n = sendfile(out, in, NULL, (size_t)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = fail(w, "copying %s/%s: %s", where, name, strerror(errno));
            break;
        }
        if (n == 0)
            break; /* the template shrank while we copied: keep what there was */
        left -= n;
    }
    /* The umask trimmed the mode at create; the template's is wanted. */
    if (rc == 0 && fchmod(out, st->st_mode & 07777) != 0)
        rc = fail(w, "%s/%s: %s", where, name, strerror(errno));
    if (close(out) != 0 && rc == 0)
        rc = fail(w, "writing the copy of %s/%s: %s", where, name, strerror(errno));
    close(in);
    return rc;
}

static int copy_link(walk *w, int sdir, int ddir, const char *name, const char *where) {
    char target[PATH_MAX];
    ssize_t n = readlinkat(sdir, name, target, sizeof target - 1);
    if (n < 0)
        return fail(w, "%s/%s: %s", where, name, strerror(errno));
    target[n] = '\0';
    if (symlinkat(target, ddir, name) != 0)
        return fail(w, "cannot copy the link %s/%s: %s", where, name, strerror(errno));
    return 0;
}

/* Copy the entries of sdir into ddir (both open). */
static int copy_dir(walk *w, int sdir, int ddir, const char *where, int depth) {
    if (depth > RIG_WORKSPACE_MAX_DEPTH)
        return fail(w, "%s: directories nest deeper than %d", where, RIG_WORKSPACE_MAX_DEPTH);
    int dup_fd = dup(sdir); /* closedir closes it; sdir stays the caller's */
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return fail(w, "%s: %s", where, strerror(errno));
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (errno = 0, de = readdir(d))) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (++w->entries > RIG_WORKSPACE_MAX_ENTRIES) {
            rc = fail(w, "the template holds more than %d entries", RIG_WORKSPACE_MAX_ENTRIES);
            break;
        }
        struct stat st;
        if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = fail(w, "%s/%s: %s", where, name, strerror(errno));
            break;
        }
        if (S_ISREG(st.st_mode)) {
            rc = copy_file(w, sdir, ddir, name, &st, where);
        } else if (S_ISLNK(st.st_mode)) {
            rc = copy_link(w, sdir, ddir, name, where);
        } else if (S_ISDIR(st.st_mode)) {
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%s", where, name);
            if (mkdirat(ddir, name, 0700) != 0) {
                rc = fail(w, "cannot make the copy of %s: %s", sub, strerror(errno));
                break;
            }
            int s2 = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int d2 = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (s2 < 0 || d2 < 0)
                rc = fail(w, "%s: %s", sub, strerror(errno));
            else
                rc = copy_dir(w, s2, d2, sub, depth + 1);
            /* Its own mode last: a read-only directory is filled first. */
            if (rc == 0 && fchmod(d2, st.st_mode & 07777) != 0)
                rc = fail(w, "%s: %s", sub, strerror(errno));
            if (s2 >= 0)
                close(s2);
            if (d2 >= 0)
                close(d2);
        }
        /* sockets, FIFOs, devices: nothing an agent's workspace needs, and
         * opening a FIFO would block */
    }
    if (rc == 0 && errno != 0)
        rc = fail(w, "%s: %s", where, strerror(errno));
    closedir(d);
    return rc;
}

int rig__tree_copy(const char *src, const char *dst, char *why, size_t cap) {
    walk w = {why, cap, 0};
    int sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sfd < 0)
        return fail(&w, "the workspace template %s: %s", src, strerror(errno));
    struct stat st;
    if (fstat(sfd, &st) != 0) {
        int e = errno;
        close(sfd);
        return fail(&w, "the workspace template %s: %s", src, strerror(e));
    }
    if (mkdir(dst, 0700) != 0) {
        int e = errno;
        close(sfd);
        return fail(&w, "cannot make the workspace %s: %s", dst, strerror(e));
    }
    int dfd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = dfd < 0 ? fail(&w, "%s: %s", dst, strerror(errno)) : copy_dir(&w, sfd, dfd, src, 0);
    if (rc == 0 && fchmod(dfd, (st.st_mode & 07777) | 0700) != 0)
        rc = fail(&w, "%s: %s", dst, strerror(errno));
    if (dfd >= 0)
        close(dfd);
    close(sfd);
    if (rc != 0) {
        char ignored[64];
        rig__tree_remove(dst, ignored, sizeof ignored);
    }
    return rc;
}

/* Open directory `name` in `parent` for removal, making it readable and
 * writable first if the agent took that away. The mode is changed through
 * an O_PATH descriptor of the directory itself (chmod of its /proc/self/fd
 * link), never by name: an agent that swaps the directory for a symlink
 * between two calls cannot make us chmod what the link points at. */
static int open_for_removal(int parent, const char *name) {
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) {
        int p = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (p >= 0) {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", p);
            if (chmod(link, 0700) == 0)
                fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            close(p);
        }
    }
    if (fd >= 0)
        fchmod(fd, 0700); /* so its entries can be unlinked */
    return fd;
}

/* Empty the open directory dfd. */
static int empty_dir(walk *w, int dfd, const char *where, int depth) {
    int dup_fd = dup(dfd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return fail(w, "%s: %s", where, strerror(errno));
    }
    rewinddir(d); /* the duplicate shares dfd's position: a later round starts over */
    int rc = 0;
    struct dirent *de;
    while ((errno = 0, de = readdir(d))) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            rc = fail(w, "cannot remove %s/%s: %s", where, name, strerror(errno));
            continue;
        }
        if (depth >= REMOVE_DEPTH) {
            /* An agent can nest directories deeper than we hold
             * descriptors for: move this one up, to be removed in the next
             * round from the top. */
            char up[64];
            snprintf(up, sizeof up, ".rig-deep-%lu", w->serial++);
            if (renameat(dfd, name, w->top_fd, up) == 0) {
                w->moved++;
                continue;
            }
            rc = fail(w, "cannot remove %s/%s: %s", where, name, strerror(errno));
            continue;
        }
        int sub = open_for_removal(dfd, name);
        if (sub < 0) {
            rc = fail(w, "cannot remove %s/%s: %s", where, name, strerror(errno));
            continue;
        }
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", where, name);
        if (empty_dir(w, sub, path, depth + 1) != 0)
            rc = -1;
        close(sub);
        if (unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
            rc = fail(w, "cannot remove %s: %s", path, strerror(errno));
    }
    closedir(d);
    return rc;
}

int rig__tree_remove(const char *path, char *why, size_t cap) {
    walk w = {why, cap, 0};
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0 && errno == EACCES && chmod(path, 0700) == 0)
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if ((errno == ENOTDIR || errno == ELOOP) && unlink(path) == 0)
            return 0;
        return fail(&w, "cannot remove %s: %s", path, strerror(errno));
    }
    fchmod(fd, 0700);
    w.top_fd = fd;
    int rc;
    unsigned long rounds = 0;
    do {
        w.moved = 0;
        rc = empty_dir(&w, fd, path, 0);
    } while (rc == 0 && w.moved && ++rounds < 100000);
    close(fd);
    if (rmdir(path) != 0 && errno != ENOENT && rc == 0)
        rc = fail(&w, "cannot remove %s: %s", path, strerror(errno));
    return rc;
}
