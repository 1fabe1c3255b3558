/* roots.c — the client's roots: from the result of a roots/list rig sent
 * the client to the local directory paths the application confines file
 * tools to.
 *
 * MCP names roots by URI and says they are file:// URIs for now. A file URI
 * (RFC 8089) is "file://" host path, or "file:" path with no authority; its
 * path is percent-encoded. Only a path on this machine can be a root: host
 * empty or "localhost". Whatever else a client sends (another scheme, a
 * remote host, "%00") is left out, with a note the client is told, rather
 * than failing the whole answer: the other roots still count. An answer
 * without a "roots" array, or a root without a "uri" string, is not
 * MCP's, and the caller keeps the roots it had. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcp/internal.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int rig__mcp_file_uri_path(const char *uri, char *out, size_t cap)
{
    if (!uri || !out || cap < 2 || strncasecmp(uri, "file:", 5) != 0)
        return -1;
    const char *p = uri + 5;
    if (p[0] == '/' && p[1] == '/') {
        const char *host = p + 2;
        const char *slash = strchr(host, '/');
        if (!slash)
            return -1;
        size_t hlen = (size_t)(slash - host);
        if (hlen && !(hlen == 9 && strncasecmp(host, "localhost", 9) == 0))
            return -1; /* another machine's path */
        p = slash;
    }
    if (p[0] != '/')
        return -1;
    /* A query or fragment is no part of the path (a '?' or '#' in a file's
     * name comes encoded). */
    size_t end = strcspn(p, "?#");
    size_t o = 0;
    for (size_t i = 0; i < end; i++) {
        char c = p[i];
        if (c == '%') {
            int hi = i + 2 < end ? hexval(p[i + 1]) : -1;
            int lo = hi >= 0 ? hexval(p[i + 2]) : -1;
            if (lo < 0 || (hi == 0 && lo == 0))
                return -1; /* a bad escape, or a NUL no path can hold */
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (o + 1 >= cap)
            return -1;
        out[o++] = c;
    }
    out[o] = '\0';
    return 0;
}

void rig__mcp_paths_free(char **paths, size_t n)
{
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
}

/* Append "sentence" to note (cap bytes), space-separated, cut at the end. */
static void note_add(char *note, size_t cap, const char *uri, const char *why)
{
    if (!note || !cap)
        return;
    size_t o = strlen(note);
    if (o + 1 < cap)
        snprintf(note + o, cap - o, "%sRoot '%.200s' left out: %s.", o ? " " : "", uri, why);
}

int rig__mcp_roots_parse(rig_json_val result, char ***paths_out, size_t *n_out, char *why,
                         char *note, size_t cap)
{
    *paths_out = NULL;
    *n_out = 0;
    if (note && cap)
        note[0] = '\0';
    rig_json_val roots = rig_json_get(result, "roots");
    if (!rig_json_is_array(roots)) {
        snprintf(why, cap, "the answer to roots/list has no \"roots\" array");
        return -1;
    }
    size_t count = rig_json_len(roots);
    for (size_t i = 0; i < count; i++)
        if (!rig_json_is_string(rig_json_get(rig_json_at(roots, i), "uri"))) {
            snprintf(why, cap, "root %zu of the answer to roots/list has no \"uri\" string", i);
            return -1;
        }
    char **paths = calloc(count ? count : 1, sizeof *paths);
    if (!paths)
        return -2;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        char *uri = rig__mcp_strdup(rig_json_get(rig_json_at(roots, i), "uri"));
        if (!uri) {
            /* A string that is no C string (a NUL inside) or out of memory. */
            note_add(note, cap, "(a uri holding NUL)", "not a path");
            continue;
        }
        char path[PATH_MAX];
        if (strncasecmp(uri, "file:", 5) != 0) {
            note_add(note, cap, uri, "only file:// roots name directories");
        } else if (rig__mcp_file_uri_path(uri, path, sizeof path) != 0) {
            note_add(note, cap, uri, "not a file URI of this machine");
        } else if (!(paths[n] = strdup(path))) {
            free(uri);
            rig__mcp_paths_free(paths, n);
            return -2;
        } else {
            n++;
        }
        free(uri);
    }
    *paths_out = paths;
    *n_out = n;
    return 0;
}
