/* test_content.c — rig_result: every block type, structuredContent, the
 * MCP encoding, ContentResult and EvaluationResult helpers, and the
 * head+tail cap. */
#include "testing.h"

static char *written(const rig_result *r)
{
    rig_json_writer w;
    rig_json_writer_init(&w, 0);
    assert_int_equal(rig_result_write(r, &w), RIG_OK);
    size_t len;
    char *s = rig_json_writer_detach(&w, &len);
    rig_json_writer_free(&w);
    return s;
}

static void test_every_block(void **state)
{
    (void)state;
    rig_result *r = rig_result_new();
    assert_int_equal(rig_result_text(r, "hi \"there\""), RIG_OK);
    assert_int_equal(rig_result_image(r, "iVBO", "image/png"), RIG_OK);
    assert_int_equal(rig_result_audio(r, "UklG", "audio/wav"), RIG_OK);
    assert_int_equal(rig_result_resource_link(r, "file:///a.txt", "a.txt", "A", "the a file",
                                              "text/plain", 12), RIG_OK);
    assert_int_equal(rig_result_resource_link(r, "file:///b", "b", NULL, NULL, NULL, -1), RIG_OK);
    assert_int_equal(rig_result_resource_text(r, "file:///c", "text/plain", "see"), RIG_OK);
    assert_int_equal(rig_result_resource_blob(r, "file:///d", "application/pdf", "JVBE"), RIG_OK);
    assert_int_equal(rig_result_count(r), 7);
    assert_int_equal(rig_result_block(r, 3)->size, 12);
    assert_null(rig_result_block(r, 7));
    char *s = written(r);
    assert_string_equal(s,
        "{\"content\":["
        "{\"type\":\"text\",\"text\":\"hi \\\"there\\\"\"},"
        "{\"type\":\"image\",\"data\":\"iVBO\",\"mimeType\":\"image/png\"},"
        "{\"type\":\"audio\",\"data\":\"UklG\",\"mimeType\":\"audio/wav\"},"
        "{\"type\":\"resource_link\",\"uri\":\"file:///a.txt\",\"name\":\"a.txt\",\"title\":\"A\","
        "\"description\":\"the a file\",\"mimeType\":\"text/plain\",\"size\":12},"
        "{\"type\":\"resource_link\",\"uri\":\"file:///b\",\"name\":\"b\"},"
        "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///c\",\"mimeType\":\"text/plain\","
        "\"text\":\"see\"}},"
        "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///d\",\"mimeType\":"
        "\"application/pdf\",\"blob\":\"JVBE\"}}]}");
    free(s);
    assert_int_equal(rig_result_status(r), RIG_OK);
    rig_result_free(r);
}

static void test_bad_blocks_are_remembered(void **state)
{
    (void)state;
    rig_result *r = rig_result_new();
    assert_int_equal(rig_result_image(r, "x", NULL), RIG_EINVAL);
    assert_int_equal(rig_result_resource_link(r, "", "n", NULL, NULL, NULL, -1), RIG_EINVAL);
    assert_int_equal(rig_result_structured(r, "[1]", 3), RIG_EJSON);
    assert_int_equal(rig_result_status(r), RIG_EINVAL); /* the first failure */
    assert_int_equal(rig_result_count(r), 0);
    rig_result_free(r);
    r = rig_result_new();
    assert_int_equal(rig_result_structured(r, "{\"a\":", 5), RIG_EJSON);
    assert_int_equal(rig_result_structured_end(r), RIG_ESTATE);
    rig_result_free(r);
}

static void test_structured(void **state)
{
    (void)state;
    rig_result *r = rig_result_new();
    rig_json_writer *w = rig_result_structured_begin(r);
    assert_non_null(w);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "k");
    rig_json_write_int(w, 1);
    rig_json_write_object_end(w);
    assert_int_equal(rig_result_structured_end(r), RIG_OK);
    size_t len;
    assert_string_equal(rig_result_structured_json(r, &len), "{\"k\":1}");
    rig_result_text(r, "one");
    rig_result_set_error(r, true);
    char *s = written(r);
    /* A text block exists, so the JSON is not repeated as text. */
    assert_string_equal(s, "{\"content\":[{\"type\":\"text\",\"text\":\"one\"}],"
                           "\"structuredContent\":{\"k\":1},\"isError\":true}");
    free(s);
    rig_result_free(r);
}

static void test_error_and_content_helpers(void **state)
{
    (void)state;
    rig_result *r = rig_result_error("File '%s' not found. List the directory first.", "a.txt");
    assert_true(rig_result_is_error(r));
    assert_string_equal(rig_result_block(r, 0)->text,
                        "File 'a.txt' not found. List the directory first.");
    rig_result_free(r);

    r = rig_result_content("done", NULL, "iVBO");
    assert_false(rig_result_is_error(r));
    assert_int_equal(rig_result_count(r), 2);
    assert_int_equal(rig_result_block(r, 1)->type, RIG_CONTENT_IMAGE);
    assert_string_equal(rig_result_block(r, 1)->mime_type, "image/png");
    rig_result_free(r);
    r = rig_result_content(NULL, "it broke", NULL);
    assert_true(rig_result_is_error(r));
    rig_result_free(r);
    r = rig_result_content("partial", "warning", NULL);
    assert_false(rig_result_is_error(r));
    size_t len;
    char *all = rig_result_text_all(r, &len);
    assert_string_equal(all, "partial\nwarning");
    assert_int_equal(len, 15);
    free(all);
    rig_result_free(r);
}

static void test_evaluation(void **state)
{
    (void)state;
    rig_subscore subs[] = {{"format", 1.0, 0.25}, {"content", 0.5, 0.75}};
    rig_evaluation ev = {.reward = 0.625, .done = true, .content = "mostly right",
                         .info_json = "{\"score\":62}", .subscores = subs, .n_subscores = 2};
    rig_result *r = rig_result_evaluation(&ev);
    assert_false(rig_result_is_error(r));
    size_t len;
    assert_string_equal(rig_result_structured_json(r, &len),
                        "{\"reward\":0.625,\"done\":true,\"content\":\"mostly right\","
                        "\"info\":{\"score\":62},\"isError\":false,\"subscores\":["
                        "{\"name\":\"format\",\"value\":1.0,\"weight\":0.25},"
                        "{\"name\":\"content\",\"value\":0.5,\"weight\":0.75}]}");
    assert_string_equal(rig_result_block(r, 0)->text, "Reward 0.625 (done): mostly right");
    rig_result_free(r);
    ev = (rig_evaluation){.reward = 0, .info_json = "[bad", .is_error = true};
    r = rig_result_evaluation(&ev);
    assert_int_equal(rig_result_status(r), RIG_EJSON);
    rig_result_free(r);
}

static void test_cap_utf8_and_blocks(void **state)
{
    (void)state;
    rig_result *r = rig_result_new();
    /* 30 two-byte characters in one block, an image, 30 more in another. */
    char block[61];
    for (int i = 0; i < 30; i++)
        memcpy(block + 2 * i, "\xc3\xa9", 2);
    block[60] = '\0';
    rig_result_text(r, block);
    rig_result_image(r, "iVBO", "image/png");
    rig_result_text(r, block);
    /* 61 characters (with the joining newline) fit under 61. */
    assert_int_equal(rig_result_cap(r, 61), 0);
    assert_int_equal(rig_result_cap(r, 20), 41);
    assert_int_equal(rig_result_count(r), 2); /* one text block left, the image kept */
    const rig_content *c = rig_result_block(r, 0);
    assert_int_equal(c->type, RIG_CONTENT_TEXT);
    assert_memory_equal(c->text, block, 20);     /* 10 characters of head */
    assert_non_null(strstr(c->text, "41 characters cut"));
    assert_memory_equal(c->text + c->text_len - 20, block, 20); /* 10 of tail */
    assert_int_equal(rig_result_block(r, 1)->type, RIG_CONTENT_IMAGE);
    rig_result_free(r);
}

/* The cap's edges: a cap of one character, empty text blocks, a four-byte
 * character at the cut, and bytes that are not UTF-8 at all (a binary file
 * read as text must not slip past the cap by counting as no characters). */
static void test_cap_edges(void **state)
{
    (void)state;
    rig_result *r = rig_result_new();
    rig_result_text(r, "ab");
    assert_int_equal(rig_result_cap(r, 1), 1);
    const rig_content *c = rig_result_block(r, 0);
    assert_int_equal(c->text[c->text_len - 1], 'b'); /* the tail character survives */
    assert_non_null(strstr(c->text, "1 characters cut"));
    rig_result_free(r);

    r = rig_result_new();
    rig_result_text(r, "");
    rig_result_text(r, "");
    rig_result_text(r, "0123456789");
    assert_int_equal(rig_result_cap(r, 12), 0); /* "\n\n0123456789" is 12 */
    assert_int_equal(rig_result_cap(r, 4), 8);
    assert_int_equal(rig_result_count(r), 1);
    c = rig_result_block(r, 0);
    assert_memory_equal(c->text, "\n\n", 2);
    assert_memory_equal(c->text + c->text_len - 2, "89", 2);
    rig_result_free(r);

    /* "a😀b😀c": the cut lands beside the 4-byte characters, never inside. */
    r = rig_result_new();
    rig_result_text(r, "a\xf0\x9f\x98\x80" "b\xf0\x9f\x98\x80" "c");
    assert_int_equal(rig_result_cap(r, 4), 1);
    c = rig_result_block(r, 0);
    assert_memory_equal(c->text, "a\xf0\x9f\x98\x80\n", 6);
    assert_memory_equal(c->text + c->text_len - 5, "\xf0\x9f\x98\x80" "c", 5);
    rig_result_free(r);

    r = rig_result_new();
    char junk[1000];
    memset(junk, 0x80, sizeof junk);
    rig_result_textn(r, junk, sizeof junk);
    assert_true(rig_result_cap(r, 100) > 0);
    assert_true(rig_result_block(r, 0)->text_len < 300);
    rig_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_block),
        cmocka_unit_test(test_bad_blocks_are_remembered),
        cmocka_unit_test(test_structured),
        cmocka_unit_test(test_error_and_content_helpers),
        cmocka_unit_test(test_evaluation),
        cmocka_unit_test(test_cap_utf8_and_blocks),
        cmocka_unit_test(test_cap_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
