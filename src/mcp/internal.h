/* internal.h — what the MCP engine's files share: the server's state (its
 * catalog of resources, templates and prompts, and its sessions) and the
 * method bodies resources.c and prompts.c provide to server.c. Internal. */
#ifndef RIG_MCP_INTERNAL_H
#define RIG_MCP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "rig/json.h"
#include "rig/mcp.h"
#include "util/compiler.h"

struct rig_mcp_vars {
    size_t n;
    char **names;
    char **values;
};

struct rig_mcp_contents {
    rig_json_writer *w; /* inside the "contents" array */
    size_t n;
    int status;         /* the first failure */
};

struct rig_mcp_messages {
    rig_json_writer w;  /* the messages, each written whole */
    char *description;
    size_t n;
    int status;
};

struct rig_mcp_completion {
    rig_json_writer *w; /* inside the "values" array */
    size_t n, total;
    bool total_set, has_more;
};

/* A resource or a template. Never freed before the server: a removed one
 * moves to the server's `gone` list, so a read running without the lock
 * keeps a valid entry. */
struct mcp_resource {
    struct mcp_resource *next;
    char *uri, *name, *title, *description, *mime_type;
    rig_mcp_read_fn read;
    void *ud;
    char *text;         /* static text, or ... */
    char *blob;         /* ... static bytes, base64 */
    bool is_template;
};

struct mcp_prompt {
    struct mcp_prompt *next;
    char *name, *title, *description;
    rig_mcp_prompt_arg *args; /* strings owned */
    size_t n_args;
    rig_mcp_prompt_fn get;
    void *ud;
};

struct rig_mcp_server {
    rig_toolset *ts;
    char *name, *version, *title, *instructions;
    unsigned page_size;
    atomic_uint_fast64_t sessions; /* for session keys: "mcp-1", "mcp-2", ... */

    pthread_mutex_t mu; /* the catalog and the session list */
    struct mcp_resource *resources, *templates, *gone;
    struct mcp_prompt *prompts, *gone_prompts;
    rig_mcp_complete_fn complete;
    void *complete_ud;
    struct rig_mcp_conn *conns; /* live sessions, for notifications */
    bool listening;             /* subscribed to the toolset's add/remove */
    rig_mcp_roots_fn on_roots;  /* the application's, for the client's roots */
    void *roots_ud;
    rig_mcp_session_fn on_end;  /* ... and for a session's end */
    void *end_ud;
};

/* A method's outcome: 0 with the result written, or a JSON-RPC error code
 * with a message (static, or in `buf`). */
typedef struct mcp_reply {
    int code;
    const char *why;
    char buf[256];
} mcp_reply;

RIG_INTERNAL int rig__mcp_reply_error(mcp_reply *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Where a listing starts: 0 without a cursor; -1 (and `r` set) for a
 * cursor that is not one of rig's. */
RIG_INTERNAL long rig__mcp_cursor(rig_json_val params, mcp_reply *r);
/* The page of `n` items from `start`: its end in *end, or -32602 (and `r`)
 * for a start past the end. */
RIG_INTERNAL int rig__mcp_page(rig_mcp_server *s, long start, size_t n, size_t *end,
                               mcp_reply *r);
/* "nextCursor" when more follow `end` of `n`. */
RIG_INTERNAL void rig__mcp_write_next(rig_json_writer *w, size_t end, size_t n);

/* "key": val, when val is not NULL. */
RIG_INTERNAL void rig__mcp_write_opt(rig_json_writer *w, const char *key, const char *val);
/* strdup that notes a failure in *oom (NULL stays NULL). */
RIG_INTERNAL char *rig__mcp_dup_opt(const char *s, bool *oom);

/* A malloc'd copy of a string value; NULL if not a string, if it holds a
 * NUL, or out of memory. */
RIG_INTERNAL char *rig__mcp_strdup(rig_json_val v);

/* Tell every session `method` happened (no params), e.g. a list changed. */
RIG_INTERNAL void rig__mcp_broadcast(rig_mcp_server *s, const char *method);

/* rig_mcp_conn_receive of a message the transport has parsed already
 * (Streamable HTTP must look inside it first). */
RIG_INTERNAL int rig__mcp_conn_receive_root(rig_mcp_conn *c, rig_json_val root);

/* resources.c */
RIG_INTERNAL int rig__mcp_resources_list(rig_mcp_server *s, rig_json_val params,
                                         rig_json_writer *w, mcp_reply *r);
RIG_INTERNAL int rig__mcp_templates_list(rig_mcp_server *s, rig_json_val params,
                                         rig_json_writer *w, mcp_reply *r);
RIG_INTERNAL int rig__mcp_resources_read(rig_mcp_server *s, rig_json_val params,
                                         rig_json_writer *w, mcp_reply *r);
/* Is `uri` a resource or matches a template (subscribe checks this)? */
RIG_INTERNAL bool rig__mcp_resource_known(rig_mcp_server *s, const char *uri);
RIG_INTERNAL void rig__mcp_resources_free(rig_mcp_server *s);

/* prompts.c */
RIG_INTERNAL int rig__mcp_prompts_list(rig_mcp_server *s, rig_json_val params,
                                       rig_json_writer *w, mcp_reply *r);
RIG_INTERNAL int rig__mcp_prompts_get(rig_mcp_server *s, rig_json_val params, rig_json_writer *w,
                                      mcp_reply *r);
RIG_INTERNAL int rig__mcp_complete(rig_mcp_server *s, rig_json_val params, rig_json_writer *w,
                                   mcp_reply *r);
RIG_INTERNAL void rig__mcp_prompts_free(rig_mcp_server *s);

/* vars: a NULL-ended pair list built by the caller. */
RIG_INTERNAL void rig__mcp_vars_free(struct rig_mcp_vars *v);
RIG_INTERNAL int rig__mcp_vars_add(struct rig_mcp_vars *v, const char *name, size_t nlen,
                                   const char *value, size_t vlen);

/* roots.c: the local paths of a roots/list result's file:// roots, into
 * *paths (malloc'd, each string too: rig__mcp_paths_free) and *n. Other
 * URIs, and file URIs that name no local path, are left out (and said so
 * in `note`, cap bytes, when not NULL). -1 with `why` (cap bytes) for a
 * result MCP would not call one (no "roots" array, a root without a string
 * "uri"); -2 out of memory. */
RIG_INTERNAL int rig__mcp_roots_parse(rig_json_val result, char ***paths, size_t *n, char *why,
                                      char *note, size_t cap);
RIG_INTERNAL void rig__mcp_paths_free(char **paths, size_t n);
/* A file:// URI's local path, percent-decoded, into out (cap bytes): 0, or
 * -1 for a URI that is no file URI, names another host, or holds a bad or
 * NUL escape. */
RIG_INTERNAL int rig__mcp_file_uri_path(const char *uri, char *out, size_t cap);

/* MCP's "resource not found". */
#define RIG_MCP_RESOURCE_NOT_FOUND (-32002)

#endif
