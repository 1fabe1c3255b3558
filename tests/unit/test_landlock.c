/* test_landlock.c — the shell sandbox's Landlock domain (sandbox/landlock.h),
 * attacked from inside. Every test builds, under /tmp:
 *
 *   A/        the writable directory: f ("inside"), and symlinks esc -> B,
 *             escf -> B/secret made before the domain
 *   B/        outside: secret ("SECRET"), which must stay as it is
 *   C/        a second writable directory, for the tests that stack
 *
 * A domain can never be lifted, so each check runs in a forked child that
 * confines itself and reports every failed expectation as a line on a
 * pipe; the parent fails the test with those lines, and afterwards checks
 * from outside that B holds exactly what it held before.
 *
 * Where the kernel has no Landlock (or valgrind does not know its system
 * calls, and answers ENOSYS) the tests that need it are left out of the
 * run with a "#" line saying so — not skip()ped, because cmocka reports a
 * skip as "not ok # SKIP", which meson counts as a failure. The tests of
 * argument errors and of the no-Landlock answer (faked with a seccomp
 * filter) run everywhere, except that such a valgrind can only fake
 * ENOSYS: it answers the call itself, before the kernel's filter would. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#include "testing.h"

#include "sandbox/landlock.h"

#define SECRET "SECRET"
#define INSIDE "inside"

_Static_assert(RIG_LANDLOCK_ABSENT > 0, "absent is positive: neither success nor failure");

static int abi; /* the kernel's Landlock ABI, 0 for none */

static struct {
    char base[64];
    char a[80], b[80], c[80]; /* short enough for a sun_path */
    char secret[96];
} W;

/* --- the world ----------------------------------------------------------- */

static void put(const char *path, const char *text) {
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The first bytes of a file, or "<errno text>" when it cannot be read. */
static const char *peek(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(buf, cap, "<%s>", strerror(errno));
        return buf;
    }
    ssize_t k = read(fd, buf, cap - 1);
    buf[k < 0 ? 0 : k] = '\0';
    close(fd);
    return buf;
}

static int setup(void **state) {
    (void)state;
    snprintf(W.base, sizeof W.base, "/tmp/rig-landlock-XXXXXX");
    if (!mkdtemp(W.base))
        return -1;
    snprintf(W.a, sizeof W.a, "%s/A", W.base);
    snprintf(W.b, sizeof W.b, "%s/B", W.base);
    snprintf(W.c, sizeof W.c, "%s/C", W.base);
    snprintf(W.secret, sizeof W.secret, "%s/secret", W.b);
    if (mkdir(W.a, 0755) || mkdir(W.b, 0755) || mkdir(W.c, 0755))
        return -1;
    put(W.secret, SECRET);
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/f", W.a);
    put(p, INSIDE);
    snprintf(p, sizeof p, "%s/esc", W.a);
    if (symlink(W.b, p))
        return -1;
    snprintf(p, sizeof p, "%s/escf", W.a);
    if (symlink(W.secret, p))
        return -1;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int teardown(void **state) {
    (void)state;
    return nftw(W.base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* B must hold exactly the secret, unchanged. */
static void assert_b_untouched(void) {
    int n = 0;
    char name[256] = "";
    DIR *d = opendir(W.b);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            n++;
            snprintf(name, sizeof name, "%s", e->d_name);
        }
    }
    closedir(d);
    if (n != 1 || strcmp(name, "secret"))
        fail_msg("B/ changed: %d entries, last %s", n, name);
    char buf[64];
    assert_string_equal(peek(W.secret, buf, sizeof buf), SECRET);
}

/* --- running a check in a confined child --------------------------------- */

static int report_fd;
static int nfail;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            dprintf(report_fd, "line %d: ", __LINE__);                                     \
            dprintf(report_fd, __VA_ARGS__);                                               \
            dprintf(report_fd, "\n");                                                      \
            nfail++;                                                                       \
        }                                                                                  \
    } while (0)

/* Whether the call under DENIED/ALLOWED returned a descriptor to close. */
static int call_is_open_;

/* A call that must fail with EACCES (or EXDEV, Landlock's answer to a
 * rename or link between directories it may not refer across). */
#define DENIED(call)                                                                       \
    do {                                                                                   \
        errno = 0;                                                                         \
        long r_ = (long)(call);                                                            \
        int e_ = errno;                                                                    \
        CHECK(r_ < 0 && (e_ == EACCES || e_ == EXDEV), "%s: want EACCES, got %ld (%s)",    \
              #call, r_, strerror(e_));                                                    \
        if (r_ >= 0 && (call_is_open_))                                                    \
            close((int)r_);                                                                \
    } while (0)

#define ALLOWED(call)                                                                      \
    do {                                                                                   \
        errno = 0;                                                                         \
        long r_ = (long)(call);                                                            \
        CHECK(r_ >= 0, "%s: want success, got %s", #call, strerror(errno));               \
        if (r_ >= 0 && (call_is_open_))                                                    \
            close((int)r_);                                                                \
    } while (0)

#define OPEN(...) (call_is_open_ = 1, open(__VA_ARGS__))
#define SYS(x) (call_is_open_ = 0, (x))

static char *pathf(char *buf, const char *dir, const char *leaf) {
    snprintf(buf, PATH_MAX, "%s/%s", dir, leaf);
    return buf;
}

/* Forks; the child runs body(arg), and the parent fails the test with
 * whatever the child reported. */
static void in_child(void (*body)(void *), void *arg) {
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        report_fd = p[1];
        nfail = 0;
        body(arg);
        _exit(nfail ? 1 : 0);
    }
    close(p[1]);
    char out[8192];
    size_t n = 0;
    for (ssize_t k; n + 1 < sizeof out && (k = read(p[0], out + n, sizeof out - 1 - n)) > 0;)
        n += (size_t)k;
    out[n] = '\0';
    close(p[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || n)
        fail_msg("in the sandbox (status %d):\n%s", st, out);
}

/* Confines the child to `dirs`, or reports and leaves. */
static void confine_or_die(const char *const *dirs, size_t n) {
    char why[256];
    int rc = rig__landlock_confine(dirs, n, why, sizeof why);
    if (rc != 0) {
        dprintf(report_fd, "confine: %d: %s\n", rc, why);
        _exit(1);
    }
}

/* Runs `sh -c script` with stderr discarded; its exit status, or -1. */
static int sh(const char *script) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 2);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* --- writes stay inside --------------------------------------------------- */

static void body_writes(void *arg) {
    (void)arg;
    const char *dirs[] = {W.a};
    confine_or_die(dirs, 1);
    char p[PATH_MAX], q[PATH_MAX], buf[64];

    /* Inside: everything a build does. */
    ALLOWED(OPEN(pathf(p, W.a, "new"), O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 0644));
    ALLOWED(OPEN(pathf(p, W.a, "f"), O_WRONLY | O_TRUNC | O_CLOEXEC));
    ALLOWED(SYS(mkdir(pathf(p, W.a, "sub"), 0755)));
    ALLOWED(OPEN(pathf(p, W.a, "sub/g"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    ALLOWED(SYS(symlink("g", pathf(p, W.a, "lnk"))));
    if (abi >= 2) {
        ALLOWED(SYS(rename(pathf(p, W.a, "sub/g"), pathf(q, W.a, "g"))));
        ALLOWED(SYS(link(pathf(p, W.a, "g"), pathf(q, W.a, "sub/hard"))));
    } else {
        /* ABI 1 refuses every rename or link to another directory (the
         * limitation REFER lifted in ABI 2), even within A. */
        DENIED(SYS(rename(pathf(p, W.a, "sub/g"), pathf(q, W.a, "g"))));
        ALLOWED(SYS(rename(pathf(p, W.a, "sub/g"), pathf(q, W.a, "sub/h"))));
        ALLOWED(SYS(unlink(pathf(p, W.a, "sub/h"))));
        ALLOWED(OPEN(pathf(p, W.a, "g"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
        DENIED(SYS(link(pathf(p, W.a, "g"), pathf(q, W.a, "sub/hard"))));
        ALLOWED(OPEN(pathf(p, W.a, "sub/hard"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    }
    ALLOWED(SYS(mkfifo(pathf(p, W.a, "fifo"), 0600)));
    ALLOWED(SYS(truncate(pathf(p, W.a, "new"), 0)));
    ALLOWED(SYS(unlink(pathf(p, W.a, "lnk"))));
    ALLOWED(SYS(unlink(pathf(p, W.a, "sub/hard"))));
    ALLOWED(SYS(rmdir(pathf(p, W.a, "sub"))));

    /* Outside: nothing that writes. */
    DENIED(OPEN(pathf(p, W.b, "new"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    DENIED(OPEN(W.secret, O_WRONLY | O_TRUNC | O_CLOEXEC));
    DENIED(OPEN(W.secret, O_WRONLY | O_APPEND | O_CLOEXEC));
    DENIED(OPEN(W.secret, O_RDWR | O_CLOEXEC));
    DENIED(SYS(mkdir(pathf(p, W.b, "d"), 0755)));
    DENIED(SYS(unlink(W.secret)));
    DENIED(SYS(symlink("x", pathf(p, W.b, "l"))));
    DENIED(SYS(mkfifo(pathf(p, W.b, "fifo"), 0600)));
    DENIED(SYS(rename(pathf(p, W.a, "g"), pathf(q, W.b, "g"))));    /* A -> B */
    DENIED(SYS(rename(W.secret, pathf(p, W.a, "stolen"))));          /* B -> A */
    DENIED(SYS(link(pathf(p, W.a, "g"), pathf(q, W.b, "hard"))));    /* into B */
    /* A hard link to B's file from inside A would make it writable by
     * A's rule: refused (REFER, or ABI 1's blanket refusal). */
    DENIED(SYS(link(W.secret, pathf(p, W.a, "hard"))));
    DENIED(SYS(rename(pathf(p, W.a, "g"), pathf(q, W.base, "g"))));  /* A's parent */
    DENIED(SYS(rmdir(W.c)));
    DENIED(SYS(mkdir(pathf(p, W.base, "A2"), 0755)));
    if (abi >= 3)
        DENIED(SYS(truncate(W.secret, 0)));

    /* Reading and listing stay open everywhere. */
    CHECK(!strcmp(peek(W.secret, buf, sizeof buf), SECRET), "read B/secret: %s", buf);
    ALLOWED(OPEN(W.b, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ALLOWED(OPEN("/etc/passwd", O_RDONLY | O_CLOEXEC));

    /* The sinks. */
    int null = OPEN("/dev/null", O_WRONLY | O_TRUNC | O_CLOEXEC);
    CHECK(null >= 0, "open /dev/null for writing: %s", strerror(errno));
    if (null >= 0) {
        CHECK(write(null, "x", 1) == 1, "write /dev/null: %s", strerror(errno));
        close(null);
    }
    ALLOWED(OPEN("/dev/zero", O_RDWR | O_CLOEXEC));
    /* A device node is not a sink just because it is under /dev. */
    DENIED(SYS(mknod(pathf(p, W.b, "null2"), S_IFCHR | 0666, makedev(1, 3))));
}

static void test_writes_only_inside(void **state) {
    (void)state;
    in_child(body_writes, NULL);
    assert_b_untouched();
    char p[PATH_MAX], buf[64];
    assert_string_equal(peek(pathf(p, W.a, "f"), buf, sizeof buf), "");
    assert_string_equal(peek(pathf(p, W.a, "new"), buf, sizeof buf), "");
}

/* --- symlinks in A lead nowhere writable --------------------------------- */

static void body_symlinks(void *arg) {
    (void)arg;
    const char *dirs[] = {W.a};
    confine_or_die(dirs, 1);
    char p[PATH_MAX], q[PATH_MAX];
    /* Made before the domain: esc -> B, escf -> B/secret. */
    DENIED(OPEN(pathf(p, W.a, "esc/new"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    DENIED(OPEN(pathf(p, W.a, "esc/secret"), O_WRONLY | O_CLOEXEC));
    DENIED(OPEN(pathf(p, W.a, "escf"), O_WRONLY | O_TRUNC | O_CLOEXEC));
    DENIED(SYS(mkdir(pathf(p, W.a, "esc/d"), 0755)));
    DENIED(SYS(rename(pathf(p, W.a, "f"), pathf(q, W.a, "esc/f"))));
    DENIED(SYS(unlink(pathf(p, W.a, "esc/secret"))));
    /* Made inside the domain, absolute and climbing. */
    ALLOWED(SYS(symlink(W.b, pathf(p, W.a, "esc2"))));
    ALLOWED(SYS(symlink("../B", pathf(p, W.a, "esc3"))));
    DENIED(OPEN(pathf(p, W.a, "esc2/new"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    DENIED(OPEN(pathf(p, W.a, "esc3/secret"), O_WRONLY | O_CLOEXEC));
    DENIED(OPEN(pathf(p, W.a, "../B/secret"), O_WRONLY | O_CLOEXEC));
    /* Through /proc: a magic link is still the file it names. */
    int rd = open(W.secret, O_RDONLY | O_CLOEXEC);
    CHECK(rd >= 0, "open B/secret for reading: %s", strerror(errno));
    if (rd >= 0) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", rd);
        DENIED(OPEN(proc, O_WRONLY | O_CLOEXEC));
        close(rd);
    }
    /* Removing the link itself is a write in A, and fine. */
    ALLOWED(SYS(unlink(pathf(p, W.a, "esc"))));
}

static void test_symlinks_do_not_escape(void **state) {
    (void)state;
    in_child(body_symlinks, NULL);
    assert_b_untouched();
}

/* --- what the domain's commands inherit ---------------------------------- */

static void body_exec(void *arg) {
    (void)arg;
    const char *dirs[] = {W.a};
    confine_or_die(dirs, 1);
    char s[3 * PATH_MAX], p[PATH_MAX], buf[64];

    snprintf(s, sizeof s, "echo x > %s/f", W.b);
    int rc = sh(s);
    CHECK(rc != 0, "`%s` exited %d", s, rc);
    CHECK(access(pathf(p, W.b, "f"), F_OK) != 0, "B/f exists after `%s`", s);

    snprintf(s, sizeof s, "echo x > %s/f", W.a);
    rc = sh(s);
    CHECK(rc == 0, "`%s` exited %d", s, rc);
    CHECK(!strcmp(peek(pathf(p, W.a, "f"), buf, sizeof buf), "x\n"), "A/f holds %s", buf);

    /* Everything a script might try, each on its own. */
    static const struct {
        const char *before, *after; /* the command around B's path */
    } attempts[] = {
        {"touch ", "/t"}, {"mkdir ", "/d"}, {"rm -f ", "/secret"}, {"ln -s x ", "/l"},
        {"mkfifo ", "/p"}, {"cp /etc/passwd ", "/"}, {": > ", "/secret"},
        {"echo y >> ", "/secret"}, {"mv ", "/secret /tmp/"}, {"chmod 777 ", "/secret"},
    };
    for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
        snprintf(s, sizeof s, "%s%s%s", attempts[i].before, W.b, attempts[i].after);
        rc = sh(s);
        /* chmod is not a Landlock right (metadata, not content): it may
         * succeed; the content and names are what must not change. */
        if (strncmp(attempts[i].before, "chmod", 5))
            CHECK(rc != 0, "`%s` exited 0", s);
    }

    /* Commands write to /dev/null and to their own stdout all the time:
     * /dev/stdout is the pipe the caller reads, reopened through /proc. */
    int p2[2];
    CHECK(pipe(p2) == 0, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p2[1], 1);
        close(p2[0]);
        close(p2[1]);
        execl("/bin/sh", "sh", "-c", "echo a > /dev/null && echo b > /dev/stdout", (char *)NULL);
        _exit(127);
    }
    close(p2[1]);
    ssize_t k = read(p2[0], buf, sizeof buf - 1);
    buf[k < 0 ? 0 : k] = '\0';
    close(p2[0]);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !strcmp(buf, "b\n"),
          "/dev/null and /dev/stdout: status %d, output %s", st, buf);

    /* no_new_privs: set for the child too, so set-user-ID gains nothing. */
    CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1, "no_new_privs not set");
}

static void test_commands_inherit_the_domain(void **state) {
    (void)state;
    in_child(body_exec, NULL);
    /* chmod may have changed the mode; restore it, then compare. */
    chmod(W.secret, 0644);
    assert_b_untouched();
}

/* --- networking and signals are not the file system's business ------------ */

static void body_network(void *arg) {
    (void)arg;
    const char *dirs[] = {W.a};
    confine_or_die(dirs, 1);

    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    CHECK(l >= 0 && bind(l, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(l, 1) == 0 &&
              getsockname(l, (struct sockaddr *)&sa, &len) == 0,
          "TCP bind/listen on loopback: %s", strerror(errno));
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(c >= 0 && connect(c, (struct sockaddr *)&sa, sizeof sa) == 0, "TCP connect: %s",
          strerror(errno));
    close(c);
    close(l);

    /* An abstract unix socket (scoped from ABI 6 when asked for; we don't). */
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    snprintf(un.sun_path + 1, sizeof un.sun_path - 1, "rig-landlock-%d", (int)getpid());
    socklen_t ulen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                                 strlen(un.sun_path + 1));
    int us = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(us >= 0 && bind(us, (struct sockaddr *)&un, ulen) == 0 && listen(us, 1) == 0,
          "abstract unix bind: %s", strerror(errno));
    int uc = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(uc >= 0 && connect(uc, (struct sockaddr *)&un, ulen) == 0, "abstract unix connect: %s",
          strerror(errno));
    close(uc);
    close(us);

    /* A unix socket file is a MAKE_SOCK: fine in A, refused in B. */
    struct sockaddr_un fa = {.sun_family = AF_UNIX}, fb = {.sun_family = AF_UNIX};
    snprintf(fa.sun_path, sizeof fa.sun_path, "%s/s", W.a);
    snprintf(fb.sun_path, sizeof fb.sun_path, "%s/s", W.b);
    int s1 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int s2 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ALLOWED(SYS(bind(s1, (struct sockaddr *)&fa, sizeof fa)));
    DENIED(SYS(bind(s2, (struct sockaddr *)&fb, sizeof fb)));
    close(s1);
    close(s2);

    /* Signals to a process outside the domain (scoped from ABI 6 when asked
     * for; we don't). */
    CHECK(kill(getppid(), 0) == 0, "kill(parent, 0): %s", strerror(errno));
}

static void test_network_and_signals_stay_open(void **state) {
    (void)state;
    in_child(body_network, NULL);
    assert_b_untouched();
}

/* --- stacking ------------------------------------------------------------- */

static void body_stack(void *arg) {
    int *rs = arg; /* rs[0]: A and C; rs[1]: C alone */
    char p[PATH_MAX];
    CHECK(rig__landlock_apply(rs[0]) == 0, "first apply: %s", strerror(errno));
    CHECK(rig__landlock_apply(rs[0]) == 0, "the same ruleset again: %s", strerror(errno));
    ALLOWED(OPEN(pathf(p, W.a, "x"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    ALLOWED(OPEN(pathf(p, W.c, "x"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    DENIED(OPEN(pathf(p, W.b, "x"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    /* A narrower layer narrows; nothing widens. */
    CHECK(rig__landlock_apply(rs[1]) == 0, "narrower apply: %s", strerror(errno));
    DENIED(OPEN(pathf(p, W.a, "y"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    ALLOWED(OPEN(pathf(p, W.c, "y"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    CHECK(rig__landlock_apply(rs[0]) == 0, "wider apply after: %s", strerror(errno));
    DENIED(OPEN(pathf(p, W.a, "z"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    ALLOWED(OPEN("/dev/null", O_WRONLY | O_CLOEXEC));
}

static void test_apply_stacks(void **state) {
    (void)state;
    char why[256];
    int rs[2];
    const char *both[] = {W.a, W.c}, *conly[] = {W.c};
    assert_int_equal(rig__landlock_prepare(both, 2, &rs[0], why, sizeof why), 0);
    assert_int_equal(rig__landlock_prepare(conly, 1, &rs[1], why, sizeof why), 0);
    /* One ruleset serves any number of children. */
    in_child(body_stack, rs);
    in_child(body_stack, rs);
    rig__landlock_release(rs[0]);
    rig__landlock_release(rs[1]);
    assert_b_untouched();
}

/* --- a domain with no writable directory ---------------------------------- */

static void body_nowhere(void *arg) {
    (void)arg;
    confine_or_die(NULL, 0);
    char p[PATH_MAX];
    DENIED(OPEN(pathf(p, W.a, "x"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    DENIED(OPEN("/tmp/rig-landlock-nowhere", O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    ALLOWED(OPEN("/dev/null", O_WRONLY | O_CLOEXEC));
    ALLOWED(OPEN(pathf(p, W.a, "f"), O_RDONLY | O_CLOEXEC));
}

static void test_no_writable_directories(void **state) {
    (void)state;
    in_child(body_nowhere, NULL);
}

/* --- prepare's errors (every kernel) -------------------------------------- */

static void test_bad_directories_are_errors(void **state) {
    (void)state;
    char why[256], missing[PATH_MAX], file[PATH_MAX];
    int rs = 42;
    pathf(missing, W.base, "missing");
    const char *d1[] = {W.a, missing};
    assert_int_equal(rig__landlock_prepare(d1, 2, &rs, why, sizeof why), -1);
    assert_int_equal(rs, -1);
    if (!strstr(why, missing) || !strstr(why, "No such file"))
        fail_msg("why does not name %s: %s", missing, why);

    pathf(file, W.a, "f");
    const char *d2[] = {file};
    assert_int_equal(rig__landlock_prepare(d2, 1, &rs, why, sizeof why), -1);
    if (!strstr(why, file) || !strstr(why, "not a directory"))
        fail_msg("why: %s", why);

    const char *d3[] = {W.a, NULL};
    assert_int_equal(rig__landlock_prepare(d3, 2, &rs, why, sizeof why), -1);
    assert_non_null(strstr(why, "NULL"));
    assert_int_equal(rig__landlock_prepare(NULL, 1, &rs, why, sizeof why), -1);

    /* A tiny buffer is cut, not overrun; none at all is allowed. */
    char tiny[8];
    assert_int_equal(rig__landlock_prepare(d1, 2, &rs, tiny, sizeof tiny), -1);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_int_equal(rig__landlock_prepare(d1, 2, &rs, NULL, 0), -1);

    assert_int_equal(rig__landlock_apply(-1), EBADF);
    rig__landlock_release(-1);
}

/* No descriptor is left open but the ruleset, and that one is close-on-exec. */
static void test_descriptors(void **state) {
    (void)state;
    int low = dup(0);
    assert_true(low >= 0);
    close(low);
    char why[256];
    int rs;
    const char *dirs[] = {W.a, W.c};
    assert_int_equal(rig__landlock_prepare(dirs, 2, &rs, why, sizeof why), 0);
    assert_int_equal(rs, low);
    assert_true(fcntl(rs, F_GETFD) & FD_CLOEXEC);
    rig__landlock_release(rs);
    int again = dup(0);
    assert_int_equal(again, low);
    close(again);
    /* A failure leaves nothing open either. */
    char missing[PATH_MAX];
    const char *bad[] = {W.a, pathf(missing, W.base, "missing")};
    assert_int_equal(rig__landlock_prepare(bad, 2, &rs, why, sizeof why), -1);
    again = dup(0);
    assert_int_equal(again, low);
    close(again);
}

/* --- a kernel without Landlock, faked with seccomp (every kernel) ---------- */

/* Does valgrind answer Landlock's calls (with ENOSYS) before the kernel? */
static bool valgrind_answers(void) { return RUNNING_ON_VALGRIND && !abi; }

static void fake_no_landlock(int err) {
    if (valgrind_answers() && err == ENOSYS)
        return; /* valgrind's own answer is the one we want */
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 444 /* landlock_create_ruleset */, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof *f, .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        dprintf(report_fd, "seccomp filter: %s\n", strerror(errno));
        _exit(1);
    }
}

/* Can this process install a seccomp filter? Asked in a child, which
 * keeps the filter to itself. */
static bool have_seccomp(void) {
    pid_t pid = fork();
    if (pid == 0) {
        struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
        struct sock_fprog prog = {.len = 1, .filter = f};
        _exit(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
                      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0
                  ? 0
                  : 1);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void body_absent(void *arg) {
    int err = *(int *)arg;
    fake_no_landlock(err);
    CHECK(rig__landlock_abi() == 0, "abi %d under the fake", rig__landlock_abi());
    char why[256];
    int rs = 42;
    const char *dirs[] = {W.a};
    int rc = rig__landlock_prepare(dirs, 1, &rs, why, sizeof why);
    CHECK(rc == RIG_LANDLOCK_ABSENT, "prepare: %d (%s)", rc, why);
    CHECK(rs == -1, "ruleset %d", rs);
    CHECK(strstr(why, "no Landlock") != NULL, "why: %s", why);
    CHECK(strstr(why, err == ENOSYS ? "not built in" : "not enabled") != NULL, "why: %s", why);
    rc = rig__landlock_confine(dirs, 1, why, sizeof why);
    CHECK(rc == RIG_LANDLOCK_ABSENT, "confine: %d (%s)", rc, why);
    /* A bad directory is still an error. */
    char missing[PATH_MAX];
    const char *bad[] = {pathf(missing, W.base, "missing")};
    rc = rig__landlock_prepare(bad, 1, &rs, why, sizeof why);
    CHECK(rc == -1 && strstr(why, missing), "missing directory: %d (%s)", rc, why);
    /* Unconfined: B is writable (and the parent checks nothing was left). */
    int fd = open(pathf(missing, W.b, "absent-probe"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    CHECK(fd >= 0, "unconfined write: %s", strerror(errno));
    if (fd >= 0) {
        close(fd);
        unlink(missing);
    }
}

static void test_absent_kernel(void **state) {
    (void)state;
    int errs[] = {ENOSYS, EOPNOTSUPP};
    for (size_t i = 0; i < 2; i++) {
        if (valgrind_answers() && errs[i] != ENOSYS)
            printf("# under valgrind only ENOSYS can be faked: %s not tried\n",
                   strerror(errs[i]));
        else
            in_child(body_absent, &errs[i]);
    }
    assert_b_untouched();
}

static void body_query_error(void *arg) {
    (void)arg;
    fake_no_landlock(EPERM);
    char why[256];
    int rs = 42;
    const char *dirs[] = {W.a};
    int rc = rig__landlock_prepare(dirs, 1, &rs, why, sizeof why);
    CHECK(rc == -1 && rs == -1, "prepare: %d, ruleset %d (%s)", rc, rs, why);
    CHECK(strstr(why, "Operation not permitted") != NULL, "why: %s", why);
}

static void test_query_error_is_a_failure(void **state) {
    (void)state;
    in_child(body_query_error, NULL);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void) {
    abi = rig__landlock_abi();
    int abi_errno = errno;
    bool seccomp = have_seccomp();

    static const struct CMUnitTest confined[] = {
        T(test_writes_only_inside),          T(test_symlinks_do_not_escape),
        T(test_commands_inherit_the_domain), T(test_network_and_signals_stay_open),
        T(test_apply_stacks),                T(test_no_writable_directories),
        T(test_descriptors),
    };
    static const struct CMUnitTest everywhere[] = {T(test_bad_directories_are_errors)};
    static const struct CMUnitTest faked[] = {T(test_absent_kernel),
                                              T(test_query_error_is_a_failure)};
    enum { N_CONFINED = sizeof confined / sizeof *confined };
    enum { N_EVERYWHERE = sizeof everywhere / sizeof *everywhere };
    enum { N_FAKED = sizeof faked / sizeof *faked };
    struct CMUnitTest tests[N_CONFINED + N_EVERYWHERE + N_FAKED];
    size_t n = 0;

    if (abi) {
        printf("# Landlock ABI %d\n", abi);
        memcpy(tests + n, confined, sizeof confined);
        n += N_CONFINED;
    } else {
        printf("# Landlock unavailable here (%s%s): %d confinement tests not run\n",
               strerror(abi_errno), RUNNING_ON_VALGRIND ? ", under valgrind" : "",
               (int)N_CONFINED);
    }
    memcpy(tests + n, everywhere, sizeof everywhere);
    n += N_EVERYWHERE;
    if (!seccomp && !valgrind_answers()) {
        printf("# seccomp filters unavailable: the faked no-Landlock tests not run\n");
    } else {
        tests[n++] = faked[0]; /* under valgrind, ENOSYS needs no filter */
        if (seccomp && !valgrind_answers())
            tests[n++] = faked[1];
        else
            printf("# under valgrind: test_query_error_is_a_failure not run\n");
    }
    return _cmocka_run_group_tests("landlock", tests, n, NULL, NULL);
}
