/* approval_testing.h — the fixture test_approval.c, test_ask.c and
 * test_plan.c share: a fresh directory tree, a toolset with the file tools,
 * a stand-in `shell` and an inline tool with side effects, the interaction
 * tools, and the approval gate in a chosen mode; a scripted prompter (the
 * person at a terminal) and a scripted MCP peer (a client answering
 * elicitation/create), both recording what they were asked.
 *
 *   base/root/         the one root the file tools serve
 *   base/allow.json    the allowlist file
 *
 * The includer defines _GNU_SOURCE before any include. */
#ifndef RIG_APPROVAL_TESTING_H
#define RIG_APPROVAL_TESTING_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before including approval_testing.h"
#endif

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin_testing.h"

#include "rig/fs.h"
#include "rig/policy.h"
#include "rig/roots.h"

#define SCRIPT_MAX 8

static char base[64], root[128], allow_path[160];
static rig_roots *roots;
static rig_toolset *ts;
static rig_approval *ap;

/* ---- the person at the terminal ----------------------------------------- */

static struct {
    int rc[SCRIPT_MAX];          /* RIG_OK, RIG_ECANCELED, RIG_ENOTSUP */
    int choice[SCRIPT_MAX];
    const char *text[SCRIPT_MAX];
    size_t n, next;
    /* What was asked, the last time. */
    size_t asked;
    char title[512], detail[8192];
    size_t n_choices;
    char choices[8][128];
    bool typed;
} person;

/* Queue one answer: `rc`, with `choice` and `text` when rc is RIG_OK. */
static inline void person_says(int rc, int choice, const char *text)
{
    assert_true(person.n < SCRIPT_MAX);
    person.rc[person.n] = rc;
    person.choice[person.n] = choice;
    person.text[person.n] = text;
    person.n++;
}

static inline int fake_prompt(rig_call *call, const rig_prompt *p, int *choice, char **text,
                              void *ud, rig_error *err)
{
    (void)call, (void)ud, (void)err;
    person.asked++;
    snprintf(person.title, sizeof person.title, "%s", p->title);
    snprintf(person.detail, sizeof person.detail, "%s", p->detail ? p->detail : "");
    person.n_choices = p->n_choices;
    for (size_t i = 0; i < p->n_choices && i < 8; i++)
        snprintf(person.choices[i], sizeof person.choices[i], "%s", p->choices[i]);
    person.typed = p->typed != NULL;
    if (person.next == person.n)
        return RIG_ENOTSUP; /* nobody at the terminal */
    size_t k = person.next++;
    *choice = person.choice[k];
    *text = person.text[k] ? strdup(person.text[k]) : NULL;
    return person.rc[k];
}

/* ---- the MCP client ------------------------------------------------------ */

static struct {
    const char *answer[SCRIPT_MAX]; /* elicitation results; NULL: answer with an error */
    size_t n, next;
    bool cannot;                    /* the client did not declare elicitation */
    size_t asked;
    char method[64];
    char *params;                   /* the last request's params */
} client;

static inline void client_says(const char *answer)
{
    assert_true(client.n < SCRIPT_MAX);
    client.answer[client.n++] = answer;
}

static inline int fake_ask(rig_call *call, const char *method, const char *params, size_t len,
                           char **answer, size_t *answer_len, rig_error *err, void *ud)
{
    (void)call, (void)ud;
    if (client.cannot)
        return rig_error_set(err, RIG_ENOTSUP, "The client did not declare the 'elicitation' "
                                               "capability.");
    client.asked++;
    snprintf(client.method, sizeof client.method, "%s", method);
    free(client.params);
    client.params = strndup(params, len);
    assert_true(client.next < client.n);
    const char *a = client.answer[client.next++];
    if (!a)
        return rig_error_set(err, RIG_EPEER, "the client failed");
    *answer = strdup(a);
    *answer_len = strlen(a);
    return RIG_OK;
}

static const rig_call_peer fake_peer = {.ask = fake_ask};

/* ---- tools standing in for others --------------------------------------- */

static int shell_runs;

static inline rig_result *fake_shell_run(rig_call *call)
{
    (void)call;
    shell_runs++;
    rig_result *r = rig_result_new();
    rig_result_text(r, "ran");
    return r;
}

/* A tool with side effects that runs inline: the gate cannot elicit for it. */
static inline rig_result *poke_run(rig_call *call)
{
    (void)call;
    rig_result *r = rig_result_new();
    rig_result_text(r, "poked");
    return r;
}

static inline void add_tool(const char *name, rig_tool_fn fn, unsigned flags)
{
    rig_error err;
    rig_tool *t = rig_tool_new(name, &err);
    assert_non_null(t);
    const char *schema = "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"}}}";
    assert_int_equal(rig_tool_set_input_schema(t, schema, strlen(schema), &err), RIG_OK);
    rig_annotations a = {.read_only = RIG_HINT_FALSE};
    rig_tool_set_annotations(t, &a);
    rig_tool_set_executor(t, fn, NULL, NULL);
    rig_tool_set_flags(t, flags);
    assert_int_equal(rig_toolset_add(ts, t, &err), RIG_OK);
}

/* ---- the fixture ---------------------------------------------------------- */

static inline int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

/* (Re)make the toolset and a gate in `mode` reading the allowlist `list`
 * (NULL: allow_path), with the scripted prompter when `prompter`. */
static inline void regate(rig_policy_mode mode, const char *list, bool prompter)
{
    rig_toolset_free(ts);
    rig_approval_free(ap);
    rig_error err;
    ts = rig_toolset_new();
    assert_int_equal(rig_fs_tools_add(ts, roots, &err), RIG_OK);
    add_tool("shell", fake_shell_run, 0);
    add_tool("poke", poke_run, RIG_TOOL_INLINE);
    ap = rig_approval_new(mode, list ? list : allow_path, &err);
    if (!ap)
        fail_msg("rig_approval_new: %s", err.message);
    rig_approval_set_roots(ap, roots);
    if (prompter)
        rig_approval_set_prompt(ap, fake_prompt, NULL);
    assert_int_equal(rig_approval_add_tools(ap, ts, &err), RIG_OK);
    assert_int_equal(rig_approval_attach(ap, ts, &err), RIG_OK);
}

/* The tree, the toolset and a gate in `mode`, with the scripted prompter
 * when `prompter`. */
static inline void fixture(rig_policy_mode mode, bool prompter)
{
    memset(&person, 0, sizeof person);
    free(client.params);
    memset(&client, 0, sizeof client);
    shell_runs = 0;
    ts = NULL;
    ap = NULL;
    snprintf(base, sizeof base, "/tmp/rig-appr-XXXXXX");
    assert_non_null(mkdtemp(base));
    snprintf(root, sizeof root, "%s/root", base);
    assert_int_equal(mkdir(root, 0755), 0);
    snprintf(allow_path, sizeof allow_path, "%s/allow.json", base);
    rig_error err;
    roots = rig_roots_new();
    assert_int_equal(rig_roots_add(roots, root, &err), RIG_OK);
    regate(mode, NULL, prompter);
}

static inline int teardown(void **state)
{
    (void)state;
    rig_toolset_free(ts);
    ts = NULL;
    rig_approval_free(ap);
    ap = NULL;
    rig_roots_free(roots);
    roots = NULL;
    free(client.params);
    client.params = NULL;
    nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* Call `name` with `args` in `session`; through the scripted client when
 * `via_client`. */
static inline rig_result *call_as(const char *name, const char *session, const char *args,
                                  bool via_client, rig_error *err)
{
    rig_call_opts o = {.session = session};
    if (via_client)
        o.peer = &fake_peer;
    rig_result *r = rig_toolset_call(ts, name, args, strlen(args), &o, err);
    assert_non_null(r);
    return r;
}

/* A file under root: its content (malloc'd) or NULL when absent. */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, m);
    fclose(f);
    fclose(m);
    return buf;
}

static inline char *in_root(const char *rel)
{
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
    return p[k];
}

/* structuredContent of `r`, parsed. */
static inline rig_json_doc *structured(const rig_result *r)
{
    size_t len = 0;
    const char *json = rig_result_structured_json(r, &len);
    assert_non_null(json);
    rig_json_doc *d = rig_json_parse(json, len, NULL, NULL);
    assert_non_null(d);
    return d;
}

static inline void assert_member_str(rig_json_doc *d, const char *ptr, const char *want)
{
    rig_json_val v = rig_json_pointer(rig_json_doc_root(d), ptr);
    if (!want) {
        if (rig_json_typeof(v) != RIG_JSON_NULL)
            fail_msg("%s: expected null", ptr);
        return;
    }
    if (!rig_json_str_eq(v, want)) {
        size_t n = 0;
        const char *raw = rig_json_raw(v, &n);
        fail_msg("%s: expected \"%s\", got %.*s", ptr, want, (int)n, raw ? raw : "(missing)");
    }
}

#endif
