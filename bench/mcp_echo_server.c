/* mcp_echo_server.c — rig's side of the MCP benchmark (bench_mcp.c): an MCP
 * server with one tool, echo, the same shape as server-everything's
 * ({"message": string} in, the text "Echo: <message>" out), so that both
 * servers are measured doing the same work. `rig serve` cannot stand in: its
 * built-in tools have no echo, and any other tool would do different work.
 *
 *   mcp_echo_server [--inline]                      MCP over stdin/stdout
 *   mcp_echo_server [--inline] --http HOST:PORT     MCP over Streamable HTTP
 *
 * The tool goes through the worker pool, as every tool does unless it is
 * marked otherwise; --inline marks it RIG_TOOL_INLINE (pure, bounded work run
 * on the transport's thread), which an echo may honestly claim, to show what
 * the worker hand-off costs per call.
 *
 * Streamable HTTP: meson.build defines BENCH_HAVE_MCP_HTTP once rig/mcp.h
 * declares rig_mcp_serve_http(server, opts, ready, ud, err) and the library
 * builds src/mcp/http.c. Until then --http says so on stderr and exits with
 * status 3 before listening, which bench_mcp reports as a skipped row. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig/rig.h"

static const char schema[] =
    "{\"type\":\"object\","
    "\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"Message to echo\"}},"
    "\"required\":[\"message\"]}";

static rig_result *echo(rig_call *call) {
    size_t len = 0;
    const char *msg = rig_call_str(call, "message", &len);
    rig_result *r = rig_result_new();
    if (r)
        rig_result_textf(r, "Echo: %.*s", (int)len, msg ? msg : "");
    return r;
}

static int serve_http(rig_mcp_server *s, const char *addr, rig_error *err) {
#ifdef BENCH_HAVE_MCP_HTTP
    char host[256];
    const char *colon = strrchr(addr, ':');
    unsigned long port = colon ? strtoul(colon + 1, NULL, 10) : 0;
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host || !port || port > 65535)
        return rig_error_set(err, RIG_EINVAL, "--http wants HOST:PORT, not %s", addr);
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    rig_mcp_http_opts opts = {.host = host, .port = (unsigned)port};
    return rig_mcp_serve_http(s, &opts, NULL, NULL, err);
#else
    (void)s;
    return rig_error_set(err, RIG_ENOTSUP,
                         "this librig has no MCP Streamable HTTP transport (rig_mcp_serve_http) "
                         "yet; cannot serve on %s", addr);
#endif
}

int main(int argc, char **argv) {
    const char *http = NULL;
    unsigned flags = 0, workers = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--inline") == 0) {
            flags |= RIG_TOOL_INLINE;
        } else if (strcmp(argv[i], "--http") == 0 && i + 1 < argc) {
            http = argv[++i];
        } else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
            workers = (unsigned)atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: mcp_echo_server [--inline] [--workers N] [--http HOST:PORT]\n");
            return 2;
        }
    }

    rig_error err;
    rig_toolset *ts = rig_toolset_new();
    if (ts && workers)
        rig_toolset_set_workers(ts, workers);
    rig_tool *tool = rig_tool_new("echo", &err);
    if (!ts || !tool || rig_tool_set_input_schema(tool, schema, sizeof schema - 1, &err) != RIG_OK)
        goto fail;
    rig_tool_set_title(tool, "Echo Tool");
    rig_tool_set_description(tool, "Echoes back the input string");
    rig_tool_set_annotations(tool, &(rig_annotations){.read_only = RIG_HINT_TRUE,
                                                      .destructive = RIG_HINT_FALSE,
                                                      .idempotent = RIG_HINT_TRUE,
                                                      .open_world = RIG_HINT_FALSE});
    rig_tool_set_executor(tool, echo, NULL, NULL);
    rig_tool_set_flags(tool, flags);
    if (rig_toolset_add(ts, tool, &err) != RIG_OK)
        goto fail;
    tool = NULL;

    rig_mcp_info info = {.name = "rig-bench-echo", .version = rig_version()};
    rig_mcp_server *s = rig_mcp_server_new(ts, &info, &err);
    if (!s)
        goto fail;
    int rc = http ? serve_http(s, http, &err) : rig_mcp_serve_stdio(s, 0, 1, &err);
    rig_mcp_server_free(s);
    rig_toolset_free(ts);
    if (rc != RIG_OK) {
        fprintf(stderr, "mcp_echo_server: %s\n", err.message);
        return rc == RIG_ENOTSUP ? 3 : 1;
    }
    return 0;

fail:
    fprintf(stderr, "mcp_echo_server: %s\n", ts ? err.message : "out of memory");
    rig_tool_free(tool);
    rig_toolset_free(ts);
    return 1;
}
