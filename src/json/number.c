/* number.c — the slow, exact half of number handling: text to double when the
 * parser's fast path cannot be exact, and double to the shortest text that
 * reads back to the same bits.
 *
 * Both lean on glibc, whose strtod and printf are correctly rounded, and pin
 * the "C" locale so a process running in a locale with a decimal comma still
 * reads and writes JSON. Formatting tries 15, then 16, then 17 significant
 * digits; see shortest_digits for why that yields the shortest form. A Ryu-style
 * formatter would be several times faster; doubles are rare on rig's hot paths
 * (ids, names, text), so exactness won over speed here. */
#define _GNU_SOURCE
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/internal.h"

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t get_c_locale(void) {
    pthread_once(&c_locale_once, c_locale_init);
    return c_locale;
}

static double strtod_c(const char *s) {
    locale_t loc = get_c_locale();
    return loc ? strtod_l(s, NULL, loc) : strtod(s, NULL);
}

int rig__number_to_double(const char *text, size_t len, double *out) {
    /* strtod needs a terminator, and the input has none of its own. */
    char small[128];
    char *buf = small;
    if (len >= sizeof small && !(buf = malloc(len + 1)))
        return RIG_JSON_ENOMEM;
    memcpy(buf, text, len);
    buf[len] = '\0';
    double d = strtod_c(buf);
    if (buf != small)
        free(buf);
    if (isinf(d))
        return RIG_JSON_ERANGE;
    *out = d;
    return 0;
}

size_t rig__number_len(const char *p, const char *end) {
    const char *s = p;
    while (p < end) {
        char c = *p;
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')
            p++;
        else
            break;
    }
    return (size_t)(p - s);
}

/* ---- formatting */

/* Prints v (> 0, finite) with prec significant digits and reads it back.
 * Fills digits (no point) and the decimal exponent k (v ~ d.ddd x 10^k). */
static bool try_digits(double v, int prec, char *digits, int *k) {
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
    /* tmp is "d.ddd...e+XX" (or "de+XX" when prec is 1) */
    const char *e = strchr(tmp, 'e');
    int nd = 0;
    for (const char *q = tmp; q < e; q++)
        if (*q >= '0' && *q <= '9')
            digits[nd++] = *q;
    digits[nd] = '\0';
    *k = atoi(e + 1);
    return strtod_c(tmp) == v;
}

/* Rebuilds "d.ddd e k" from digits and reads it back. */
static double digits_value(const char *digits, int k) {
    char tmp[48];
    size_t n = strlen(digits);
    tmp[0] = digits[0];
    tmp[1] = '.';
    memcpy(tmp + 2, digits + 1, n - 1);
    snprintf(tmp + 1 + n, sizeof tmp - 1 - n, "e%d", k);
    return strtod_c(tmp);
}

/* Steps a digit string up or down by one unit in its last place. */
static void digits_step(char *digits, int *k, int dir) {
    int n = (int)strlen(digits), i = n - 1;
    if (dir > 0) {
        while (i >= 0 && digits[i] == '9')
            digits[i--] = '0';
        if (i >= 0) {
            digits[i]++;
        } else { /* 999 -> 1000: one more power of ten, same length */
            digits[0] = '1';
            (*k)++;
        }
    } else {
        while (i >= 0 && digits[i] == '0')
            digits[i--] = '9';
        digits[i]--;
        if (digits[0] == '0') { /* 1000 -> 0999 -> 9999 x 10^(k-1) */
            memmove(digits, digits + 1, (size_t)n - 1);
            digits[n - 1] = '9';
            (*k)--;
        }
    }
}

/* The shortest digit string that reads back as v.
 *
 * A double carries 15.95 decimal digits, so if any string of 15 or fewer digits
 * reads back as v, it lies within half an ulp of v, which is less than half a
 * unit in the 15th digit: it is then the correctly rounded 15-digit form with
 * its trailing zeros dropped. Failing that, if any 16-digit string reads back,
 * one of v's two 16-digit neighbours does (the round-trip interval contains v
 * and is convex); we try the nearest, then the other (the interval is lopsided
 * at powers of two). Seventeen digits always read back. All of this assumes a
 * normal double's 53 bits of precision. */
/* Does some prec-digit string read back as v? Tries the nearest, then the
 * other neighbour of v at that precision. */
static bool try_precision(double v, int prec, char *digits, int *k) {
    if (try_digits(v, prec, digits, k))
        return true;
    double near = digits_value(digits, *k);
    char alt[24];
    int ak = *k;
    memcpy(alt, digits, (size_t)prec + 1);
    digits_step(alt, &ak, near < v ? 1 : -1);
    if (digits_value(alt, ak) != v)
        return false;
    memcpy(digits, alt, (size_t)prec + 1);
    *k = ak;
    return true;
}

static int shortest_digits(double v, char *digits, int *k) {
    if (v < DBL_MIN) {
        /* Subnormals carry fewer than 53 bits, so the argument above does
         * not hold: search upward from one digit. They are rare. */
        for (int prec = 1; prec < 17 && !try_precision(v, prec, digits, k); prec++)
            ;
        if (digits_value(digits, *k) != v)
            try_digits(v, 17, digits, k);
    } else if (!try_digits(v, 15, digits, k) && !try_precision(v, 16, digits, k)) {
        try_digits(v, 17, digits, k);
    }
    int n = (int)strlen(digits);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return n;
}

size_t rig_json_format_double(double v, char buf[32]) {
    if (!isfinite(v)) {
        memcpy(buf, "null", 5);
        return 4;
    }
    char *o = buf;
    if (signbit(v)) {
        *o++ = '-';
        v = -v;
    }
    if (v == 0) {
        memcpy(o, "0.0", 4);
        return (size_t)(o - buf) + 3;
    }
    locale_t loc = get_c_locale(), old = (locale_t)0;
    if (loc)
        old = uselocale(loc);
    char digits[24];
    int k;
    int n = shortest_digits(v, digits, &k);
    if (loc)
        uselocale(old);

    if (k >= -6 && k < 21) {
        if (k >= 0) {
            int whole = k + 1; /* digits before the point */
            for (int i = 0; i < whole; i++)
                *o++ = i < n ? digits[i] : '0';
            *o++ = '.';
            if (n > whole) {
                memcpy(o, digits + whole, (size_t)(n - whole));
                o += n - whole;
            } else {
                *o++ = '0';
            }
        } else {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -k - 1; i++)
                *o++ = '0';
            memcpy(o, digits, (size_t)n);
            o += n;
        }
    } else {
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(n - 1));
            o += n - 1;
        }
        o += sprintf(o, "e%c%d", k < 0 ? '-' : '+', k < 0 ? -k : k);
    }
    *o = '\0';
    return (size_t)(o - buf);
}
