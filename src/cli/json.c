/* json.c — `rig json`: check and reformat JSON files with rig's own parser and
 * writer. Useful by itself (precise error positions, strict UTF-8) and a way
 * to drive the JSON layer from the shell. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "rig/json.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rig json check [OPTIONS] FILE...\n"
            "       rig json fmt [--compact] [OPTIONS] [FILE]\n"
            "\n"
            "check   parse each FILE ('-' is stdin); print 'FILE: ok' or where it fails\n"
            "fmt     print FILE (default stdin) pretty (default) or --compact; duplicate\n"
            "        keys collapse to the last, as every rig reader sees them\n"
            "\n"
            "options:\n"
            "  --max-size BYTES   largest input accepted (default 64 MiB)\n"
            "  --max-depth N      deepest nesting accepted (default 512)\n"
            "  --strict           lone surrogate escapes and integers beyond int64 are errors\n"
            "  --allow-bom        skip a leading UTF-8 byte order mark\n"
            "\n"
            "exit status: 0 ok, 1 invalid JSON or unreadable file, 2 usage error\n");
}

static bool parse_size(const char *s, unsigned long long *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return false;
    *out = v;
    return true;
}

/* Parses one file; prints the error (prefixed with path) on failure. */
static rig_json_doc *load(const char *path, const rig_json_options *opts, char **text) {
    size_t len;
    int e = cli_read_file(path, text, &len);
    if (e) {
        fprintf(stderr, "%s: %s\n", path, strerror(e));
        return NULL;
    }
    rig_json_error err;
    rig_json_doc *doc = rig_json_parse(*text, len, opts, &err);
    if (!doc) {
        char msg[256];
        rig_json_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", path, msg);
        free(*text);
        *text = NULL;
    }
    return doc;
}

int cli_json(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    const char *sub = argv[1];
    bool check = strcmp(sub, "check") == 0, fmt = strcmp(sub, "fmt") == 0;
    if (!check && !fmt) {
        fprintf(stderr, "rig json: unknown subcommand '%s'\n", sub);
        usage(stderr);
        return CLI_USAGE;
    }
    rig_json_options opts = {0};
    unsigned wflags = RIG_JSON_WRITE_PRETTY;
    const char *files[256];
    int nfiles = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        unsigned long long v;
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return CLI_OK;
        } else if (strcmp(a, "--compact") == 0 && fmt) {
            wflags = 0;
        } else if (strcmp(a, "--strict") == 0) {
            opts.flags |= RIG_JSON_STRICT_SURROGATES | RIG_JSON_REJECT_BIG_INTEGERS;
        } else if (strcmp(a, "--allow-bom") == 0) {
            opts.flags |= RIG_JSON_ALLOW_BOM;
        } else if ((strcmp(a, "--max-size") == 0 || strcmp(a, "--max-depth") == 0) && i + 1 < argc) {
            if (!parse_size(argv[++i], &v) || v == 0 ||
                (a[6] == 'd' ? v > 100000000ull : v > RIG_JSON_MAX_SIZE_LIMIT)) {
                fprintf(stderr, "rig json: %s needs a positive number within limits, not '%s'\n", a,
                        argv[i]);
                return CLI_USAGE;
            }
            if (a[6] == 'd')
                opts.max_depth = (unsigned)v;
            else
                opts.max_size = (size_t)v;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "rig json %s: unknown option '%s'\n", sub, a);
            return CLI_USAGE;
        } else if (nfiles < (int)(sizeof files / sizeof files[0])) {
            files[nfiles++] = a;
        } else {
            fprintf(stderr, "rig json: too many files\n");
            return CLI_USAGE;
        }
    }
    if (check && nfiles == 0) {
        fprintf(stderr, "rig json check: name at least one FILE ('-' for stdin)\n");
        return CLI_USAGE;
    }
    if (fmt && nfiles > 1) {
        fprintf(stderr, "rig json fmt: formats one FILE at a time\n");
        return CLI_USAGE;
    }
    if (fmt && nfiles == 0)
        files[nfiles++] = "-";

    int status = CLI_OK;
    for (int i = 0; i < nfiles; i++) {
        char *text = NULL;
        rig_json_doc *doc = load(files[i], &opts, &text);
        if (!doc) {
            status = CLI_FAIL;
            continue;
        }
        if (check) {
            printf("%s: ok\n", files[i]);
        } else {
            rig_json_writer w;
            rig_json_writer_init(&w, wflags);
            rig_json_write_value(&w, rig_json_doc_root(doc));
            size_t len;
            const char *out = rig_json_writer_finish(&w, &len);
            if (out) {
                fwrite(out, 1, len, stdout);
                fputc('\n', stdout);
            } else {
                fprintf(stderr, "%s: %s\n", files[i], rig_json_strerror(rig_json_writer_error(&w)));
                status = CLI_FAIL;
            }
            rig_json_writer_free(&w);
        }
        rig_json_doc_free(doc);
        free(text);
    }
    if (fflush(stdout) != 0) {
        perror("rig json: stdout");
        return CLI_FAIL;
    }
    return status;
}
