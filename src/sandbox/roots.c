/* roots.c — confining paths to root directories with the kernel's help.
 *
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) from the root's
 * descriptor resolves the whole path in the kernel and fails with EXDEV the
 * moment it would leave the root, whether by "..", an absolute symlink, a
 * symlink that climbs out, or a rename racing the lookup. The fallback for
 * kernels without openat2 walks one component at a time from the root's
 * descriptor with O_NOFOLLOW, follows symlinks itself (their text spliced
 * into the rest of the path), counts depth so ".." never climbs above the
 * root, and refuses absolute symlink targets, as RESOLVE_BENEATH does.
 * Each step holds a descriptor, so a directory swapped for a symlink after
 * it was checked is never followed: the next step opens from the held
 * descriptor, with O_NOFOLLOW.
 *
 * Per-session roots (a client's roots/list) are views: each a rig_roots of
 * its own, kept by the base in a short list under the base's mutex. A call
 * acquires the view (a reference) and opens through it without any lock,
 * so a session whose roots change mid-call only swaps the base's pointer;
 * the old view closes when its last call releases it. A linear list,
 * because sessions with roots of their own are few (one per client) and a
 * lookup is a handful of string compares beside an open(2). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rig/roots.h"

#define ROOTS_MAX 64
#define LINKS_MAX 40 /* symlinks followed in one lookup, as the kernel's limit */

struct root {
    int fd;        /* O_PATH | O_DIRECTORY */
    char *path;    /* real path */
    char *given;   /* as added, made absolute; NULL when the same */
};

/* A session's own roots. */
struct view {
    struct view *next;
    rig_roots *roots;
    char session[];
};

struct rig_roots {
    struct root roots[ROOTS_MAX];
    size_t n;
    atomic_bool fallback; /* no openat2 (found out, or forced for tests) */
    atomic_int refs;      /* the owner's and each acquire's */
    bool is_view;         /* a session's: has no sessions of its own */
    pthread_mutex_t mu;   /* views */
    struct view *views;
};

rig_roots *rig_roots_new(void)
{
    rig_roots *r = calloc(1, sizeof(rig_roots));
    if (!r)
        return NULL;
    atomic_init(&r->refs, 1);
    atomic_init(&r->fallback, false);
    pthread_mutex_init(&r->mu, NULL);
    return r;
}

void rig_roots_free(rig_roots *r)
{
    if (!r || atomic_fetch_sub(&r->refs, 1) != 1)
        return;
    for (struct view *v = r->views, *next; v; v = next) {
        next = v->next;
        rig_roots_release(v->roots);
        free(v);
    }
    for (size_t i = 0; i < r->n; i++) {
        close(r->roots[i].fd);
        free(r->roots[i].path);
        free(r->roots[i].given);
    }
    pthread_mutex_destroy(&r->mu);
    free(r);
}

void rig_roots_release(rig_roots *r)
{
    rig_roots_free(r);
}

rig_roots *rig_roots_acquire(rig_roots *base, const char *session)
{
    if (!base)
        return NULL;
    rig_roots *r = base;
    if (session && *session && !base->is_view) {
        pthread_mutex_lock(&base->mu);
        for (struct view *v = base->views; v; v = v->next)
            if (strcmp(v->session, session) == 0) {
                r = v->roots;
                break;
            }
        /* Under the lock: a set or drop cannot release the view between
         * finding it and holding it. */
        atomic_fetch_add(&r->refs, 1);
        pthread_mutex_unlock(&base->mu);
        return r;
    }
    atomic_fetch_add(&r->refs, 1);
    return r;
}

size_t rig_roots_count(const rig_roots *r)
{
    return r ? r->n : 0;
}

const char *rig_roots_path(const rig_roots *r, size_t i)
{
    return r && i < r->n ? r->roots[i].path : NULL;
}

void rig_roots_force_fallback(rig_roots *r, bool on)
{
    if (r)
        atomic_store(&r->fallback, on);
}

/* "/a//b/./c/" -> "/a/b/c/" (".." kept: the kernel judges it, and one
 * trailing slash too: "f/" must be a directory). The caller checks the
 * length first, so nothing is cut. */
static void tidy(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < cap;) {
        if (*p == '/') {
            while (*p == '/')
                p++;
            if (p[0] == '.' && (p[1] == '/' || p[1] == '\0')) {
                p++;
                continue;
            }
            out[o++] = '/';
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = '\0';
}

int rig_roots_add(rig_roots *r, const char *dir, rig_error *err)
{
    if (!r || !dir || !*dir)
        return rig_error_set(err, RIG_EINVAL, "A root needs a directory.");
    if (r->n == ROOTS_MAX)
        return rig_error_set(err, RIG_EINVAL, "At most %d roots.", ROOTS_MAX);
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return rig_error_set(err, RIG_EINVAL, "Root '%s' cannot be used: %s.", dir,
                             strerror(errno));
    char real[PATH_MAX];
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, real, sizeof real - 1);
    if (n <= 0 && !realpath(dir, real)) {
        close(fd);
        return rig_error_set(err, RIG_EINVAL, "Root '%s' has no path: %s.", dir, strerror(errno));
    }
    if (n > 0)
        real[n] = '\0';
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->roots[i].path, real) == 0) {
            close(fd);
            return rig_error_set(err, RIG_EEXIST, "'%s' is a root already.", real);
        }
    /* The path as given, made absolute and tidy, for paths that name it so
     * (a root reached through a symlink, say /tmp -> /private/tmp). */
    char abs[PATH_MAX], given[PATH_MAX];
    int w;
    if (dir[0] == '/') {
        w = snprintf(abs, sizeof abs, "%s", dir);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            cwd[0] = '\0';
        w = snprintf(abs, sizeof abs, "%s/%s", cwd, dir);
    }
    if (w < 0 || (size_t)w >= sizeof abs) {
        close(fd);
        return rig_error_set(err, RIG_EINVAL, "Root '%s': the path is too long.", dir);
    }
    tidy(abs, given, sizeof given);
    struct root *ro = &r->roots[r->n];
    ro->fd = fd;
    ro->path = strdup(real);
    ro->given = strcmp(given, real) != 0 && !strstr(given, "/..") ? strdup(given) : NULL;
    if (!ro->path) {
        close(fd);
        free(ro->given);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    r->n++;
    return RIG_OK;
}

/* Is `path` (tidy, absolute) `base` or under it? Then *rest is the part
 * after base ("" for base itself). */
static bool under(const char *path, const char *base, const char **rest)
{
    if (!base)
        return false;
    size_t n = strlen(base);
    if (n == 1) { /* the root "/" */
        *rest = path + 1;
        return true;
    }
    if (strncmp(path, base, n) != 0 || (path[n] != '/' && path[n] != '\0'))
        return false;
    *rest = path[n] ? path + n + 1 : path + n;
    return true;
}

int rig_roots_locate(const rig_roots *r, const char *path, char *rel, size_t cap)
{
    if (!r || !r->n || !path || !*path || cap < 2 || strlen(path) >= PATH_MAX)
        return -1; /* a path that would be cut is no path of ours */
    if (path[0] != '/') {
        if (strlen(path) >= cap)
            return -1;
        snprintf(rel, cap, "%s", path);
        return 0;
    }
    char t[PATH_MAX];
    tidy(path, t, sizeof t);
    /* The longest root that holds it: nested roots pick the inner one. */
    int best = -1;
    size_t best_len = 0;
    const char *best_rest = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const char *bases[2] = {r->roots[i].path, r->roots[i].given};
        for (int b = 0; b < 2; b++) {
            const char *rest;
            if (under(t, bases[b], &rest) && strlen(bases[b]) >= best_len) {
                best = (int)i;
                best_len = strlen(bases[b]);
                best_rest = rest;
            }
        }
    }
    if (best < 0 || strlen(best_rest) >= cap)
        return -1;
    snprintf(rel, cap, "%s", *best_rest ? best_rest : ".");
    return best;
}

static int refuse_outside(const rig_roots *r, const char *path, rig_error *err)
{
    char list[1024] = "";
    size_t o = 0;
    for (size_t i = 0; i < r->n && o + 4 < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "",
                              r->roots[i].path);
    return rig_error_set(err, RIG_EBLOCKED,
                         "Access denied: '%s' is outside the allowed directories (%s). Use a "
                         "path under one of them.",
                         path, list);
}

/* The fallback walk: like openat2 with RESOLVE_BENEATH, by hand. Returns a
 * descriptor or -errno (EXDEV for an escape). */
static int walk(int rootfd, const char *rel, int flags, mode_t mode)
{
    char *todo = strdup(rel); /* what is left to resolve */
    if (!todo)
        return -ENOMEM;
    int stack[PATH_MAX / 2];
    int depth = 0;
    stack[0] = dup(rootfd);
    if (stack[0] < 0) {
        free(todo);
        return -errno;
    }
    int links = 0, result = -EINVAL;
    char *p = todo;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p) { /* the path ended on a directory */
            result = openat(stack[depth], ".", (flags & ~(O_CREAT | O_EXCL)) | O_CLOEXEC);
            result = result < 0 ? -errno : result;
            break;
        }
        char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        char comp[NAME_MAX + 1];
        if (len > NAME_MAX) {
            result = -ENAMETOOLONG;
            break;
        }
        memcpy(comp, p, len);
        comp[len] = '\0';
        char *next = p + len;
        bool last = true;
        for (const char *q = next; *q; q++)
            if (*q != '/') {
                last = false;
                break;
            }
        if (strcmp(comp, ".") == 0) {
            p = next;
            continue;
        }
        if (strcmp(comp, "..") == 0) {
            if (depth == 0) {
                result = -EXDEV; /* above the root */
                break;
            }
            close(stack[depth--]);
            p = next;
            continue;
        }
        int fd;
        if (last && !slash)
            fd = openat(stack[depth], comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
        else
            fd = openat(stack[depth], comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat lst;
        if (fd >= 0 && last && !slash && (flags & O_PATH) && !(flags & O_NOFOLLOW) &&
            fstat(fd, &lst) == 0 && S_ISLNK(lst.st_mode)) {
            close(fd); /* O_PATH|O_NOFOLLOW opened the link itself: follow it */
            fd = -1;
            errno = ELOOP;
        }
        if (fd >= 0) {
            if (last && !slash) {
                result = fd;
                break;
            }
            if (depth + 1 >= (int)(sizeof stack / sizeof *stack)) {
                close(fd);
                result = -ENAMETOOLONG;
                break;
            }
            stack[++depth] = fd;
            p = next;
            continue;
        }
        int e = errno;
        /* A symlink? (O_NOFOLLOW gives ELOOP on one as the last component,
         * ENOTDIR with O_DIRECTORY before it.) */
        struct stat st;
        bool is_link = (e == ELOOP || e == ENOTDIR || e == EMLINK) &&
                       fstatat(stack[depth], comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                       S_ISLNK(st.st_mode);
        if (!is_link || (last && !slash && (flags & O_NOFOLLOW))) {
            result = -e;
            break;
        }
        if (++links > LINKS_MAX) {
            result = -ELOOP;
            break;
        }
        char target[PATH_MAX];
        ssize_t n = readlinkat(stack[depth], comp, target, sizeof target - 1);
        if (n < 0) {
            result = -errno;
            break;
        }
        target[n] = '\0';
        if (target[0] == '/') {
            result = -EXDEV; /* absolute: RESOLVE_BENEATH refuses these too */
            break;
        }
        /* The link's text takes its place in what is left to resolve. */
        size_t rest = strlen(next);
        char *joined = malloc((size_t)n + rest + 2);
        if (!joined) {
            result = -ENOMEM;
            break;
        }
        memcpy(joined, target, (size_t)n);
        memcpy(joined + n, next, rest + 1);
        free(todo);
        todo = p = joined;
    }
    while (depth >= 0)
        close(stack[depth--]);
    free(todo);
    return result;
}

static int open_in(rig_roots *rr, int rootfd, const char *rel, int flags, mode_t mode)
{
    if (!rr->fallback) {
        struct open_how how = {
            .flags = (unsigned long long)(flags | O_CLOEXEC),
            /* O_TMPFILE holds O_DIRECTORY's bit: test it whole. */
            .mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0,
            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
        };
        long fd;
        do
            fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
        while (fd < 0 && (errno == EAGAIN || errno == EINTR));
        if (fd >= 0)
            return (int)fd;
        if (errno == EPERM) /* a seccomp filter that refuses openat2: walk, confined too */
            return walk(rootfd, rel, flags, mode);
        if (errno != ENOSYS)
            return -errno;
        rr->fallback = true; /* an old kernel: walk from now on */
    }
    return walk(rootfd, rel, flags, mode);
}

int rig_roots_open(const rig_roots *r, const char *path, int flags, mode_t mode, int *errno_out,
                   rig_error *err)
{
    if (errno_out)
        *errno_out = 0;
    if (r && !r->n && r->is_view)
        return rig_error_set(err, RIG_ESTATE,
                             "No directory is allowed: none of this session's roots (from "
                             "the client) is a directory here.");
    if (!r || !r->n)
        return rig_error_set(err, RIG_ESTATE, "No directory is allowed: configure a root.");
    if (!path || !*path)
        return rig_error_set(err, RIG_EINVAL, "A path is needed.");
    if (strlen(path) >= PATH_MAX) {
        if (errno_out)
            *errno_out = ENAMETOOLONG;
        return rig_error_set(err, RIG_EINVAL, "The path is too long (%d bytes at most).",
                             PATH_MAX - 1);
    }
    char rel[PATH_MAX];
    int i = rig_roots_locate(r, path, rel, sizeof rel);
    if (i < 0)
        return refuse_outside(r, path, err);
    int fd = open_in((rig_roots *)r, r->roots[i].fd, rel, flags, mode);
    if (fd >= 0)
        return fd;
    int e = -fd;
    if (errno_out)
        *errno_out = e;
    if (e == EXDEV || (e == ELOOP && !(flags & O_NOFOLLOW)))
        return e == EXDEV ? rig_error_set(err, RIG_EBLOCKED,
                                          "Access denied: '%s' leads outside %s (through '..' "
                                          "or a symlink). Use a path that stays inside.",
                                          path, r->roots[i].path)
                          : rig_error_set(err, RIG_EBLOCKED,
                                          "Access denied: '%s' goes through a /proc magic "
                                          "link or too many symbolic links.",
                                          path);
    if (e == ENOENT)
        return rig_error_set(err, RIG_ENOENT, "No such file or directory: '%s'.", path);
    return rig_error_set(err, RIG_EINVAL, "'%s': %s.", path, strerror(e));
}

int rig_roots_open_parent(const rig_roots *r, const char *path, char *leaf, size_t cap,
                          rig_error *err)
{
    if (!path || !*path || !leaf || !cap)
        return rig_error_set(err, RIG_EINVAL, "A path is needed.");
    if (strlen(path) >= PATH_MAX)
        return rig_error_set(err, RIG_EINVAL, "The path is too long (%d bytes at most).",
                             PATH_MAX - 1);
    char t[PATH_MAX];
    tidy(path, t, sizeof t);
    size_t tl = strlen(t);
    while (tl > 1 && t[tl - 1] == '/') /* "dir/" names dir */
        t[--tl] = '\0';
    char rel[PATH_MAX];
    if (r && r->n && rig_roots_locate(r, t, rel, sizeof rel) >= 0 && strcmp(rel, ".") == 0)
        return rig_error_set(err, RIG_EINVAL, "'%s' is a root itself, not a path inside one.",
                             path);
    char *slash = strrchr(t, '/');
    const char *name = slash ? slash + 1 : t;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return rig_error_set(err, RIG_EINVAL, "'%s' names no file or directory to act on.", path);
    if (strlen(name) >= cap)
        return rig_error_set(err, RIG_EINVAL, "'%s': the name is too long.", path);
    snprintf(leaf, cap, "%s", name);
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == t)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - t), t);
    return rig_roots_open(r, dir, O_PATH | O_DIRECTORY, 0, NULL, err);
}

/* ---- per-session roots ------------------------------------------------- */

/* Take `session`'s view out of the base's list (NULL if it has none). */
static rig_roots *unlink_view(rig_roots *r, const char *session, struct view *replacement)
{
    rig_roots *old = NULL;
    pthread_mutex_lock(&r->mu);
    struct view **pp = &r->views;
    while (*pp && strcmp((*pp)->session, session) != 0)
        pp = &(*pp)->next;
    if (*pp) {
        struct view *v = *pp;
        old = v->roots;
        *pp = v->next;
        free(v);
    }
    if (replacement) {
        replacement->next = r->views;
        r->views = replacement;
    }
    pthread_mutex_unlock(&r->mu);
    return old;
}

int rig_roots_set_session(rig_roots *r, const char *session, const char *const *paths,
                          size_t n, rig_error *err)
{
    if (!r || r->is_view || !session || !*session || (n && !paths))
        return rig_error_set(err, RIG_EINVAL, "Session roots need the base roots, a session "
                                              "name and the paths.");
    if (n == 0) {
        rig_roots_drop_session(r, session);
        return 0;
    }
    /* The new view is built whole, away from the lock; calls see the old
     * one or the new one, never half of either. */
    rig_roots *view = rig_roots_new();
    struct view *v = malloc(sizeof *v + strlen(session) + 1);
    if (!view || !v) {
        rig_roots_free(view);
        free(v);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    }
    view->is_view = true;
    atomic_store(&view->fallback, atomic_load(&r->fallback));
    v->roots = view;
    strcpy(v->session, session);
    char skipped[RIG_ERROR_MESSAGE_MAX] = "";
    size_t o = 0, nskipped = 0;
    for (size_t i = 0; i < n; i++) {
        rig_error e = {0};
        const char *p = paths[i];
        int rc = !p || p[0] != '/'
                     ? rig_error_set(&e, RIG_EINVAL, "Root '%s' is not an absolute path.",
                                     p ? p : "(null)")
                     : rig_roots_add(view, p, &e);
        if (rc == RIG_ENOMEM) {
            rig_roots_free(view);
            free(v);
            return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        }
        if (rc == RIG_OK || rc == RIG_EEXIST)
            continue;
        nskipped++;
        size_t room = sizeof skipped - o; /* the first reasons; err cuts the rest anyway */
        int w = snprintf(skipped + o, room, "%s%s", o ? " " : "", e.message);
        if (w > 0)
            o += (size_t)w < room ? (size_t)w : room - 1;
    }
    int accepted = (int)view->n;
    rig_roots_release(unlink_view(r, session, v));
    if (nskipped)
        rig_error_set(err, RIG_EINVAL, "%zu of %zu roots skipped: %s", nskipped, n, skipped);
    else
        rig_error_clear(err);
    return accepted;
}

void rig_roots_drop_session(rig_roots *r, const char *session)
{
    if (!r || r->is_view || !session)
        return;
    rig_roots_release(unlink_view(r, session, NULL));
}

size_t rig_roots_sessions(rig_roots *r)
{
    if (!r || r->is_view)
        return 0;
    size_t n = 0;
    pthread_mutex_lock(&r->mu);
    for (struct view *v = r->views; v; v = v->next)
        n++;
    pthread_mutex_unlock(&r->mu);
    return n;
}
