/* ask.c — `ask_user`: the model puts a multiple-choice question to the
 * person and waits for the answer (Hooman's ask_user).
 *
 * The person is reached as the approval gate reaches them (policy/prompt.c):
 * the MCP client's elicitation form (the options as an enum, plus a field to
 * type an answer of their own), else the terminal of `rig call` as a
 * numbered prompt. Nobody there is not an error: the result says
 * no_user_available and the model goes on by its own judgement; a
 * dismissed question says dismissed. A typed answer wins over a picked
 * option: the person typed because no option fitted.
 *
 * Annotations: read-only (asking changes nothing outside), not idempotent
 * (each call asks again), closed world. The gate never asks approval for
 * it: the question is the interaction. It must not run inline: waiting for
 * the client's answer needs a worker thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/approval.h"
#include "tools/builtins.h"

#define ASK_MAX_OPTIONS 5

static void write_structured(rig_result *r, const char *status, const char *answer, int index)
{
    rig_json_writer *w = rig_result_structured_begin(r);
    if (w) {
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "status");
        rig_json_write_string(w, status);
        rig_json_write_key(w, "answer");
        if (answer)
            rig_json_write_string(w, answer);
        else
            rig_json_write_null(w);
        rig_json_write_key(w, "option_index");
        if (index >= 0)
            rig_json_write_int(w, index);
        else
            rig_json_write_null(w);
        rig_json_write_object_end(w);
    }
    rig_result_structured_end(r);
}

static rig_result *ask_run(rig_call *call)
{
    rig_approval *ap = rig_call_data(call);
    const char *question = rig_call_str(call, "question", NULL);
    const char *options[ASK_MAX_OPTIONS];
    size_t n = 0;
    rig_json_iter it = rig_json_iter_init(rig_json_get(rig_call_args(call), "options"));
    rig_json_val v;
    while (n < ASK_MAX_OPTIONS && rig_json_iter_next(&it, &v)) {
        const char *s = rig_json_str_dup(v, rig_call_arena(call), NULL);
        if (!s)
            return rig_result_error("Out of memory reading the options. Try again later.");
        options[n++] = s;
    }
    if (!question || n < 2)
        return rig_result_error("Give a question and 2 to 5 options.");

    rig_prompt p = {.title = question,
                    .detail = NULL,
                    .choices = options,
                    .n_choices = n,
                    .typed = "your own answer"};
    int choice = -1;
    char *text = NULL;
    rig_error err;
    rig_error_clear(&err);
    int rc = rig__person_ask(ap, call, &p, &choice, &text, &err);
    rig_result *r = NULL;
    if (rc == RIG_OK) {
        r = rig_result_new();
        if (text) {
            rig_result_textf(r, "The user answered in their own words: %s", text);
            write_structured(r, "answered", text, -1);
        } else {
            rig_result_textf(r, "The user chose option %d: %s", choice + 1, options[choice]);
            write_structured(r, "answered", options[choice], choice);
        }
    } else if (rc == RIG_ECANCELED && !rig_call_cancelled(call)) {
        r = rig_result_new();
        rig_result_text(r, "The user dismissed the question without answering. Go on by your "
                           "own judgement, or ask again differently if you cannot.");
        write_structured(r, "dismissed", NULL, -1);
    } else if (rc == RIG_ENOTSUP) {
        r = rig_result_new();
        rig_result_textf(r, "No user is available to answer: %s Go on by your own judgement: "
                            "take the option you would recommend, and say so in your answer.",
                         err.message);
        write_structured(r, "no_user_available", NULL, -1);
    } else if (rc == RIG_EPEER) {
        /* The client could not show the question: as good as nobody. */
        r = rig_result_new();
        rig_result_textf(r, "No user is available to answer: %s Go on by your own judgement.",
                         err.message);
        write_structured(r, "no_user_available", NULL, -1);
    } else {
        r = rig_result_error("The question was not answered: %s",
                             err.message[0] ? err.message : rig_strerror(rc));
    }
    free(text);
    return r;
}

static const rig_builtin_spec ask_spec = {
    .name = "ask_user",
    .title = "Ask the user",
    .description =
        "Ask the user a multiple-choice question and wait for the answer. Use it when a "
        "decision is the user's to make (a preference, a trade-off, missing information) "
        "and guessing would waste work; not for things you can find out yourself. Give 2 to "
        "5 short options, the one you recommend first. The user may pick an option, type "
        "an answer of their own, or dismiss the question.\n"
        "Returns status 'answered' with the answer (and option_index, 0-based, when an "
        "option was picked), 'dismissed', or 'no_user_available' when nobody can be asked "
        "(then go on by your own judgement).",
    .input_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"question\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":2000,"
        "\"description\":\"The question, complete on its own: the user may not have seen "
        "the conversation.\"},"
        "\"options\":{\"type\":\"array\",\"minItems\":2,\"maxItems\":5,\"uniqueItems\":true,"
        "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
        "\"description\":\"2 to 5 short, distinct answers, the recommended one first.\"}},"
        "\"required\":[\"question\",\"options\"],\"additionalProperties\":false}",
    .output_schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"status\":{\"enum\":[\"answered\",\"dismissed\",\"no_user_available\"]},"
        "\"answer\":{\"type\":[\"string\",\"null\"]},"
        "\"option_index\":{\"type\":[\"integer\",\"null\"],\"minimum\":0}},"
        "\"required\":[\"status\",\"answer\",\"option_index\"]}",
    .annotations = {.read_only = RIG_HINT_TRUE,
                    .destructive = RIG_HINT_FALSE,
                    .idempotent = RIG_HINT_FALSE,
                    .open_world = RIG_HINT_FALSE},
    .flags = 0, /* never inline: it waits for the client's answer */
    .fn = ask_run,
};

rig_tool *rig__ask_tool_new(rig_approval *ap, rig_error *err)
{
    return rig__builtin_new(&ask_spec, ap, NULL, err);
}
