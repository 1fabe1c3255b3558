/* fuzz_policy.c — the shell reader (src/policy/shparse.h) and the
 * allowlist (rig/policy.h) on hostile command lines.
 *
 * Each input is a command line. Checked:
 *
 *   - rig__sh_parse returns 0 or -1; on -1 it says why and lists nothing;
 *     on 0 every command has a first word that is literal (or no words and
 *     either assignments or a file it writes), and literal words hold no
 *     NUL;
 *   - the verdict of rig_allowlist_check under an allowlist of "*"-ended
 *     patterns is ALLOW only when the line parsed and every command has
 *     no assignments, writes nothing, starts with an allowed name and
 *     carries no option that writes or runs (rig__sh_acts_by_option);
 *   - when rig_allowlist_suggest gives patterns, adding them to an empty
 *     allowlist allows the same line (an "always" is never forgotten on
 *     the next call), and the line followed by another command still asks. */
#include "fuzz_common.h"

#include "policy/shparse.h"
#include "rig/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const allowed[] = {"git", "ls", "echo", "cat"};

static bool name_allowed(const char *name)
{
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        if (strcmp(name, allowed[i]) == 0)
            return true;
    return false;
}

/* The call's arguments: {"command": LINE}, LINE escaped for JSON. */
static char *args_of(const char *line, size_t len, const char *tail)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "command");
    size_t tl = tail ? strlen(tail) : 0;
    char *full = malloc(len + tl + 1);
    FUZZ_CHECK(full, "see the property above");
    memcpy(full, line, len);
    if (tl)
        memcpy(full + len, tail, tl);
    rig_json_write_stringn(&w, full, len + tl);
    free(full);
    rig_json_write_object_end(&w);
    size_t n = 0;
    const char *j = rig_json_writer_finish(&w, &n);
    char *out = j ? strndup(j, n) : NULL;
    rig_json_writer_free(&w);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    const char *line = (const char *)data;
    rig__sh_script s;
    char why[256];
    int rc = rig__sh_parse(line, size, &s, why, sizeof why);
    FUZZ_CHECK(rc == 0 || rc == -1, "see the property above");
    bool expect_allow = rc == 0;
    if (rc == -1) {
        FUZZ_CHECK(why[0] != '\0', "see the property above");
        FUZZ_CHECK(s.n == 0 && s.cmds == NULL, "see the property above");
    }
    for (size_t i = 0; i < s.n; i++) {
        const rig__sh_cmd *c = &s.cmds[i];
        FUZZ_CHECK(c->nwords || c->nassign || c->writes, "see the property above");
        if (c->nwords)
            FUZZ_CHECK(c->words[0].literal, "see the property above");
        if (c->nassign || c->writes || !c->nwords || !name_allowed(c->words[0].text) ||
            rig__sh_acts_by_option(c))
            expect_allow = false;
    }
    rig__sh_script_free(&s);

    rig_allowlist *a = rig_allowlist_new();
    FUZZ_CHECK(a, "see the property above");
    rig_error err;
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++) {
        char pat[32];
        snprintf(pat, sizeof pat, "%s *", allowed[i]);
        FUZZ_CHECK(rig_allowlist_add(a, "shell", pat, &err) == RIG_OK, "see the property above");
    }
    char *args = args_of(line, size, NULL);
    if (args) {
        char reason[256];
        rig_verdict v = rig_allowlist_check(a, "shell", args, strlen(args), reason, sizeof reason);
        FUZZ_CHECK((v == RIG_VERDICT_ALLOW) == expect_allow, "see the property above");
        char *sug = rig_allowlist_suggest("shell", args, strlen(args));
        if (sug) {
            /* the loop below cuts sug into its lines */
            bool tail_named = strstr(sug, "rig-fuzz-never-allowed") != NULL;
            rig_allowlist *b = rig_allowlist_new();
            FUZZ_CHECK(b, "see the property above");
            for (char *p = sug; *p;) {
                char *nl = strchr(p, '\n');
                if (nl)
                    *nl = '\0';
                FUZZ_CHECK(rig_allowlist_add(b, "shell", p, &err) == RIG_OK, "see the property above");
                p = nl ? nl + 1 : p + strlen(p);
            }
            FUZZ_CHECK(rig_allowlist_check(b, "shell", args, strlen(args), NULL, 0) ==
                     RIG_VERDICT_ALLOW, "see the property above");
            /* (unless the line itself ran the tail's command, and so made
             * its pattern) */
            char *worse = tail_named
                              ? NULL
                              : args_of(line, size, "\n; rig-fuzz-never-allowed ~");
            if (worse)
                FUZZ_CHECK(rig_allowlist_check(b, "shell", worse, strlen(worse), NULL, 0) ==
                         RIG_VERDICT_ASK, "see the property above");
            free(worse);
            rig_allowlist_free(b);
            free(sug);
        }
        free(args);
    }
    rig_allowlist_free(a);
    return 0;
}
