/* format.c — the "format" values the validator asserts: date-time, date and
 * time (RFC 3339 section 5.6), uri (RFC 3986 section 3: absolute, scheme
 * required) and email (an RFC 5321 addr-spec, pragmatically). Every other
 * format name is an annotation and not checked.
 *
 * Each check is a small hand-written grammar over the decoded bytes of a
 * string: none of the libraries rig links (libc, PCRE2, libcurl's URL API,
 * which accepts what browsers accept rather than RFC 3986) checks these
 * grammars exactly, and each fits in a page. Strings may hold NUL bytes, so
 * everything takes a length. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "core/schema_internal.h"
#include "util/hex.h"

static const char *const format_names[] = {
    [RIG__FORMAT_DATE_TIME] = "date-time",
    [RIG__FORMAT_DATE] = "date",
    [RIG__FORMAT_TIME] = "time",
    [RIG__FORMAT_URI] = "uri",
    [RIG__FORMAT_EMAIL] = "email",
};

int rig__format_lookup(const char *name, size_t len)
{
    for (int f = 1; f < (int)(sizeof format_names / sizeof format_names[0]); f++)
        if (strlen(format_names[f]) == len && memcmp(format_names[f], name, len) == 0)
            return f;
    return RIG__FORMAT_NONE;
}

const char *rig__format_name(int format)
{
    if (format <= RIG__FORMAT_NONE ||
        format >= (int)(sizeof format_names / sizeof format_names[0]))
        return "?";
    return format_names[format];
}

/* ---------------------------------------------------------------- RFC 3339 */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* n digits at s[*i], as a number; false if any is not a digit. */
static bool digits(const char *s, size_t len, size_t *i, int n, int *out)
{
    if (len - *i < (size_t)n)
        return false;
    int v = 0;
    for (int k = 0; k < n; k++) {
        char c = s[*i + (size_t)k];
        if (!is_digit(c))
            return false;
        v = v * 10 + (c - '0');
    }
    *i += (size_t)n;
    *out = v;
    return true;
}

static bool lit(const char *s, size_t len, size_t *i, char c)
{
    if (*i >= len || s[*i] != c)
        return false;
    (*i)++;
    return true;
}

/* full-date = date-fullyear "-" date-month "-" date-mday, with the day checked
 * against the month (and leap years, by the Gregorian rule). */
static bool full_date(const char *s, size_t len, size_t *i)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, m, d;
    if (!digits(s, len, i, 4, &y) || !lit(s, len, i, '-') || !digits(s, len, i, 2, &m) ||
        !lit(s, len, i, '-') || !digits(s, len, i, 2, &d))
        return false;
    if (m < 1 || m > 12 || d < 1)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int max = mdays[m - 1] + (m == 2 && leap);
    return d <= max;
}

/* full-time = partial-time time-offset. A leap second (ss = 60) is allowed
 * only where it can occur: at 23:59 UTC, once the offset is applied. */
static bool full_time(const char *s, size_t len, size_t *i)
{
    int h, m, sec;
    if (!digits(s, len, i, 2, &h) || !lit(s, len, i, ':') || !digits(s, len, i, 2, &m) ||
        !lit(s, len, i, ':') || !digits(s, len, i, 2, &sec))
        return false;
    if (h > 23 || m > 59 || sec > 60)
        return false;
    if (*i < len && s[*i] == '.') {
        (*i)++;
        size_t start = *i;
        while (*i < len && is_digit(s[*i]))
            (*i)++;
        if (*i == start)
            return false;
    }
    if (*i >= len)
        return false;
    int off_min = 0;
    if (s[*i] == 'Z' || s[*i] == 'z') {
        (*i)++;
    } else if (s[*i] == '+' || s[*i] == '-') {
        int sign = s[*i] == '-' ? -1 : 1, oh, om;
        (*i)++;
        if (!digits(s, len, i, 2, &oh) || !lit(s, len, i, ':') || !digits(s, len, i, 2, &om))
            return false;
        if (oh > 23 || om > 59)
            return false;
        off_min = sign * (oh * 60 + om);
    } else {
        return false;
    }
    if (sec == 60) {
        int utc = ((h * 60 + m - off_min) % 1440 + 1440) % 1440;
        if (utc != 23 * 60 + 59)
            return false;
    }
    return true;
}

static bool check_date_time(const char *s, size_t len)
{
    size_t i = 0;
    if (!full_date(s, len, &i))
        return false;
    if (i >= len || (s[i] != 'T' && s[i] != 't'))
        return false;
    i++;
    return full_time(s, len, &i) && i == len;
}

static bool check_date(const char *s, size_t len)
{
    size_t i = 0;
    return full_date(s, len, &i) && i == len;
}

static bool check_time(const char *s, size_t len)
{
    size_t i = 0;
    return full_time(s, len, &i) && i == len;
}

/* ---------------------------------------------------------------- RFC 3986 */

static bool is_unreserved(char c)
{
    return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

static bool is_sub_delim(char c) { return c && strchr("!$&'()*+,;=", c) != NULL; }

/* Skips a run of characters that are unreserved, sub-delims, pct-encoded or
 * in `extra`; false on a malformed percent escape. */
static bool run(const char *s, size_t len, size_t *i, const char *extra)
{
    while (*i < len) {
        char c = s[*i];
        if (c == '%') {
            if (len - *i < 3 || !rig__is_hex(s[*i + 1]) || !rig__is_hex(s[*i + 2]))
                return false;
            *i += 3;
        } else if (is_unreserved(c) || is_sub_delim(c) || (c && strchr(extra, c))) {
            (*i)++;
        } else {
            break;
        }
    }
    return true;
}

/* IP-literal = "[" ( IPv6address / IPvFuture ) "]", the brackets excluded. */
static bool ip_literal(const char *s, size_t len)
{
    if (len >= 2 && (s[0] == 'v' || s[0] == 'V')) {
        size_t i = 1;
        while (i < len && rig__is_hex(s[i]))
            i++;
        if (i == 1 || i >= len || s[i] != '.')
            return false;
        i++;
        if (i == len)
            return false;
        for (; i < len; i++)
            if (!is_unreserved(s[i]) && !is_sub_delim(s[i]) && s[i] != ':')
                return false;
        return true;
    }
    char buf[64];
    unsigned char addr[16];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return inet_pton(AF_INET6, buf, addr) == 1;
}

/* URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ] */
static bool check_uri(const char *s, size_t len)
{
    size_t i = 0;
    if (len == 0 || !is_alpha(s[0]))
        return false;
    while (i < len &&
           (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
        i++;
    if (i >= len || s[i] != ':')
        return false;
    i++;
    if (len - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
        /* authority = [ userinfo "@" ] host [ ":" port ] */
        i += 2;
        size_t end = i;
        while (end < len && s[end] != '/' && s[end] != '?' && s[end] != '#')
            end++;
        const char *at = memchr(s + i, '@', end - i);
        if (at) {
            size_t u = i, uend = (size_t)(at - s);
            if (!run(s, uend, &u, ":") || u != uend)
                return false;
            i = uend + 1;
        }
        if (i < end && s[i] == '[') {
            const char *close = memchr(s + i, ']', end - i);
            if (!close || !ip_literal(s + i + 1, (size_t)(close - s) - i - 1))
                return false;
            i = (size_t)(close - s) + 1;
        } else {
            /* reg-name, which includes IPv4address */
            if (!run(s, end, &i, ""))
                return false;
        }
        if (i < end && s[i] == ':') {
            i++;
            while (i < end && is_digit(s[i]))
                i++;
        }
        if (i != end)
            return false;
        /* path-abempty */
    }
    /* the path (absolute, rootless or empty): pchars and slashes */
    if (!run(s, len, &i, ":@/"))
        return false;
    if (i < len && s[i] == '?') {
        i++;
        if (!run(s, len, &i, ":@/?"))
            return false;
    }
    if (i < len && s[i] == '#') {
        i++;
        if (!run(s, len, &i, ":@/?"))
            return false;
    }
    return i == len;
}

/* ---------------------------------------------------------------- email */

static bool is_atext(char c)
{
    return is_alpha(c) || is_digit(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL);
}

/* addr-spec = local-part "@" domain (RFC 5321 section 4.1.2): the local part a
 * dot-string or a quoted string, the domain host names (LDH labels of 1 to 63
 * characters, no hyphen at either end) or an address literal. ASCII only:
 * internationalized addresses are the "idn-email" format. */
static bool check_email(const char *s, size_t len)
{
    if (len > 254)
        return false;
    size_t i = 0;
    if (len > 0 && s[0] == '"') {
        i = 1;
        for (;;) {
            if (i >= len)
                return false;
            char c = s[i];
            if (c == '"')
                break;
            if (c == '\\') {
                if (i + 1 >= len || s[i + 1] < 0x20 || s[i + 1] > 0x7e)
                    return false;
                i += 2;
            } else if (c >= 0x20 && c <= 0x7e) {
                i++;
            } else {
                return false;
            }
        }
        i++;
    } else {
        bool dot_ok = false;
        while (i < len && s[i] != '@') {
            if (s[i] == '.') {
                if (!dot_ok)
                    return false;
                dot_ok = false;
            } else if (is_atext(s[i])) {
                dot_ok = true;
            } else {
                return false;
            }
            i++;
        }
        if (i == 0 || !dot_ok)
            return false;
    }
    if (i > 64 || i >= len || s[i] != '@')
        return false;
    const char *d = s + i + 1;
    size_t dl = len - i - 1;
    if (dl == 0)
        return false;
    if (d[0] == '[') {
        if (dl < 3 || d[dl - 1] != ']')
            return false;
        char buf[64];
        unsigned char addr[16];
        size_t n = dl - 2;
        if (n >= sizeof buf)
            return false;
        memcpy(buf, d + 1, n);
        buf[n] = '\0';
        if (n > 5 && strncasecmp(buf, "IPv6:", 5) == 0)
            return inet_pton(AF_INET6, buf + 5, addr) == 1;
        return inet_pton(AF_INET, buf, addr) == 1;
    }
    size_t label = 0;
    for (size_t k = 0; k < dl; k++) {
        char c = d[k];
        if (c == '.') {
            if (label == 0 || d[k - 1] == '-')
                return false;
            label = 0;
        } else if (is_alpha(c) || is_digit(c) || c == '-') {
            if ((label == 0 && c == '-') || ++label > 63)
                return false;
        } else {
            return false;
        }
    }
    return label > 0 && d[dl - 1] != '-';
}

bool rig__format_check(int format, const char *s, size_t len)
{
    switch (format) {
    case RIG__FORMAT_DATE_TIME: return check_date_time(s, len);
    case RIG__FORMAT_DATE: return check_date(s, len);
    case RIG__FORMAT_TIME: return check_time(s, len);
    case RIG__FORMAT_URI: return check_uri(s, len);
    case RIG__FORMAT_EMAIL: return check_email(s, len);
    default: return true;
    }
}
