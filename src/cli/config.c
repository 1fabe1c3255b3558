/* config.c — rig's config file: a JSON object read from --config FILE, else
 * $RIG_CONFIG, else $XDG_CONFIG_HOME/rig/config.json (or
 * ~/.config/rig/config.json) when that exists. What it may hold so far:
 *
 *     {"allow_hosts": ["wiki.internal", "127.0.0.1"],
 *      "search": {"provider": "searxng" | "brave",
 *                 "url": "http://127.0.0.1:8888",
 *                 "api_key": "...", "api_key_env": "BRAVE_API_KEY"}}
 *
 * Members this file does not know are left for others (each feature reads
 * its own); inside "search" an unknown member is an error, since a typo
 * there would silently leave search unconfigured. A file given explicitly
 * (--config, $RIG_CONFIG) must exist; the default one may be absent. When
 * the file configures no search, RIG_SEARXNG_URL (a SearXNG base URL) or
 * BRAVE_API_KEY does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "rig/rig.h"

void cli_config_free(struct cli_config *c)
{
    rig_json_doc_free(c->doc);
    free(c->text);
    free(c->path);
    free(c->allow_hosts);
    rig_arena_free(c->arena);
    memset(c, 0, sizeof *c);
}

/* The file to read: explicit, $RIG_CONFIG, or the default path (malloc'd;
 * *must_exist says whether a missing file is an error). NULL: none. */
static char *config_path(const char *explicit_path, bool *must_exist)
{
    *must_exist = true;
    if (explicit_path)
        return strdup(explicit_path);
    const char *env = getenv("RIG_CONFIG");
    if (env && *env)
        return strdup(env);
    *must_exist = false;
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char buf[4096];
    if (xdg && *xdg)
        snprintf(buf, sizeof buf, "%s/rig/config.json", xdg);
    else if (home && *home)
        snprintf(buf, sizeof buf, "%s/.config/rig/config.json", home);
    else
        return NULL;
    return access(buf, F_OK) == 0 ? strdup(buf) : NULL;
}

/* A string member, decoded into the arena; NULL when absent. -1 (said on
 * stderr) when present but not a non-empty string. */
static int get_str(const char *cmd, const char *path, rig_json_val obj, const char *key,
                   const char *where, rig_arena *a, const char **out)
{
    rig_json_val v = rig_json_get(obj, key);
    *out = NULL;
    if (rig_json_typeof(v) == RIG_JSON_MISSING)
        return 0;
    if (rig_json_typeof(v) != RIG_JSON_STRING || rig_json_str_len(v) == 0) {
        fprintf(stderr, "rig %s: config %s: %s%s must be a non-empty string\n", cmd, path,
                where, key);
        return -1;
    }
    *out = rig_json_str_dup(v, a, NULL);
    return *out ? 0 : -1;
}

static int read_search(const char *cmd, const char *path, rig_json_val s, struct cli_config *c)
{
    static const char *const known[] = {"provider", "url", "api_key", "api_key_env", NULL};
    if (rig_json_typeof(s) != RIG_JSON_OBJECT) {
        fprintf(stderr, "rig %s: config %s: \"search\" must be an object like "
                        "{\"provider\": \"searxng\", \"url\": \"http://127.0.0.1:8888\"}\n",
                cmd, path);
        return -1;
    }
    rig_json_iter it = rig_json_iter_init(s);
    rig_json_val k, v;
    while (rig_json_iter_member(&it, &k, &v)) {
        bool ok = false;
        for (size_t i = 0; known[i] && !ok; i++)
            ok = rig_json_str_eq(k, known[i]);
        if (!ok) {
            const char *name = rig_json_str_dup(k, c->arena, NULL);
            fprintf(stderr, "rig %s: config %s: search.%s is not a setting (known: provider, "
                            "url, api_key, api_key_env)\n",
                    cmd, path, name ? name : "?");
            return -1;
        }
    }
    const char *provider, *url, *key, *key_env;
    if (get_str(cmd, path, s, "provider", "search.", c->arena, &provider) ||
        get_str(cmd, path, s, "url", "search.", c->arena, &url) ||
        get_str(cmd, path, s, "api_key", "search.", c->arena, &key) ||
        get_str(cmd, path, s, "api_key_env", "search.", c->arena, &key_env))
        return -1;
    if (!provider || (strcmp(provider, "searxng") != 0 && strcmp(provider, "brave") != 0)) {
        fprintf(stderr, "rig %s: config %s: search.provider must be \"searxng\" or \"brave\"%s\n",
                cmd, path, provider ? "" : " (it is missing)");
        return -1;
    }
    if (key && key_env) {
        fprintf(stderr, "rig %s: config %s: give search.api_key or search.api_key_env, not "
                        "both\n",
                cmd, path);
        return -1;
    }
    if (key_env) {
        key = getenv(key_env);
        if (!key || !*key) {
            fprintf(stderr, "rig %s: config %s: search.api_key_env names %s, which is not set\n",
                    cmd, path, key_env);
            return -1;
        }
    }
    if (strcmp(provider, "searxng") == 0) {
        if (!url) {
            fprintf(stderr, "rig %s: config %s: the searxng provider needs search.url (the "
                            "instance's base URL, e.g. http://127.0.0.1:8888)\n",
                    cmd, path);
            return -1;
        }
        c->web.search = RIG_SEARCH_SEARXNG;
    } else {
        if (!key) {
            fprintf(stderr, "rig %s: config %s: the brave provider needs search.api_key or "
                            "search.api_key_env\n",
                    cmd, path);
            return -1;
        }
        c->web.search = RIG_SEARCH_BRAVE;
    }
    c->web.search_url = url;
    c->web.search_api_key = key;
    return 0;
}

int cli_config_load(const char *cmd, const char *explicit_path, struct cli_config *c)
{
    memset(c, 0, sizeof *c);
    c->arena = rig_arena_new(0);
    if (!c->arena)
        goto nomem;
    bool must_exist;
    c->path = config_path(explicit_path, &must_exist);
    if (c->path) {
        size_t len = 0;
        int e = cli_read_file(c->path, &c->text, &len);
        if (e == ENOENT && !must_exist) {
            free(c->path);
            c->path = NULL;
        } else if (e) {
            fprintf(stderr, "rig %s: config %s: %s\n", cmd, c->path, strerror(e));
            goto fail;
        } else {
            rig_json_error jerr;
            c->doc = rig_json_parse(c->text, len, NULL, &jerr);
            if (!c->doc) {
                char where[200];
                rig_json_error_format(&jerr, where, sizeof where);
                fprintf(stderr, "rig %s: config %s: not JSON: %s\n", cmd, c->path, where);
                goto fail;
            }
            rig_json_val root = rig_json_doc_root(c->doc);
            if (rig_json_typeof(root) != RIG_JSON_OBJECT) {
                fprintf(stderr, "rig %s: config %s: must be a JSON object\n", cmd, c->path);
                goto fail;
            }
            rig_json_val hosts = rig_json_get(root, "allow_hosts");
            if (rig_json_typeof(hosts) != RIG_JSON_MISSING) {
                if (rig_json_typeof(hosts) != RIG_JSON_ARRAY) {
                    fprintf(stderr, "rig %s: config %s: allow_hosts must be an array of host "
                                    "names\n",
                            cmd, c->path);
                    goto fail;
                }
                size_t n = rig_json_len(hosts);
                c->allow_hosts = calloc(n + 1, sizeof *c->allow_hosts);
                if (!c->allow_hosts)
                    goto nomem;
                rig_json_iter it = rig_json_iter_init(hosts);
                rig_json_val h;
                while (rig_json_iter_next(&it, &h)) {
                    if (rig_json_typeof(h) != RIG_JSON_STRING || !rig_json_str_len(h)) {
                        fprintf(stderr, "rig %s: config %s: allow_hosts must be an array of "
                                        "host names (strings)\n",
                                cmd, c->path);
                        goto fail;
                    }
                    const char *s = rig_json_str_dup(h, c->arena, NULL);
                    if (!s)
                        goto nomem;
                    c->allow_hosts[c->n_allow_hosts++] = s;
                }
            }
            rig_json_val search = rig_json_get(root, "search");
            if (rig_json_typeof(search) != RIG_JSON_MISSING &&
                read_search(cmd, c->path, search, c) != 0)
                goto fail;
        }
    }
    if (c->web.search == RIG_SEARCH_NONE) {
        const char *sx = getenv("RIG_SEARXNG_URL"), *brave = getenv("BRAVE_API_KEY");
        if (sx && *sx) {
            c->web.search = RIG_SEARCH_SEARXNG;
            c->web.search_url = sx;
        } else if (brave && *brave) {
            c->web.search = RIG_SEARCH_BRAVE;
            c->web.search_api_key = brave;
        }
    }
    return 0;
nomem:
    fprintf(stderr, "rig %s: out of memory\n", cmd);
fail:
    cli_config_free(c);
    return -1;
}
