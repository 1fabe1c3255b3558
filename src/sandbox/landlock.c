/* landlock.c — a Landlock domain that lets a shell command write only
 * beneath given directories (see landlock.h for the fork protocol).
 *
 * Only write-side rights are handled, so reading, executing and listing
 * stay allowed everywhere without a rule, and everything Landlock does not
 * know about (the network rights of ABI 4, the scopes of ABI 6) stays
 * open: the ruleset attribute we pass stops at handled_access_fs, and the
 * kernel reads the fields it is not given as zero. The rights handled grow
 * with the ABI the kernel reports, because a ruleset naming a right the
 * kernel does not know is refused (EINVAL):
 *
 *   ABI 1  write, remove, make (reg, dir, sym, fifo, sock, char, block)
 *   ABI 2  REFER: renames and links between directories (on ABI 1 they are
 *          always refused across directories, which is stricter, not looser)
 *   ABI 3  TRUNCATE: truncate(2) and O_TRUNC
 *   ABI 5  IOCTL_DEV: ioctl on device files opened inside the domain
 *
 * The constants are ours, not <linux/landlock.h>'s, because the kernel
 * fixes their values while the installed header may be older than the
 * kernel (this machine's stops at ABI 2) or missing; where the header has
 * one, a static assertion checks that we agree. */
#define _GNU_SOURCE
#include "sandbox/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#endif
#endif

/* The same number on every architecture (the unified syscall table). */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_FS_READ (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_NET_BIND_TCP (1ULL << 0)     /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)  /* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */

#ifdef LANDLOCK_ACCESS_FS_MAKE_SYM
_Static_assert(LANDLOCK_ACCESS_FS_WRITE_FILE == LL_FS_WRITE_FILE &&
                   LANDLOCK_ACCESS_FS_MAKE_SYM == LL_FS_MAKE_SYM &&
                   LANDLOCK_RULE_PATH_BENEATH == LL_RULE_PATH_BENEATH &&
                   LANDLOCK_CREATE_RULESET_VERSION == LL_CREATE_RULESET_VERSION,
               "Landlock constants disagree with <linux/landlock.h>");
#endif
#ifdef LANDLOCK_ACCESS_FS_REFER
_Static_assert(LANDLOCK_ACCESS_FS_REFER == LL_FS_REFER, "REFER");
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
_Static_assert(LANDLOCK_ACCESS_FS_TRUNCATE == LL_FS_TRUNCATE, "TRUNCATE");
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
_Static_assert(LANDLOCK_ACCESS_FS_IOCTL_DEV == LL_FS_IOCTL_DEV, "IOCTL_DEV");
#endif

/* The ruleset attribute as ABI 6 has it. The size passed says how much of
 * it the kernel reads: ABI 1's handled_access_fs alone for the write
 * sandbox (so nothing but the file system is restricted on any kernel),
 * more only for an isolated domain on a kernel that knows the fields. */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};
#define LL_ATTR_SIZE_V1 8
#define LL_ATTR_SIZE_V4 16
#define LL_ATTR_SIZE_V6 24

/* What an isolated command may read (and execute): the system, not the
 * rest of the machine. /run (daemons' sockets), /home, /root, /srv, /var,
 * /mnt and /tmp are left out; a missing one is skipped. */
static const char *const system_dirs[] = {"/usr",  "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                          "/libx32", "/etc", "/opt", "/dev", "/proc", "/sys"};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* Rights that may be granted on a file rather than a directory. */
#define LL_FILE_RIGHTS (LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

/* Devices every command may write: sinks and sources that hold nothing.
 * Not /dev/tty nor the ptys under /dev/pts: writing there would let a command paint over
 * the terminal in which a person approves the agent's next command. */
static const char *const sink_devices[] = {"/dev/null", "/dev/zero", "/dev/full"};

static long ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size, uint32_t flags) {
    return syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

int rig__landlock_abi(void) {
    long abi = ll_create_ruleset(NULL, 0, LL_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

static uint64_t handled_for(int abi) {
    uint64_t h = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR |
                 LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO |
                 LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM;
    if (abi >= 2)
        h |= LL_FS_REFER;
    if (abi >= 3)
        h |= LL_FS_TRUNCATE;
    if (abi >= 5)
        h |= LL_FS_IOCTL_DEV;
    return h;
}

static int add_rule(int rs, int fd, uint64_t allowed) {
    struct ll_path_beneath_attr pb = {.allowed_access = allowed, .parent_fd = fd};
    return (int)syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb, 0);
}

/* Grants the sink devices' writes. A device that is missing, or is not a
 * character device (a container may put a plain file there, and writing it
 * would be writing outside the roots), is left out: commands that write
 * there fail, which is safe. */
static int allow_sinks(int rs, uint64_t handled, char *why, size_t cap) {
    for (size_t i = 0; i < sizeof sink_devices / sizeof *sink_devices; i++) {
        int fd = open(sink_devices[i], O_PATH | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
            add_rule(rs, fd, handled & LL_FILE_RIGHTS) != 0) {
            snprintf(why, cap, "landlock: cannot allow writes to %s: %s", sink_devices[i],
                     strerror(errno));
            close(fd);
            return -1;
        }
        close(fd);
    }
    return 0;
}

static int open_dir(const char *path, char *why, size_t cap) {
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        snprintf(why, cap, "landlock: cannot open the writable directory %s: %s", path,
                 errno == ENOTDIR ? "not a directory" : strerror(errno));
    return fd;
}

int rig__landlock_prepare(const char *const *write_dirs, size_t n, int *ruleset_fd, char *why,
                          size_t cap) {
    return rig__landlock_prepare_ex(write_dirs, n, false, ruleset_fd, why, cap);
}

/* Grants reading and executing beneath the system directories. */
static int allow_system(int rs, char *why, size_t cap) {
    for (size_t i = 0; i < sizeof system_dirs / sizeof *system_dirs; i++) {
        int fd = open(system_dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (add_rule(rs, fd, LL_FS_READ) != 0) {
            snprintf(why, cap, "landlock: cannot allow reads beneath %s: %s", system_dirs[i],
                     strerror(errno));
            close(fd);
            return -1;
        }
        close(fd);
    }
    return 0;
}

int rig__landlock_prepare_ex(const char *const *write_dirs, size_t n, bool isolate,
                             int *ruleset_fd, char *why, size_t cap) {
    *ruleset_fd = -1;
    if (cap)
        why[0] = '\0';
    if (n && !write_dirs) {
        snprintf(why, cap, "landlock: %zu writable directories but no list", n);
        return -1;
    }

    int absent = 0, rs = -1;
    uint64_t handled = 0;
    long abi = ll_create_ruleset(NULL, 0, LL_CREATE_RULESET_VERSION);
    if (abi <= 0) {
        /* ENOSYS: not built in; EOPNOTSUPP: built in but not enabled
         * (lsm= at boot). Anything else is a surprise worth failing on. */
        if (errno != ENOSYS && errno != EOPNOTSUPP) {
            snprintf(why, cap, "landlock: cannot query the ABI version: %s", strerror(errno));
            return -1;
        }
        absent = errno;
    } else {
        handled = handled_for((int)abi);
        struct ll_ruleset_attr attr = {.handled_access_fs = handled};
        size_t size = LL_ATTR_SIZE_V1;
        if (isolate) {
            attr.handled_access_fs |= LL_FS_READ;
            if (abi >= 4) {
                attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
                size = LL_ATTR_SIZE_V4;
            }
            if (abi >= 6) {
                attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
                size = LL_ATTR_SIZE_V6;
            }
        }
        rs = (int)ll_create_ruleset(&attr, size, 0);
        if (rs < 0) {
            snprintf(why, cap, "landlock: cannot create a ruleset (ABI %ld): %s", abi,
                     strerror(errno));
            return -1;
        }
    }

    /* The directories are opened without Landlock too, so a bad one is an
     * error on every kernel rather than only where it would be enforced. */
    for (size_t i = 0; i < n; i++) {
        if (!write_dirs[i]) {
            snprintf(why, cap, "landlock: writable directory %zu is NULL", i);
            goto fail;
        }
        int fd = open_dir(write_dirs[i], why, cap);
        if (fd < 0)
            goto fail;
        if (rs >= 0 && add_rule(rs, fd, handled | (isolate ? LL_FS_READ : 0)) != 0) {
            snprintf(why, cap, "landlock: cannot allow writes beneath %s: %s", write_dirs[i],
                     strerror(errno));
            close(fd);
            goto fail;
        }
        close(fd);
    }

    if (absent) {
        snprintf(why, cap,
                 "landlock: the kernel has no Landlock (%s); shell commands run without the "
                 "write sandbox",
                 absent == ENOSYS ? "not built in" : "not enabled at boot");
        return RIG_LANDLOCK_ABSENT;
    }
    if (allow_sinks(rs, handled, why, cap) != 0)
        goto fail;
    if (isolate && allow_system(rs, why, cap) != 0)
        goto fail;
    *ruleset_fd = rs;
    return 0;

fail:
    if (rs >= 0)
        close(rs);
    return -1;
}

int rig__landlock_apply(int ruleset_fd) {
    if (ruleset_fd < 0)
        return EBADF;
    /* Required of an unprivileged process, and wanted of a privileged one:
     * a set-user-ID program must not run with more rights than the domain
     * was built for. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    if (syscall(__NR_landlock_restrict_self, ruleset_fd, 0) != 0)
        return errno;
    return 0;
}

void rig__landlock_release(int ruleset_fd) {
    if (ruleset_fd >= 0)
        close(ruleset_fd);
}

int rig__landlock_confine(const char *const *write_dirs, size_t n, char *why, size_t cap) {
    int rs;
    int rc = rig__landlock_prepare(write_dirs, n, &rs, why, cap);
    if (rc != 0)
        return rc;
    int e = rig__landlock_apply(rs);
    rig__landlock_release(rs);
    if (e != 0) {
        snprintf(why, cap, "landlock: cannot enforce the sandbox: %s", strerror(e));
        return -1;
    }
    return 0;
}
