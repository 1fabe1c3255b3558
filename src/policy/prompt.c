/* prompt.c — putting a question with numbered choices (rig_prompt) to a
 * person: through the call's MCP client as an elicitation form when it can
 * answer one, else through the gate's prompter (the terminal `rig call`
 * runs on), else nobody.
 *
 * The form has one string field, "choice", whose enum is the choice labels
 * themselves: a plain enum is read by every protocol version and client
 * (titled oneOf came in 2025-11-25, enumNames is deprecated), and the labels
 * are what a person reads anyway. When the prompt lets the person type an
 * answer, an optional string field "text" follows and the choice becomes
 * optional too, since a typed answer stands on its own. Decline and cancel
 * both count as dismissing the question; an accepted form with neither
 * field filled does too. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "policy/approval.h"
#include "rig/json.h"

static char *form_params(const rig_prompt *p)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "message");
    if (p->detail && *p->detail) {
        size_t tl = strlen(p->title), dl = strlen(p->detail);
        char *m = malloc(tl + dl + 3);
        if (m) {
            memcpy(m, p->title, tl);
            memcpy(m + tl, "\n\n", 2);
            memcpy(m + tl + 2, p->detail, dl + 1);
            rig_json_write_string(&w, m);
            free(m);
        } else {
            rig_json_write_string(&w, p->title);
        }
    } else {
        rig_json_write_string(&w, p->title);
    }
    rig_json_write_key(&w, "requestedSchema");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "type");
    rig_json_write_string(&w, "object");
    rig_json_write_key(&w, "properties");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "choice");
    rig_json_write_object_begin(&w);
    rig_json_write_key(&w, "type");
    rig_json_write_string(&w, "string");
    rig_json_write_key(&w, "title");
    rig_json_write_string(&w, "Choose one");
    rig_json_write_key(&w, "enum");
    rig_json_write_array_begin(&w);
    for (size_t i = 0; i < p->n_choices; i++)
        rig_json_write_string(&w, p->choices[i]);
    rig_json_write_array_end(&w);
    rig_json_write_object_end(&w);
    if (p->typed) {
        char title[256];
        snprintf(title, sizeof title, "Or type %s", p->typed);
        rig_json_write_key(&w, "text");
        rig_json_write_object_begin(&w);
        rig_json_write_key(&w, "type");
        rig_json_write_string(&w, "string");
        rig_json_write_key(&w, "title");
        rig_json_write_string(&w, title);
        rig_json_write_object_end(&w);
    }
    rig_json_write_object_end(&w);
    if (!p->typed) {
        rig_json_write_key(&w, "required");
        rig_json_write_array_begin(&w);
        rig_json_write_string(&w, "choice");
        rig_json_write_array_end(&w);
    }
    rig_json_write_object_end(&w);
    rig_json_write_object_end(&w);
    char *out = rig_json_writer_detach(&w, NULL);
    rig_json_writer_free(&w);
    return out;
}

/* `s` without leading and trailing white space, malloc'd; NULL when that
 * leaves nothing. */
static char *trimmed(const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    return len ? strndup(s, len) : NULL;
}

/* The client's answer to the form: {action, content}. */
static int read_answer(const rig_prompt *p, const char *answer, size_t len, int *choice,
                       char **text, rig_error *err)
{
    rig_json_doc *d = rig_json_parse(answer, len, NULL, NULL);
    rig_json_val root = rig_json_doc_root(d);
    rig_json_val action = rig_json_get(root, "action");
    int rc;
    if (!d || !rig_json_is_string(action)) {
        rc = rig_error_set(err, RIG_EPEER, "The client's answer to the question is not an "
                                           "elicitation result.");
    } else if (!rig_json_str_eq(action, "accept")) {
        rc = RIG_ECANCELED; /* decline or cancel */
    } else {
        rig_json_val content = rig_json_get(root, "content");
        rig_json_val c = rig_json_get(content, "choice");
        for (size_t i = 0; rig_json_is_string(c) && i < p->n_choices; i++)
            if (rig_json_str_eq(c, p->choices[i]))
                *choice = (int)i;
        rig_json_val t = rig_json_get(content, "text");
        if (p->typed && rig_json_is_string(t)) {
            size_t full = rig_json_str_len(t);
            char *buf = malloc(full + 1);
            if (buf && rig_json_str_copy(t, buf, full + 1, NULL) == 0)
                *text = trimmed(buf, full);
            free(buf);
        }
        rc = *choice >= 0 || *text ? RIG_OK : RIG_ECANCELED;
    }
    rig_json_doc_free(d);
    return rc;
}

int rig__person_ask(rig_approval *ap, rig_call *call, const rig_prompt *p, int *choice,
                    char **text, rig_error *err)
{
    *choice = -1;
    *text = NULL;
    char *params = form_params(p);
    if (!params)
        return rig_error_set(err, RIG_ENOMEM, "Out of memory asking the person.");
    char *answer = NULL;
    size_t alen = 0;
    rig_error e;
    rig_error_clear(&e);
    int rc = rig_call_ask(call, "elicitation/create", params, &answer, &alen, &e);
    free(params);
    if (rc == RIG_OK) {
        rc = read_answer(p, answer, alen, choice, text, err);
        free(answer);
        return rc;
    }
    if (rc != RIG_ENOTSUP && rc != RIG_ESTATE) {
        if (err)
            *err = e;
        /* The client went away mid-question: that is no answer from the
         * person, so it must not read as their dismissing it. */
        if (rc == RIG_ECANCELED && !rig_call_cancelled(call))
            return rig_error_set(err, RIG_EPEER, "The client went away before answering: %s",
                                 e.message);
        return rc;
    }
    void *ud = NULL;
    rig_prompt_fn fn = rig__approval_prompter(ap, &ud);
    if (fn) {
        rig_error pe;
        rig_error_clear(&pe);
        *choice = -1;
        rc = fn(call, p, choice, text, ud, &pe);
        if (rc != RIG_ENOTSUP) {
            if (rc != RIG_OK && rc != RIG_ECANCELED && err)
                *err = pe;
            return rc;
        }
        free(*text);
        *text = NULL;
        *choice = -1;
    }
    /* Why nobody: in words for the person reading the model's transcript. */
    const char *client;
    if (rc == RIG_ESTATE)
        client = "the tool runs inline, where rig cannot wait for the MCP client's answer";
    else if (call->root->peer && call->root->peer->ask)
        client = "the MCP client cannot ask its user (it did not declare the elicitation "
                 "capability)";
    else
        client = "no MCP client is there to ask its user";
    return rig_error_set(err, RIG_ENOTSUP, "%s, and there is no terminal to ask on.", client);
}
