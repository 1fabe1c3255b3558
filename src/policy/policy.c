/* policy.c — the approval policy's allowlist (rig/policy.h): patterns per
 * tool, checked against a call, remembered from an "always", kept in a
 * JSON file.
 *
 * Shell patterns are command lines of one simple command whose last word
 * may be an unquoted "*"; they are read with the same parser as the
 * commands they judge (shparse.c), so quoting means the same on both
 * sides. A command matches when its first words equal the pattern's, all
 * of them literal, and it has no more words unless the pattern ends in
 * "*". A command that sets variables for itself (LD_PRELOAD=... git log)
 * or writes a file through a redirection never matches: the pattern says
 * which program may run, not what else may happen around it. */
#define _GNU_SOURCE
#include "rig/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/shparse.h"
#include "rig/json.h"
#include "util/buf.h"

#define PATTERNS_MAX 4096 /* per allowlist: a file is read, not trusted */

typedef struct entry {
    char *tool;
    char **patterns;
    size_t n;
} entry;

struct rig_allowlist {
    entry *e;
    size_t n;
};

int rig_policy_mode_parse(const char *s, rig_policy_mode *mode)
{
    static const struct {
        const char *name;
        rig_policy_mode mode;
    } names[] = {{"auto", RIG_POLICY_AUTO},
                 {"ask", RIG_POLICY_ASK},
                 {"read-only", RIG_POLICY_READ_ONLY},
                 {"yolo", RIG_POLICY_YOLO}};
    for (size_t i = 0; s && i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i].name) == 0) {
            *mode = names[i].mode;
            return 0;
        }
    return -1;
}

rig_allowlist *rig_allowlist_new(void) { return calloc(1, sizeof(rig_allowlist)); }

void rig_allowlist_free(rig_allowlist *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++) {
        for (size_t k = 0; k < a->e[i].n; k++)
            free(a->e[i].patterns[k]);
        free(a->e[i].patterns);
        free(a->e[i].tool);
    }
    free(a->e);
    free(a);
}

static const entry *find(const rig_allowlist *a, const char *tool)
{
    for (size_t i = 0; a && i < a->n; i++)
        if (strcmp(a->e[i].tool, tool) == 0)
            return &a->e[i];
    return NULL;
}

static size_t total(const rig_allowlist *a)
{
    size_t t = 0;
    for (size_t i = 0; i < a->n; i++)
        t += a->e[i].n;
    return t;
}

int rig_allowlist_add(rig_allowlist *a, const char *tool, const char *pattern, rig_error *err)
{
    if (!a || !tool || !*tool || !pattern || !*pattern)
        return rig_error_set(err, RIG_EINVAL, "An allowlist entry needs a tool and a pattern.");
    entry *e = (entry *)find(a, tool);
    if (e)
        for (size_t k = 0; k < e->n; k++)
            if (strcmp(e->patterns[k], pattern) == 0)
                return RIG_OK;
    if (total(a) >= PATTERNS_MAX)
        return rig_error_set(err, RIG_EINVAL, "The allowlist holds %d patterns already.",
                             PATTERNS_MAX);
    if (!e) {
        entry *v = realloc(a->e, (a->n + 1) * sizeof *v);
        if (!v)
            return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        a->e = v;
        e = &a->e[a->n];
        *e = (entry){strdup(tool), NULL, 0};
        if (!e->tool)
            return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
        a->n++;
    }
    char **p = realloc(e->patterns, (e->n + 1) * sizeof *p);
    if (!p)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    e->patterns = p;
    if (!(e->patterns[e->n] = strdup(pattern)))
        return rig_error_set(err, RIG_ENOMEM, "Out of memory.");
    e->n++;
    return RIG_OK;
}

int rig_allowlist_load(rig_allowlist *a, const char *path, rig_error *err)
{
    if (!a || !path)
        return rig_error_set(err, RIG_EINVAL, "Loading an allowlist needs the list and a path.");
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return RIG_OK; /* nothing allowed yet */
        return rig_error_set(err, RIG_EINVAL, "Cannot read the allowlist '%s': %s.", path,
                             strerror(errno));
    }
    rig__buf b = {0};
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (8u << 20))
        rig__buf_add(&b, chunk, k);
    fclose(f);
    if (b.oom) {
        rig__buf_free(&b);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory reading '%s'.", path);
    }
    rig_json_error je;
    /* The document points into the text: the text lives as long as it. */
    rig_json_doc *d = rig_json_parse(b.p ? b.p : "", b.len, NULL, &je);
    if (!d) {
        rig__buf_free(&b);
        char where[160];
        rig_json_error_format(&je, where, sizeof where);
        return rig_error_set(err, RIG_EINVAL, "The allowlist '%s' is not JSON: %s.", path, where);
    }
    rig_json_val root = rig_json_doc_root(d);
    int rc = RIG_OK;
    if (!rig_json_is_object(root)) {
        rc = rig_error_set(err, RIG_EINVAL,
                           "The allowlist '%s' must be an object of tool names to arrays of "
                           "patterns, e.g. {\"shell\": [\"git log *\"]}.",
                           path);
    }
    rig_json_iter it = rig_json_iter_init(root);
    rig_json_val key, val;
    while (rc == RIG_OK && rig_json_iter_member(&it, &key, &val)) {
        char tool[128];
        if (rig_json_str_copy(key, tool, sizeof tool, NULL) != 0 || !rig_json_is_array(val)) {
            rc = rig_error_set(err, RIG_EINVAL,
                               "The allowlist '%s': each tool must map to an array of "
                               "pattern strings.",
                               path);
            break;
        }
        rig_json_iter pi = rig_json_iter_init(val);
        rig_json_val pv;
        while (rc == RIG_OK && rig_json_iter_next(&pi, &pv)) {
            char pat[4096];
            if (rig_json_str_copy(pv, pat, sizeof pat, NULL) != 0)
                rc = rig_error_set(err, RIG_EINVAL,
                                   "The allowlist '%s': a pattern of '%s' is not a string "
                                   "(or is over 4 KiB).",
                                   path, tool);
            else
                rc = rig_allowlist_add(a, tool, pat, err);
        }
    }
    rig_json_doc_free(d);
    rig__buf_free(&b);
    return rc;
}

int rig_allowlist_save(const rig_allowlist *a, const char *path, rig_error *err)
{
    if (!a || !path)
        return rig_error_set(err, RIG_EINVAL, "Saving an allowlist needs the list and a path.");
    rig_json_writer w;
    rig_json_writer_init(&w, RIG_JSON_WRITE_PRETTY);
    rig_json_write_object_begin(&w);
    for (size_t i = 0; i < a->n; i++) {
        rig_json_write_key(&w, a->e[i].tool);
        rig_json_write_array_begin(&w);
        for (size_t k = 0; k < a->e[i].n; k++)
            rig_json_write_string(&w, a->e[i].patterns[k]);
        rig_json_write_array_end(&w);
    }
    rig_json_write_object_end(&w);
    size_t len = 0;
    const char *json = rig_json_writer_finish(&w, &len);
    if (!json) {
        rig_json_writer_free(&w);
        return rig_error_set(err, RIG_ENOMEM, "Out of memory writing the allowlist.");
    }
    /* A temporary beside it, then rename: a crash leaves the old list. */
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    int rc = RIG_OK;
    int fd = n > 0 && (size_t)n < sizeof tmp
                 ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)
                 : -1;
    if (fd < 0) {
        rc = rig_error_set(err, RIG_EINVAL, "Cannot write the allowlist next to '%s': %s.", path,
                           strerror(errno));
    } else {
        size_t done = 0;
        while (done < len) {
            ssize_t k = write(fd, json + done, len - done);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            done += (size_t)k;
        }
        bool ok = done == len && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
        int e = errno;
        if (close(fd) != 0)
            ok = false;
        if (!ok || rename(tmp, path) != 0) {
            e = ok ? errno : e;
            unlink(tmp);
            rc = rig_error_set(err, RIG_EINVAL, "Writing the allowlist '%s' failed: %s.", path,
                               strerror(e));
        }
    }
    rig_json_writer_free(&w);
    return rc;
}

/* ---- matching ----------------------------------------------------------- */

/* A shell pattern, read: its words and whether it ends in "*". */
typedef struct spattern {
    rig__sh_script s;
    const rig__sh_cmd *cmd;
    size_t nfixed;
    bool rest;
} spattern;

static bool pattern_read(const char *text, spattern *sp)
{
    char why[128];
    *sp = (spattern){0};
    if (rig__sh_parse(text, strlen(text), &sp->s, why, sizeof why) != 0)
        return false;
    if (sp->s.n != 1 || sp->s.cmds[0].nassign || sp->s.cmds[0].writes ||
        !sp->s.cmds[0].nwords) {
        rig__sh_script_free(&sp->s);
        return false;
    }
    sp->cmd = &sp->s.cmds[0];
    sp->nfixed = sp->cmd->nwords;
    const rig__sh_word *last = &sp->cmd->words[sp->nfixed - 1];
    if (!last->literal && strcmp(last->text, "*") == 0) {
        sp->rest = true;
        sp->nfixed--;
    }
    for (size_t i = 0; i < sp->nfixed; i++)
        if (!sp->cmd->words[i].literal) {
            rig__sh_script_free(&sp->s); /* a pattern's words are plain text */
            return false;
        }
    return sp->nfixed > 0;
}

/* Options that make an otherwise harmless command write files or run
 * others (`git log --output=Makefile`, `find -exec`, `sort -o`): a "*" in
 * a pattern stands for arguments, not for these, so a command carrying one
 * matches only a pattern that spells it out, and "always" remembers it
 * exactly. */
static bool option_in(const char *w, const char *const *opts)
{
    for (size_t i = 0; opts[i]; i++) {
        size_t n = strlen(opts[i]);
        if (strncmp(w, opts[i], n) == 0 && (w[n] == '\0' || (opts[i][1] == '-' && w[n] == '=')))
            return true;
    }
    return false;
}

bool rig__sh_acts_by_option(const rig__sh_cmd *c)
{
    static const char *const any[] = {"--output", "--output-file", "--outfile",
                                      "--output-directory", "--in-place", "--exec",
                                      "--upload-pack", "--receive-pack", "--log-file", NULL};
    static const char *const git[] = {"-o", NULL};
    static const char *const sort[] = {"-o", NULL};
    static const char *const find[] = {"-delete", "-exec", "-execdir", "-ok", "-okdir",
                                       "-fprint", "-fprint0", "-fprintf", "-fls", NULL};
    static const char *const fetchers[] = {"-o", "-O", "--remote-name", "--output-document",
                                           NULL};
    const char *name = c->nwords ? c->words[0].text : "";
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    const char *const *own = strcmp(base, "git") == 0    ? git
                             : strcmp(base, "sort") == 0 ? sort
                             : strcmp(base, "find") == 0 ? find
                             : strcmp(base, "curl") == 0 || strcmp(base, "wget") == 0
                                 ? fetchers
                                 : NULL;
    for (size_t i = 1; i < c->nwords; i++) {
        const char *w = c->words[i].text;
        if (option_in(w, any) || (own && option_in(w, own)))
            return true;
        /* sort -ofile, git format-patch -odir */
        if (own && (own == git || own == sort) && strncmp(w, "-o", 2) == 0)
            return true;
    }
    return false;
}

static bool cmd_matches(const rig__sh_cmd *c, const spattern *sp)
{
    if (c->nwords < sp->nfixed || (!sp->rest && c->nwords != sp->nfixed))
        return false;
    if (sp->rest && rig__sh_acts_by_option(c))
        return false;
    for (size_t i = 0; i < sp->nfixed; i++)
        if (!c->words[i].literal || strcmp(c->words[i].text, sp->cmd->words[i].text) != 0)
            return false;
    return true;
}

/* The command's words as a shell would read them back, for messages. */
static void cmd_show(const rig__sh_cmd *c, rig__buf *b)
{
    for (size_t i = 0; i < c->nwords; i++) {
        if (i)
            rig__buf_addc(b, ' ');
        const char *t = c->words[i].text;
        bool plain = c->words[i].literal && *t && !strpbrk(t, " \t\n'\"\\$`*?[]{}()<>|&;#~!");
        if (plain || !c->words[i].literal) {
            rig__buf_adds(b, t); /* an expansion is shown as written */
            continue;
        }
        rig__buf_addc(b, '\'');
        for (; *t; t++)
            if (*t == '\'')
                rig__buf_adds(b, "'\\''");
            else
                rig__buf_addc(b, *t);
        rig__buf_addc(b, '\'');
    }
}

static void say(char *reason, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *reason, size_t cap, const char *fmt, ...)
{
    if (!reason || !cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, cap, fmt, ap);
    va_end(ap);
}

/* The shell tool's commands: `command` as a string, an object with
 * "command", or an array of either. Into cmds (malloc'd strings, their
 * lengths in lens: a NUL inside stays, for the parser to refuse). */
static size_t shell_commands(rig_json_val args, char **cmds, size_t *lens, size_t max)
{
    rig_json_val c = rig_json_get(args, "command");
    size_t n = 0;
    rig_json_val one[1] = {c};
    size_t count = rig_json_is_array(c) ? rig_json_len(c) : 1;
    for (size_t i = 0; i < count && n < max; i++) {
        rig_json_val v = rig_json_is_array(c) ? rig_json_at(c, i) : one[0];
        if (rig_json_is_object(v))
            v = rig_json_get(v, "command");
        size_t len = rig_json_str_len(v);
        char *s = rig_json_is_string(v) ? malloc(len + 1) : NULL;
        size_t got = 0;
        if (s && rig_json_str_copy(v, s, len + 1, &got) == 0) {
            lens[n] = got;
            cmds[n++] = s;
        } else {
            free(s);
        }
    }
    return n;
}

#define SHELL_CMDS_MAX 64

static rig_verdict check_shell(const entry *e, rig_json_val args, char *reason, size_t cap)
{
    char *cmds[SHELL_CMDS_MAX];
    size_t lens[SHELL_CMDS_MAX];
    size_t ncmds = shell_commands(args, cmds, lens, SHELL_CMDS_MAX);
    rig_verdict v = RIG_VERDICT_ALLOW;
    rig__buf used = {0};
    if (!ncmds) {
        say(reason, cap, "the call has no command this policy can read");
        v = RIG_VERDICT_ASK;
    }
    for (size_t i = 0; i < ncmds && v == RIG_VERDICT_ALLOW; i++) {
        rig__sh_script s;
        char why[256];
        if (rig__sh_parse(cmds[i], lens[i], &s, why, sizeof why) != 0) {
            say(reason, cap, "the command cannot be read for certain: %s", why);
            v = RIG_VERDICT_ASK;
            break;
        }
        for (size_t k = 0; k < s.n && v == RIG_VERDICT_ALLOW; k++) {
            const rig__sh_cmd *c = &s.cmds[k];
            rig__buf shown = {0};
            cmd_show(c, &shown);
            const char *cs = shown.p ? shown.p : "";
            if (c->nassign && !c->nwords) {
                say(reason, cap, "the command line sets shell variables (NAME=value), which "
                                 "change what the commands after it do");
                v = RIG_VERDICT_ASK;
            } else if (c->nassign) {
                say(reason, cap, "`%s` sets environment variables for itself", cs);
                v = RIG_VERDICT_ASK;
            } else if (c->writes) {
                say(reason, cap, "`%s` writes to '%s' through a redirection", cs, c->writes);
                v = RIG_VERDICT_ASK;
            } else {
                const char *hit = NULL;
                for (size_t p = 0; e && p < e->n && !hit; p++) {
                    spattern sp;
                    if (!pattern_read(e->patterns[p], &sp))
                        continue;
                    if (cmd_matches(c, &sp))
                        hit = e->patterns[p];
                    rig__sh_script_free(&sp.s);
                }
                if (!hit) {
                    say(reason, cap, "`%s` matches no allowlist pattern for shell", cs);
                    v = RIG_VERDICT_ASK;
                } else if (!used.p || !strstr(used.p, hit)) {
                    rig__buf_adds(&used, used.len ? ", " : "");
                    rig__buf_adds(&used, hit);
                }
            }
            rig__buf_free(&shown);
        }
        rig__sh_script_free(&s);
    }
    if (v == RIG_VERDICT_ALLOW && !used.len)
        say(reason, cap, "the command runs nothing (it is empty, or only comments)");
    else if (v == RIG_VERDICT_ALLOW)
        say(reason, cap, "every command matches the allowlist (%s)", used.p);
    rig__buf_free(&used);
    for (size_t i = 0; i < ncmds; i++)
        free(cmds[i]);
    return v;
}

/* A file tool's paths: path, source, destination, and the paths array. */
static size_t call_paths(rig_json_val args, char **out, size_t max)
{
    static const char *const keys[] = {"path", "source", "destination"};
    size_t n = 0;
    for (size_t i = 0; i < sizeof keys / sizeof *keys && n < max; i++) {
        rig_json_val v = rig_json_get(args, keys[i]);
        if (!rig_json_is_string(v))
            continue;
        size_t len = rig_json_str_len(v);
        char *s = malloc(len + 1);
        if (s && rig_json_str_copy(v, s, len + 1, NULL) == 0)
            out[n++] = s;
        else
            free(s);
    }
    rig_json_val arr = rig_json_get(args, "paths");
    for (size_t i = 0; rig_json_is_array(arr) && i < rig_json_len(arr) && n < max; i++) {
        rig_json_val v = rig_json_at(arr, i);
        size_t len = rig_json_str_len(v);
        char *s = rig_json_is_string(v) ? malloc(len + 1) : NULL;
        if (s && rig_json_str_copy(v, s, len + 1, NULL) == 0)
            out[n++] = s;
        else
            free(s);
    }
    return n;
}

rig_verdict rig_allowlist_check(const rig_allowlist *a, const char *tool, const char *args_json,
                                size_t len, char *reason, size_t cap)
{
    if (reason && cap)
        reason[0] = '\0';
    if (!tool) {
        say(reason, cap, "no tool named");
        return RIG_VERDICT_ASK;
    }
    rig_json_doc *d = rig_json_parse(args_json ? args_json : "{}", args_json ? len : 2, NULL,
                                     NULL);
    rig_json_val args = rig_json_doc_root(d);
    if (!d || !rig_json_is_object(args)) {
        rig_json_doc_free(d);
        say(reason, cap, "the arguments are not a JSON object");
        return RIG_VERDICT_ASK;
    }
    const entry *e = find(a, tool);
    rig_verdict v = RIG_VERDICT_ASK;
    bool whole = false;
    for (size_t p = 0; e && p < e->n; p++)
        whole |= strcmp(e->patterns[p], "*") == 0;
    if (whole) {
        say(reason, cap, "the allowlist allows %s with any arguments", tool);
        v = RIG_VERDICT_ALLOW;
    } else if (strcmp(tool, "shell") == 0) {
        v = check_shell(e, args, reason, cap);
    } else if (!e) {
        say(reason, cap, "the allowlist has nothing for %s", tool);
    } else {
        char *paths[64];
        size_t n = call_paths(args, paths, 64);
        v = n ? RIG_VERDICT_ALLOW : RIG_VERDICT_ASK;
        if (!n)
            say(reason, cap, "%s's allowlist names paths, and the call has none", tool);
        for (size_t i = 0; i < n; i++) {
            bool hit = false;
            for (size_t p = 0; p < e->n && !hit; p++)
                hit = strcmp(e->patterns[p], paths[i]) == 0;
            if (!hit && v == RIG_VERDICT_ALLOW) {
                say(reason, cap, "the allowlist does not name '%s' for %s", paths[i], tool);
                v = RIG_VERDICT_ASK;
            }
        }
        if (v == RIG_VERDICT_ALLOW)
            say(reason, cap, "the allowlist names every path of this %s call", tool);
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
    }
    rig_json_doc_free(d);
    return v;
}

/* ---- remembering "always" ------------------------------------------------- */

/* Commands that run other commands: remembering "sudo *" would allow
 * anything, so they are remembered exactly. */
static bool runs_others(const char *word)
{
    /* by the program's name, however it is reached: /bin/sh is sh */
    const char *name = strrchr(word, '/') ? strrchr(word, '/') + 1 : word;
    /* interpreters run whatever their arguments say (python3 -c ...), and
     * sed, awk and make can too; versioned names (python3.11) count */
    static const char *const prefixes[] = {"python", "node", "perl", "ruby", "php", "lua",
                                           "deno", "bun", "awk", "gawk", "mawk", "tclsh",
                                           "Rscript", "sed", "make", "npx", "pnpx", "bunx"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(name, prefixes[i], n) == 0 &&
            (name[n] == '\0' || (name[n] >= '0' && name[n] <= '9') || name[n] == '.'))
            return true;
    }
    static const char *const names[] = {
        "sh",     "bash",  "zsh",    "dash",   "ksh",     "fish",    "csh",   "tcsh",
        "env",    "xargs", "sudo",   "doas",   "su",      "eval",    "exec",  "nohup",
        "timeout", "nice", "ionice", "time",   "command", "builtin", "watch", "ssh",
        "strace", "chroot", "unshare", "nsenter", "setsid", "stdbuf", "script", "parallel",
        "source", ".",     "busybox", "flock", "taskset", "chrt"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* How many leading words an "always" keeps (REFERENCE 7). */
static size_t arity(const rig__sh_cmd *c)
{
    const char *name = c->words[0].text;
    const char *sub = c->nwords > 1 && c->words[1].literal ? c->words[1].text : "";
    if ((strcmp(name, "git") == 0 && strcmp(sub, "config") == 0) ||
        (strcmp(name, "npm") == 0 && strcmp(sub, "run") == 0) ||
        (strcmp(name, "docker") == 0 && strcmp(sub, "compose") == 0))
        return 3;
    if (strcmp(name, "git") == 0 || strcmp(name, "npm") == 0 || strcmp(name, "docker") == 0)
        return 2;
    return 1;
}

char *rig_allowlist_suggest(const char *tool, const char *args_json, size_t len)
{
    if (!tool)
        return NULL;
    rig_json_doc *d = rig_json_parse(args_json ? args_json : "{}", args_json ? len : 2, NULL,
                                     NULL);
    rig_json_val args = rig_json_doc_root(d);
    if (!d || !rig_json_is_object(args)) {
        rig_json_doc_free(d);
        return NULL;
    }
    rig__buf out = {0};
    bool ok = true;
    if (strcmp(tool, "shell") == 0) {
        char *cmds[SHELL_CMDS_MAX];
        size_t lens[SHELL_CMDS_MAX];
        size_t ncmds = shell_commands(args, cmds, lens, SHELL_CMDS_MAX);
        ok = ncmds > 0;
        for (size_t i = 0; i < ncmds; i++) {
            rig__sh_script s;
            if (!ok || rig__sh_parse(cmds[i], lens[i], &s, NULL, 0) != 0) {
                ok = false;
                continue;
            }
            for (size_t k = 0; k < s.n && ok; k++) {
                const rig__sh_cmd *c = &s.cmds[k];
                if (c->nassign || c->writes || !c->nwords) {
                    ok = false; /* a pattern cannot say those */
                    break;
                }
                rig__sh_cmd keep = *c;
                size_t n = arity(c);
                bool broaden = !runs_others(c->words[0].text) && !rig__sh_acts_by_option(c) &&
                               c->nwords >= n;
                for (size_t w = 1; broaden && w < n; w++)
                    broaden = c->words[w].literal && c->words[w].text[0] != '-';
                if (broaden) {
                    keep.nwords = n;
                } else {
                    for (size_t w = 0; w < c->nwords; w++)
                        ok &= c->words[w].literal; /* an exact pattern of an expansion */
                }
                /* a pattern is one line: a word with a newline (or another
                 * control character) in it cannot be written down as one */
                for (size_t w = 0; ok && w < keep.nwords; w++)
                    for (const char *q = keep.words[w].text; *q && ok; q++)
                        ok = (unsigned char)*q >= 0x20 && *q != 0x7f;
                if (!ok)
                    break;
                rig__buf line = {0};
                cmd_show(&keep, &line);
                if (broaden)
                    rig__buf_adds(&line, " *");
                /* one line per distinct pattern */
                bool seen = false;
                for (const char *q = out.p; q && *q && !seen;) {
                    const char *nl = strchr(q, '\n');
                    size_t l = nl ? (size_t)(nl - q) : strlen(q);
                    seen = l == line.len && memcmp(q, line.p, l) == 0;
                    q = nl ? nl + 1 : q + l;
                }
                if (!seen) {
                    rig__buf_add(&out, line.p, line.len);
                    rig__buf_addc(&out, '\n');
                }
                rig__buf_free(&line);
            }
            rig__sh_script_free(&s);
        }
        for (size_t i = 0; i < ncmds; i++)
            free(cmds[i]);
    } else {
        char *paths[64];
        size_t n = call_paths(args, paths, 64);
        for (size_t i = 0; i < n; i++) {
            rig__buf_adds(&out, paths[i]);
            rig__buf_addc(&out, '\n');
            free(paths[i]);
        }
        if (!n)
            rig__buf_adds(&out, "*\n"); /* a tool without paths: the tool as a whole */
    }
    rig_json_doc_free(d);
    if (!ok || out.oom || !out.len) {
        rig__buf_free(&out);
        return NULL;
    }
    out.p[out.len - 1] = '\0'; /* no newline after the last */
    return out.p;
}
