/* wordcount.h — count the lines, words and bytes of a text, like wc(1). */
#ifndef WORDCOUNT_H
#define WORDCOUNT_H

#include <stddef.h>

typedef struct wc_counts {
    size_t lines;
    size_t words;
    size_t bytes;
} wc_counts;

/* The words in text[0..len): runs of non-whitespace. text must be
 * NUL-terminated at text[len]. */
size_t wc_words(const char *text, size_t len);

/* The newline characters in text[0..len). */
size_t wc_lines(const char *text, size_t len);

/* All three counts of text[0..len). */
wc_counts wc_count(const char *text, size_t len);

#endif
