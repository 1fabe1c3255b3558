/* wordcount.c — count the lines, words and bytes of a text, like wc(1).
 *
 * A word starts at a non-whitespace character that is the first of the
 * text or follows whitespace, so counting those starts counts the words. */
#include "wordcount.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

size_t wc_words(const char *text, size_t len)
{
    size_t words = 0;
    for (size_t i = 0; i <= len; i++) {
        if (!is_space(text[i]) && (i == 0 || is_space(text[i - 1])))
            words++;
    }
    return words;
}

size_t wc_lines(const char *text, size_t len)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            lines++;
    }
    return lines;
}

wc_counts wc_count(const char *text, size_t len)
{
    wc_counts c;
    c.lines = wc_lines(text, len);
    c.words = wc_words(text, len);
    c.bytes = len;
    return c;
}
