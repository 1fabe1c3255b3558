/* main.c — wordcount FILE...: print the lines, words and bytes of each
 * file, then a total when there are several, like wc(1). */
#include <stdio.h>
#include <stdlib.h>

#include "wordcount.h"

/* The whole file, NUL-terminated, in a malloc'd buffer; NULL on failure. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wordcount FILE...\n");
        return 2;
    }
    wc_counts total = {0, 0, 0};
    int status = 0;
    for (int i = 1; i < argc; i++) {
        size_t len = 0;
        char *text = slurp(argv[i], &len);
        if (!text) {
            perror(argv[i]);
            status = 1;
            continue;
        }
        wc_counts c = wc_count(text, len);
        free(text);
        printf("%8zu%8zu%8zu %s\n", c.lines, c.words, c.bytes, argv[i]);
        total.lines += c.lines;
        total.words += c.words;
        total.bytes += c.bytes;
    }
    if (argc > 2)
        printf("%8zu%8zu%8zu total\n", total.lines, total.words, total.bytes);
    return status;
}
