/* test_fs_session.c — every file tool works in the roots of its call's
 * session (a client's roots/list, rig_roots_set_session), through a
 * toolset, in a fresh tree under /tmp:
 *
 *   base/root/     the base root (--root): served.txt
 *   base/client/   the session's root: client.txt
 *
 * A call in session "s" sees client/ and nothing of root/; a call in no
 * session, or in another one, sees root/ as before; each tool's refusal
 * names the session's root. (grep takes its roots the same way once
 * fs_grep.c calls rig__fs_with_roots.) */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <unistd.h>

#include "fs_testing.h"

#include "rig/fs.h"
#include "rig/roots.h"
#include "tools/fs.h"

/* The session's root, beside root (the fixture's outside is not made). */
static char client[128];

/* dir/name holding `text`. */
static void put_in(const char *dir, const char *name, const char *text) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
    (void)state;
    if (fs_make_base("session"))
        return -1;
    snprintf(client, sizeof client, "%s/client", base);
    if (mkdir(client, 0755))
        return -1;
    put_in(root, "served.txt", "served by --root\n");
    put_in(client, "client.txt", "the client's own\n");
    if (fs_make_tools())
        return -1;
    rig_error err;
    const char *mine[1] = {client};
    if (rig_roots_set_session(roots, "s", mine, 1, &err) != 1)
        return -1;
    return 0;
}

/* `tool` with `args` in `session`: ok, and its text holds `want`. */
static void ok_in(const char *session, const char *tool, const char *args, const char *want) {
    rig_error err = {0};
    rig_result *r = call_in(ts, tool, session, args, &err);
    assert_ok_result(r, err);
    char *t = text_of(r);
    if (want && !strstr(t, want))
        fail_msg("%s %s in %s: wanted '%s' in:\n%s", tool, args, session ? session : "-", want, t);
    free(t);
    rig_result_free(r);
}

/* `tool` with `args` in `session`: an error result holding `want`. */
static void refused_in(const char *session, const char *tool, const char *args, const char *want) {
    rig_error err = {0};
    rig_result *r = call_in(ts, tool, session, args, &err);
    assert_error_with(r, want);
    rig_result_free(r);
}

static bool exists(const char *dir, const char *name) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return stat(p, &st) == 0;
}

static void test_reading_tools(void **state) {
    (void)state;
    char args[512], denied[256];
    snprintf(denied, sizeof denied, "allowed directories (%s)", client);
    /* read_file: relative against the session's root; the base's refused. */
    ok_in("s", "read_file", "{\"path\":\"client.txt\"}", "the client's own");
    ok_in(NULL, "read_file", "{\"path\":\"served.txt\"}", "served by --root");
    ok_in("other", "read_file", "{\"path\":\"served.txt\"}", "served by --root");
    refused_in("s", "read_file", "{\"path\":\"served.txt\"}", "No such file");
    snprintf(args, sizeof args, "{\"path\":\"%s/served.txt\"}", root);
    refused_in("s", "read_file", args, denied);
    snprintf(args, sizeof args, "{\"path\":\"%s/client.txt\"}", client);
    ok_in("s", "read_file", args, "the client's own");
    refused_in(NULL, "read_file", args, "outside the allowed directories");
    /* read_multiple_files */
    snprintf(args, sizeof args, "{\"paths\":[\"client.txt\",\"%s/served.txt\"]}", root);
    ok_in("s", "read_multiple_files", args, "the client's own");
    ok_in("s", "read_multiple_files", args, denied);
    /* list_directory, directory_tree: "." is the session's root. */
    ok_in("s", "list_directory", "{\"path\":\".\"}", "client.txt");
    ok_in(NULL, "list_directory", "{\"path\":\".\"}", "served.txt");
    snprintf(args, sizeof args, "{\"path\":\"%s\"}", root);
    refused_in("s", "list_directory", args, denied);
    ok_in("s", "directory_tree", "{\"path\":\".\"}", "client.txt");
    refused_in("s", "directory_tree", args, denied);
    /* get_file_info */
    ok_in("s", "get_file_info", "{\"path\":\"client.txt\"}", "file");
    snprintf(args, sizeof args, "{\"path\":\"%s/served.txt\"}", root);
    refused_in("s", "get_file_info", args, denied);
    /* glob */
    ok_in("s", "glob", "{\"pattern\":\"*.txt\"}", "client.txt");
    ok_in(NULL, "glob", "{\"pattern\":\"*.txt\"}", "served.txt");
    snprintf(args, sizeof args, "{\"pattern\":\"*.txt\",\"path\":\"%s\"}", root);
    refused_in("s", "glob", args, denied);
    /* grep */
    ok_in("s", "grep", "{\"pattern\":\"own\"}", "client.txt");
    ok_in(NULL, "grep", "{\"pattern\":\"served\"}", "served.txt");
    snprintf(args, sizeof args, "{\"pattern\":\"served\",\"path\":\"%s\"}", root);
    refused_in("s", "grep", args, denied);
}

static void test_writing_tools(void **state) {
    (void)state;
    char args[512], denied[256];
    snprintf(denied, sizeof denied, "allowed directories (%s)", client);
    ok_in("s", "write_file", "{\"path\":\"new.txt\",\"content\":\"fresh\\n\"}", NULL);
    assert_true(exists(client, "new.txt"));
    assert_false(exists(root, "new.txt"));
    snprintf(args, sizeof args, "{\"path\":\"%s/new.txt\",\"content\":\"x\"}", root);
    refused_in("s", "write_file", args, denied);
    assert_false(exists(root, "new.txt"));
    ok_in("s", "create_directory", "{\"path\":\"made\"}", NULL);
    assert_true(exists(client, "made"));
    snprintf(args, sizeof args, "{\"path\":\"%s/made\"}", root);
    refused_in("s", "create_directory", args, denied);
    assert_false(exists(root, "made"));
    ok_in("s", "move_file", "{\"source\":\"new.txt\",\"destination\":\"made/moved.txt\"}", NULL);
    assert_true(exists(client, "made/moved.txt"));
    snprintf(args, sizeof args, "{\"source\":\"made/moved.txt\",\"destination\":\"%s/x.txt\"}",
             root);
    refused_in("s", "move_file", args, denied);
    assert_false(exists(root, "x.txt"));
    ok_in("s", "edit_file",
          "{\"path\":\"client.txt\",\"edits\":[{\"oldText\":\"own\",\"newText\":\"edited\"}]}",
          NULL);
    ok_in("s", "read_file", "{\"path\":\"client.txt\"}", "the client's edited");
    snprintf(args, sizeof args,
             "{\"path\":\"%s/served.txt\",\"edits\":[{\"oldText\":\"served\","
             "\"newText\":\"x\"}]}",
             root);
    refused_in("s", "edit_file", args, denied);
    ok_in(NULL, "read_file", "{\"path\":\"served.txt\"}", "served by --root");
}

static void test_session_change_and_drop(void **state) {
    (void)state;
    rig_error err;
    /* The session's roots change: the next call sees the new ones. */
    const char *both[2] = {root, client};
    assert_int_equal(rig_roots_set_session(roots, "s", both, 2, &err), 2);
    ok_in("s", "read_file", "{\"path\":\"served.txt\"}", "served by --root");
    char args[256];
    snprintf(args, sizeof args, "{\"path\":\"%s/client.txt\"}", client);
    ok_in("s", "read_file", args, "the client's own");
    /* None usable: every path refused, saying why. */
    const char *gone[1] = {"/nonexistent-rig-root"};
    assert_int_equal(rig_roots_set_session(roots, "s", gone, 1, &err), 0);
    refused_in("s", "read_file", "{\"path\":\"served.txt\"}", "No directory is allowed");
    refused_in("s", "list_directory", "{\"path\":\".\"}", "No directory is allowed");
    /* Dropped (the session ended): the base's again. */
    rig_roots_drop_session(roots, "s");
    ok_in("s", "read_file", "{\"path\":\"served.txt\"}", "served by --root");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reading_tools, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_writing_tools, setup, fs_teardown),
        cmocka_unit_test_setup_teardown(test_session_change_and_drop, setup, fs_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
