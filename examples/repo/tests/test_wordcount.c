/* test_wordcount.c — the library's tests: each case is a text and the
 * counts wc(1) gives for it. Prints each failure, then a summary line
 * "wordcount: N tests, M failed"; exits 1 when one failed. */
#include <stdio.h>
#include <string.h>

#include "wordcount.h"

static const struct {
    const char *text;
    size_t lines, words;
} cases[] = {
    {"", 0, 0},
    {"one", 0, 1},
    {"one two three", 0, 3},
    {"one two three\n", 1, 3},
    {"  leading and trailing  ", 0, 3},
    {"tabs\tand\nnewlines\n", 2, 3},
    {"\n\n\n", 3, 0},
    {"a b c d e f g h i j", 0, 10},
    {"x\r\ny\r\n", 2, 2},
};

int main(void)
{
    int tests = 0, failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *t = cases[i].text;
        wc_counts c = wc_count(t, strlen(t));
        tests++;
        if (c.words != cases[i].words || c.lines != cases[i].lines || c.bytes != strlen(t)) {
            failed++;
            printf("FAIL case %zu: got %zu lines %zu words %zu bytes, want %zu lines %zu words "
                   "%zu bytes\n",
                   i + 1, c.lines, c.words, c.bytes, cases[i].lines, cases[i].words, strlen(t));
        }
    }
    printf("wordcount: %d tests, %d failed\n", tests, failed);
    return failed ? 1 : 0;
}
