/* fs_write.c — `write_file`, `create_directory` and `move_file`, confined
 * to the roots (rig/roots.h).
 *
 * Every change is made with *at() calls relative to the confined parent
 * directory rig_roots_open_parent gives, the last component opened with
 * O_NOFOLLOW, so no path is resolved outside the roots.
 *
 * write_file replaces a file atomically: the content goes to a temporary
 * file in the same directory (an unnamed O_TMPFILE given a name with
 * linkat once complete, or else a unique name opened O_CREAT|O_EXCL|
 * O_NOFOLLOW), which is fsync'd, given the old file's mode (and owner
 * where permitted) and renamed over the target. On any failure the target
 * is untouched and the temporary removed. A leaf that is a symlink inside
 * the roots is written through: its target, resolved confined, is
 * replaced and the link kept. append=true writes with O_APPEND, looping
 * until every byte is written; on failure (a full disk) the file is cut
 * back to its old size, so nothing of the content is left half-appended.
 *
 * move_file renames with RENAME_NOREPLACE unless overwrite=true; across
 * file systems (EXDEV) a regular file is copied the same atomic way and
 * the source unlinked. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "tools/builtins.h"
#include "tools/fs.h"

#define COPY_CHUNK (64 * 1024)
#define MAKE_DIRS_MAX 256 /* components mkdir -p may create */

/* ---- seams for tests ---------------------------------------------------- */

static rig__fs_write_fn write_fn = write;
static bool use_tmpfile = true;

void rig__fs_set_write_fn(rig__fs_write_fn fn)
{
    write_fn = fn ? fn : write;
}

void rig__fs_set_tmpfile(bool on)
{
    use_tmpfile = on;
}

/* ---- small helpers ------------------------------------------------------ */

/* Write all `n` bytes; 0, or the errno, with *done the bytes written. */
static int write_all(int fd, const void *p, size_t n, size_t *done)
{
    size_t off = 0;
    int e = 0;
    while (off < n) {
        ssize_t k = write_fn(fd, (const char *)p + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            e = errno;
            break;
        }
        if (k == 0) {
            e = EIO;
            break;
        }
        off += (size_t)k;
    }
    if (done)
        *done += off;
    return e;
}

/* What a file's new bytes come from: memory, or a descriptor read from 0. */
typedef struct source {
    const char *buf;
    size_t len;
    int fd; /* >= 0: copy this file instead of buf */
} source;

static int write_source(int fd, const source *s, size_t *done)
{
    if (s->fd < 0)
        return write_all(fd, s->buf, s->len, done);
    char *chunk = malloc(COPY_CHUNK);
    if (!chunk)
        return ENOMEM;
    int e = 0;
    off_t at = 0;
    for (;;) {
        ssize_t n = pread(s->fd, chunk, COPY_CHUNK, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = errno;
            break;
        }
        if (n == 0)
            break;
        at += n;
        if ((e = write_all(fd, chunk, (size_t)n, done)) != 0)
            break;
    }
    free(chunk);
    return e;
}

/* A temporary name for `leaf`, unique enough with O_EXCL retries. */
static void temp_name(const char *leaf, char *out, size_t cap)
{
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned v = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16) ^
                 __atomic_add_fetch(&counter, 0x9e3779b9u, __ATOMIC_RELAXED);
    snprintf(out, cap, ".%.200s.rig-%08x", leaf, v);
}

/* The lexical parent of `path` ("." for a single relative component). */
static void parent_of(const char *path, char *out, size_t cap)
{
    snprintf(out, cap, "%s", path);
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/')
        out[--n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else if (slash == out)
        out[1] = '\0';
    else {
        *slash = '\0';
        n = strlen(out);
        while (n > 1 && out[n - 1] == '/')
            out[--n] = '\0';
    }
}

/* fsync a directory given by an O_PATH descriptor; best effort. */
static void sync_dir(int pfd)
{
    int d = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d >= 0) {
        fsync(d);
        close(d);
    }
}

/* ---- atomic replace ----------------------------------------------------- */

typedef struct put_opts {
    bool replacing;    /* keep the mode and owner below */
    mode_t mode;
    uid_t uid;
    gid_t gid;
    bool noreplace;    /* fail with EEXIST rather than replace */
} put_opts;

/* Give the complete temporary file `tfd` its mode and owner and sync it. */
static int finish_temp(int tfd, const put_opts *o, const char **stage)
{
    if (o->replacing) {
        *stage = "setting the mode of";
        if (fchmod(tfd, o->mode & 07777) != 0)
            return errno;
        struct stat st;
        if (fstat(tfd, &st) == 0 && (st.st_uid != o->uid || st.st_gid != o->gid)) {
            /* Only where permitted; then chown cleared set-id bits: again. */
            if (fchown(tfd, o->uid, o->gid) == 0)
                (void)fchmod(tfd, o->mode & 07777);
        }
    }
    *stage = "syncing";
    if (fsync(tfd) != 0)
        return errno;
    return 0;
}

/* Rename temporary `tmp` to `leaf` in `pfd`. */
static int install(int pfd, const char *tmp, const char *leaf, bool noreplace)
{
    if (renameat2(pfd, tmp, pfd, leaf, noreplace ? RENAME_NOREPLACE : 0) == 0)
        return 0;
    int e = errno;
    if (!noreplace || (e != EINVAL && e != ENOSYS))
        return e;
    /* No RENAME_NOREPLACE here: link (which never replaces), then unlink. */
    if (linkat(pfd, tmp, pfd, leaf, 0) != 0)
        return errno;
    unlinkat(pfd, tmp, 0);
    return 0;
}

/* Put `s` at `leaf` in directory `pfd`, atomically. 0 or an errno, with
 * *stage saying what failed; *written counts the bytes written. */
static int atomic_put(int pfd, const char *leaf, const source *s, const put_opts *o,
                      size_t *written, const char **stage)
{
    mode_t create_mode = o->replacing ? 0600 : 0666;
    char tmp[NAME_MAX + 1];
    int e;
    if (use_tmpfile) {
        int tfd = openat(pfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, create_mode);
        if (tfd >= 0) {
            *written = 0;
            *stage = "writing";
            e = write_source(tfd, s, written);
            if (!e)
                e = finish_temp(tfd, o, stage);
            if (e) {
                close(tfd); /* never had a name: nothing to remove */
                return e;
            }
            char proc[64];
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", tfd);
            bool linked = false;
            for (int tries = 0; tries < 100; tries++) {
                temp_name(leaf, tmp, sizeof tmp);
                int r = linkat(AT_FDCWD, proc, pfd, tmp, AT_SYMLINK_FOLLOW);
                if (r != 0 && errno == ENOENT) /* no /proc: needs CAP_DAC_READ_SEARCH */
                    r = linkat(tfd, "", pfd, tmp, AT_EMPTY_PATH);
                if (r == 0) {
                    linked = true;
                    break;
                }
                if (errno != EEXIST)
                    break;
            }
            close(tfd);
            if (linked) {
                *stage = "renaming over";
                e = install(pfd, tmp, leaf, o->noreplace);
                if (e) {
                    unlinkat(pfd, tmp, 0);
                    return e;
                }
                sync_dir(pfd);
                return 0;
            }
            /* Could not name it: write again to a named temporary. */
        } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL &&
                   errno != ENOENT) {
            *stage = "creating a temporary file beside";
            return errno;
        }
    }
    int tfd = -1;
    for (int tries = 0; tries < 100; tries++) {
        temp_name(leaf, tmp, sizeof tmp);
        tfd = openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, create_mode);
        if (tfd >= 0 || errno != EEXIST)
            break;
    }
    if (tfd < 0) {
        *stage = "creating a temporary file beside";
        return errno;
    }
    *written = 0;
    *stage = "writing";
    e = write_source(tfd, s, written);
    if (!e)
        e = finish_temp(tfd, o, stage);
    close(tfd);
    if (!e) {
        *stage = "renaming over";
        e = install(pfd, tmp, leaf, o->noreplace);
    }
    if (e) {
        unlinkat(pfd, tmp, 0);
        return e;
    }
    sync_dir(pfd);
    return 0;
}

int rig__fs_replace(int pfd, const char *leaf, const char *buf, size_t len,
                    const struct stat *old, const char **stage)
{
    source s = {buf, len, -1};
    put_opts o = {.replacing = true, .mode = old->st_mode, .uid = old->st_uid, .gid = old->st_gid};
    size_t written = 0;
    const char *dummy = "writing";
    return atomic_put(pfd, leaf, &s, &o, &written, stage ? stage : &dummy);
}

/* ---- mkdir -p ----------------------------------------------------------- */

/* Make `path` and its missing parents, each with mkdirat in its confined
 * parent. Returns how many were created (0: it existed), or -1 with the
 * reason in `why`. */
static int make_dirs(rig_roots *roots, const char *path, int depth, char *why, size_t cap)
{
    int e = 0;
    rig_error err = {0};
    int fd = rig_roots_open(roots, path, O_PATH | O_DIRECTORY, 0, &e, &err);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    if (e == ENOTDIR) {
        /* Is this one a file, or something above it? */
        struct stat st;
        int f = rig_roots_open(roots, path, O_PATH, 0, NULL, &(rig_error){0});
        if (f >= 0) {
            bool file = fstat(f, &st) == 0 && !S_ISDIR(st.st_mode);
            close(f);
            if (file) {
                snprintf(why, cap, "'%s' exists and is a file, not a directory.", path);
                return -1;
            }
        }
    } else if (e != ENOENT) {
        snprintf(why, cap, "%s", err.message);
        return -1;
    }
    if (depth >= MAKE_DIRS_MAX) {
        snprintf(why, cap, "'%s' has too many missing directories to create.", path);
        return -1;
    }
    char parent[PATH_MAX];
    parent_of(path, parent, sizeof parent);
    int made = 0;
    if (strcmp(parent, path) != 0) {
        made = make_dirs(roots, parent, depth + 1, why, cap);
        if (made < 0)
            return -1;
    }
    char leaf[NAME_MAX + 1];
    int pfd = rig_roots_open_parent(roots, path, leaf, sizeof leaf, &err);
    if (pfd < 0) {
        snprintf(why, cap, "%s", err.message);
        return -1;
    }
    int r = mkdirat(pfd, leaf, 0777);
    int me = errno;
    close(pfd);
    if (r == 0)
        return made + 1;
    if (me == EEXIST) { /* made meanwhile, or a link: is it a directory now? */
        fd = rig_roots_open(roots, path, O_PATH | O_DIRECTORY, 0, &e, &err);
        if (fd >= 0) {
            close(fd);
            return made;
        }
        snprintf(why, cap, "'%s' exists and is not a directory%s.", path,
                 e == ENOENT ? " (a broken symbolic link)" : "");
        return -1;
    }
    snprintf(why, cap, "Creating the directory '%s' failed: %s.", path, strerror(me));
    return -1;
}

/* ---- write_file --------------------------------------------------------- */

/* The real path of the file a symlink `path` leads to, confined. NULL
 * result: ok (into real); else the error result. */
static rig_result *resolve_link(rig_roots *roots, const char *path, char *real, size_t cap)
{
    int e = 0;
    rig_error err = {0};
    int fd = rig_roots_open(roots, path, O_PATH, 0, &e, &err);
    if (fd < 0) {
        if (e == ENOENT)
            return rig_result_error("'%s' is a symbolic link to a file that does not exist. "
                                    "Write to the path it should name instead.",
                                    path);
        return rig_result_error("%s", err.message);
    }
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, real, cap - 1);
    close(fd);
    if (n <= 0 || real[0] != '/')
        return rig_result_error("'%s' is a symbolic link whose target cannot be found out here. "
                                "Write to the file it leads to by its own path.",
                                path);
    real[n] = '\0';
    return NULL;
}

static rig_result *do_write(rig_call *call, rig_roots *roots, const char *shown, const char *path,
                            const char *content, size_t len, int hops)
{
    bool append = rig_call_bool(call, "append", false);
    char leaf[NAME_MAX + 1];
    rig_error err = {0};
    int pfd = rig_roots_open_parent(roots, path, leaf, sizeof leaf, &err);
    if (pfd < 0) {
        if (err.code == RIG_ENOENT)
            return rig_result_error("The directory that should hold '%s' does not exist. Call "
                                    "write_file with create_parents=true, or create_directory "
                                    "first.",
                                    shown);
        return rig_result_error("%s", err.message);
    }
    struct stat st;
    bool exists = fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists && errno != ENOENT) {
        int e = errno;
        close(pfd);
        return rig_result_error("'%s': %s.", shown, strerror(e));
    }
    if (exists && S_ISLNK(st.st_mode)) {
        close(pfd);
        if (hops > 0)
            return rig_result_error("'%s' leads through too many symbolic links.", shown);
        char real[PATH_MAX];
        rig_result *bad = resolve_link(roots, path, real, sizeof real);
        if (bad)
            return bad;
        return do_write(call, roots, shown, real, content, len, hops + 1);
    }
    if (exists && S_ISDIR(st.st_mode)) {
        close(pfd);
        return rig_result_error("'%s' is a directory, not a file. Pick a file path inside it.",
                                shown);
    }
    if (exists && !S_ISREG(st.st_mode)) {
        close(pfd);
        return rig_result_error("'%s' is not a regular file (a device, pipe or socket); "
                                "write_file writes regular files only.",
                                shown);
    }

    rig_result *r;
    if (append) {
        int fd = openat(pfd, leaf, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
                                       O_NOCTTY | O_CLOEXEC,
                        0666);
        if (fd < 0) {
            int e = errno;
            close(pfd);
            return rig_result_error("Opening '%s' to append failed: %s.", shown, strerror(e));
        }
        struct stat now;
        if (fstat(fd, &now) != 0 || !S_ISREG(now.st_mode)) {
            close(fd);
            close(pfd);
            return rig_result_error("'%s' is not a regular file; write_file appends to regular "
                                    "files only.",
                                    shown);
        }
        off_t before = now.st_size;
        size_t done = 0;
        int e = write_all(fd, content, len, &done);
        if (!e && fsync(fd) != 0)
            e = errno;
        off_t size = fstat(fd, &now) == 0 ? now.st_size : -1;
        /* All or nothing: on failure cut the file back to its old size,
         * unless someone else appended meanwhile (the size says so). */
        bool undone = e && size == before + (off_t)done &&
                      (done == 0 || ftruncate(fd, before) == 0);
        close(fd);
        if (undone && !exists && before == 0)
            unlinkat(pfd, leaf, 0); /* created by this call, and empty */
        close(pfd);
        if (e && undone)
            return rig_result_error("Appending to '%s' failed: %s. Nothing was appended: %s",
                                    shown, strerror(e),
                                    exists ? "the file is as it was." : "no file was created.");
        if (e)
            return rig_result_error("Appending to '%s' failed after %zu of %zu bytes were "
                                    "written: %s. The file now ends with those %zu bytes; check "
                                    "it before trying again.",
                                    shown, done, len, strerror(e), done);
        r = rig_result_new();
        if (exists)
            rig_result_textf(r, "Appended %zu bytes to '%s' (now %lld bytes).", len, shown,
                             (long long)size);
        else
            rig_result_textf(r, "Created '%s' and appended %zu bytes.", shown, len);
        return r;
    }

    source s = {content, len, -1};
    put_opts o = {0};
    if (exists) {
        o.replacing = true;
        o.mode = st.st_mode;
        o.uid = st.st_uid;
        o.gid = st.st_gid;
    }
    size_t written = 0;
    const char *stage = "writing";
    int e = atomic_put(pfd, leaf, &s, &o, &written, &stage);
    close(pfd);
    if (e)
        return rig_result_error("Writing '%s' failed while %s it: %s (%zu of %zu bytes were "
                                "written to a temporary file, now removed). %s",
                                shown, stage, strerror(e), written, len,
                                exists ? "The original file is unchanged."
                                       : "No file was created.");
    r = rig_result_new();
    if (exists)
        rig_result_textf(r, "Replaced '%s': wrote %zu bytes (it had %lld).", shown, len,
                         (long long)st.st_size);
    else
        rig_result_textf(r, "Created '%s': wrote %zu bytes.", shown, len);
    return r;
}

static rig_result *write_file_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *write_file_run(rig_call *call)
{
    return rig__fs_with_roots(call, write_file_run_in);
}

static rig_result *write_file_run_in(rig_call *call, rig_roots *roots)
{
    const char *path = rig_call_str(call, "path", NULL);
    size_t len = 0;
    const char *content = rig_call_str(call, "content", &len);
    if (!path || !*path)
        return rig_result_error("A path is needed: call write_file with the file's path.");
    if (!content)
        return rig_result_error("Content is needed: call write_file with the text to write.");
    int made = 0;
    if (rig_call_bool(call, "create_parents", false)) {
        char parent[PATH_MAX], why[PATH_MAX + 256];
        parent_of(path, parent, sizeof parent);
        made = make_dirs(roots, parent, 0, why, sizeof why);
        if (made < 0)
            return rig_result_error("%s", why);
    }
    rig_result *r = do_write(call, roots, path, path, content, len, 0);
    if (made > 0 && !rig_result_is_error(r))
        rig_result_textf(r, "Created %d parent director%s.", made, made == 1 ? "y" : "ies");
    return r;
}

static const rig_builtin_spec write_file_spec = {
    .name = "write_file",
    .title = "Write a file",
    .description =
        "Write a file inside the allowed directories: create it, or replace its whole content "
        "atomically (the old content stays intact if anything fails; its permissions are "
        "kept). append=true adds the content to the end instead. create_parents=true first "
        "creates missing parent directories. A symbolic link is written through to its "
        "target when that stays inside the allowed directories. To change part of a file, "
        "read it first and write the whole new content.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The file to write: "
        "absolute, or relative to the first allowed directory.\"},"
        "\"content\":{\"type\":\"string\",\"description\":\"The complete new content (or, "
        "with append, the text to add).\"},"
        "\"append\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Add the content "
        "to the end of the file instead of replacing it.\"},"
        "\"create_parents\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Create "
        "missing parent directories first.\"}},"
        "\"required\":[\"path\",\"content\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_FALSE,
                    .destructive = RIG_HINT_TRUE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = write_file_run,
};

rig_tool *rig__write_file_tool_new(rig_roots *roots, rig_error *err)
{
    return rig__fs_tool_new(&write_file_spec, roots, err);
}

/* ---- create_directory --------------------------------------------------- */

static rig_result *create_directory_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *create_directory_run(rig_call *call)
{
    return rig__fs_with_roots(call, create_directory_run_in);
}

static rig_result *create_directory_run_in(rig_call *call, rig_roots *roots)
{
    const char *path = rig_call_str(call, "path", NULL);
    if (!path || !*path)
        return rig_result_error("A path is needed: call create_directory with the directory's "
                                "path.");
    char why[PATH_MAX + 256];
    int made = make_dirs(roots, path, 0, why, sizeof why);
    if (made < 0)
        return rig_result_error("%s", why);
    rig_result *r = rig_result_new();
    if (made == 0)
        rig_result_textf(r, "The directory '%s' already existed.", path);
    else if (made == 1)
        rig_result_textf(r, "Created the directory '%s'.", path);
    else
        rig_result_textf(r, "Created the directory '%s' (%d directories in all).", path, made);
    return r;
}

static const rig_builtin_spec create_directory_spec = {
    .name = "create_directory",
    .title = "Create a directory",
    .description =
        "Create a directory inside the allowed directories, with any missing parents (like "
        "mkdir -p). A directory that already exists is fine; a file in the way is an error.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The directory to "
        "create: absolute, or relative to the first allowed directory.\"}},"
        "\"required\":[\"path\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_FALSE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_TRUE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = create_directory_run,
};

rig_tool *rig__create_directory_tool_new(rig_roots *roots, rig_error *err)
{
    return rig__fs_tool_new(&create_directory_spec, roots, err);
}

/* ---- move_file ---------------------------------------------------------- */

/* Across file systems: copy the regular file atomically, then unlink. */
static rig_result *move_by_copy(int spfd, const char *sleaf, int dpfd, const char *dleaf,
                                const char *src, const char *dst, const struct stat *sst,
                                bool overwrite)
{
    if (S_ISDIR(sst->st_mode))
        return rig_result_error("'%s' is a directory and '%s' is on another file system; "
                                "move_file moves only files across file systems. Create the "
                                "directory there and move its files one by one.",
                                src, dst);
    if (!S_ISREG(sst->st_mode))
        return rig_result_error("'%s' is not a regular file and '%s' is on another file system; "
                                "move_file copies only regular files across file systems.",
                                src, dst);
    int fd = openat(spfd, sleaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return rig_result_error("Opening '%s' to copy it failed: %s.", src, strerror(errno));
    source s = {NULL, 0, fd};
    put_opts o = {.replacing = true,
                  .mode = sst->st_mode,
                  .uid = sst->st_uid,
                  .gid = sst->st_gid,
                  .noreplace = !overwrite};
    size_t written = 0;
    const char *stage = "writing";
    int e = atomic_put(dpfd, dleaf, &s, &o, &written, &stage);
    close(fd);
    if (e == EEXIST)
        return rig_result_error("'%s' already exists. Call move_file with overwrite=true to "
                                "replace it, or choose another destination.",
                                dst);
    if (e)
        return rig_result_error("Copying '%s' to '%s' (another file system) failed while %s "
                                "it: %s. Nothing was moved; '%s' is unchanged.",
                                src, dst, stage, strerror(e), src);
    if (unlinkat(spfd, sleaf, 0) != 0)
        return rig_result_error("'%s' was copied to '%s' (another file system), but removing "
                                "the original failed: %s. Both now exist.",
                                src, dst, strerror(errno));
    rig_result *r = rig_result_new();
    rig_result_textf(r, "Moved '%s' to '%s' (copied %zu bytes across file systems).", src, dst,
                     written);
    return r;
}

static rig_result *move_file_run_in(rig_call *call, rig_roots *roots);

/* In the roots of the call's session, held for the whole call (fs.c). */
static rig_result *move_file_run(rig_call *call)
{
    return rig__fs_with_roots(call, move_file_run_in);
}

static rig_result *move_file_run_in(rig_call *call, rig_roots *roots)
{
    const char *src = rig_call_str(call, "source", NULL);
    const char *dst = rig_call_str(call, "destination", NULL);
    bool overwrite = rig_call_bool(call, "overwrite", false);
    if (!src || !*src || !dst || !*dst)
        return rig_result_error("move_file needs a source and a destination path.");
    char sleaf[NAME_MAX + 1], dleaf[NAME_MAX + 1];
    rig_error err = {0};
    int spfd = rig_roots_open_parent(roots, src, sleaf, sizeof sleaf, &err);
    if (spfd < 0) {
        if (err.code == RIG_ENOENT)
            return rig_result_error("No such file or directory: '%s'. Check the source path.",
                                    src);
        return rig_result_error("%s", err.message);
    }
    struct stat sst;
    if (fstatat(spfd, sleaf, &sst, AT_SYMLINK_NOFOLLOW) != 0) {
        int e = errno;
        close(spfd);
        if (e == ENOENT)
            return rig_result_error("No such file or directory: '%s'. Check the source path.",
                                    src);
        return rig_result_error("'%s': %s.", src, strerror(e));
    }
    int dpfd = rig_roots_open_parent(roots, dst, dleaf, sizeof dleaf, &err);
    if (dpfd < 0) {
        close(spfd);
        if (err.code == RIG_ENOENT)
            return rig_result_error("The directory that should hold '%s' does not exist. Call "
                                    "create_directory first.",
                                    dst);
        return rig_result_error("%s", err.message);
    }
    struct stat dst_st;
    bool replaced = fstatat(dpfd, dleaf, &dst_st, AT_SYMLINK_NOFOLLOW) == 0;
    rig_result *r = NULL;
    int rc = renameat2(spfd, sleaf, dpfd, dleaf, overwrite ? 0 : RENAME_NOREPLACE);
    int e = rc == 0 ? 0 : errno;
    if (rc != 0 && !overwrite && (e == EINVAL || e == ENOSYS) && !replaced) {
        /* No RENAME_NOREPLACE on this file system. A file: link then unlink
         * never replaces; a directory: checked just above, renamed now. */
        if (!S_ISDIR(sst.st_mode)) {
            rc = linkat(spfd, sleaf, dpfd, dleaf, 0);
            if (rc == 0)
                unlinkat(spfd, sleaf, 0);
        } else {
            rc = renameat(spfd, sleaf, dpfd, dleaf);
        }
        e = rc == 0 ? 0 : errno;
    } else if (rc != 0 && !overwrite && (e == EINVAL || e == ENOSYS) && replaced) {
        e = EEXIST;
    }
    if (rc == 0) {
        sync_dir(dpfd);
        r = rig_result_new();
        if (replaced && overwrite)
            rig_result_textf(r, "Moved '%s' to '%s', replacing what was there.", src, dst);
        else
            rig_result_textf(r, "Moved '%s' to '%s'.", src, dst);
    } else if (e == EXDEV) {
        r = move_by_copy(spfd, sleaf, dpfd, dleaf, src, dst, &sst, overwrite);
    } else if (e == EEXIST || (e == ENOTEMPTY && !overwrite)) {
        r = rig_result_error("'%s' already exists. Call move_file with overwrite=true to "
                             "replace it, or choose another destination.",
                             dst);
    } else if (e == ENOTEMPTY) {
        r = rig_result_error("'%s' is a directory that is not empty; it cannot be replaced.",
                             dst);
    } else if (e == EISDIR) {
        r = rig_result_error("'%s' is a directory; a file cannot replace it.", dst);
    } else if (e == ENOTDIR) {
        r = rig_result_error("'%s' is not a directory; a directory cannot replace it.", dst);
    } else if (e == EINVAL && S_ISDIR(sst.st_mode)) {
        r = rig_result_error("'%s' cannot be moved into itself ('%s').", src, dst);
    } else {
        r = rig_result_error("Moving '%s' to '%s' failed: %s.", src, dst, strerror(e));
    }
    close(spfd);
    close(dpfd);
    return r;
}

static const rig_builtin_spec move_file_spec = {
    .name = "move_file",
    .title = "Move or rename a file",
    .description =
        "Move or rename a file or directory inside the allowed directories. The destination "
        "is the full new path (not a directory to move into) and its directory must exist. An "
        "existing destination is refused unless overwrite=true. Across file systems a file is "
        "copied then removed; a directory cannot be moved across file systems.",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"source\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The file or "
        "directory to move: absolute, or relative to the first allowed directory.\"},"
        "\"destination\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Its new "
        "path, including the name.\"},"
        "\"overwrite\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Replace an "
        "existing destination.\"}},"
        "\"required\":[\"source\",\"destination\"],\"additionalProperties\":false}",
    .annotations = {.read_only = RIG_HINT_FALSE,
                    .destructive = RIG_HINT_TRUE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0,
    .fn = move_file_run,
};

rig_tool *rig__move_file_tool_new(rig_roots *roots, rig_error *err)
{
    return rig__fs_tool_new(&move_file_spec, roots, err);
}
