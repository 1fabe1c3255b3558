/* test_json_number.c — numbers through the parser: classification (int,
 * double, big integer), correct rounding, overflow and underflow, malformed
 * literals, the getters, and the raw text. glibc's strtod (correctly rounded)
 * is the oracle for the randomized tests. */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>

#include "testing.h"


/* Parses text (exactly len bytes, in a malloc'd copy so reads past it are
 * caught) into d; returns the status. The copy lives until the next call. */
static char *live_copy;
static int parse_into(rig_json_doc *d, const char *text, size_t len, const rig_json_options *o,
                      rig_json_error *err) {
    free(live_copy);
    live_copy = exact_copy(text, len);
    return rig_json_doc_parse(d, live_copy, len, o, err);
}

static int teardown_copy(void **state) {
    (void)state;
    free(live_copy);
    live_copy = NULL;
    return 0;
}

/* ---------------------------------------------------------------- classes */

typedef struct num_case {
    const char *text;
    rig_json_type type;
    int64_t i;     /* RIG_JSON_INT */
    uint64_t bits; /* RIG_JSON_DOUBLE */
    unsigned flags;
} num_case;

#define INT_CASE(t, v) {t, RIG_JSON_INT, v, 0, 0}
#define DBL_CASE(t, b) {t, RIG_JSON_DOUBLE, 0, b, 0}
#define BIG_CASE(t, b) {t, RIG_JSON_DOUBLE, 0, b, RIG_JSON_VAL_BIGINT}

static const num_case classes[] = {
    INT_CASE("0", 0),
    INT_CASE("1", 1),
    INT_CASE("-1", -1),
    INT_CASE("42", 42),
    INT_CASE("9007199254740993", 9007199254740993ll), /* an int stays exact */
    INT_CASE("9223372036854775807", INT64_MAX),
    INT_CASE("-9223372036854775807", -INT64_MAX),
    INT_CASE("-9223372036854775808", INT64_MIN),
    DBL_CASE("-0", 0x8000000000000000ull), /* the sign survives */
    DBL_CASE("-0.0", 0x8000000000000000ull),
    DBL_CASE("-0e0", 0x8000000000000000ull),
    DBL_CASE("0.0", 0),
    DBL_CASE("0e5", 0),
    DBL_CASE("0E-5", 0),
    DBL_CASE("0.000", 0),
    DBL_CASE("1.0", 0x3FF0000000000000ull),
    DBL_CASE("1e2", 0x4059000000000000ull),
    DBL_CASE("1E+2", 0x4059000000000000ull),
    DBL_CASE("1e+2", 0x4059000000000000ull),
    DBL_CASE("100e-2", 0x3FF0000000000000ull),
    DBL_CASE("1e0", 0x3FF0000000000000ull),
    DBL_CASE("-2.5", 0xC004000000000000ull),
    DBL_CASE("1e19", 0x43E158E460913D00ull), /* not an integer literal: no flag */
    DBL_CASE("9223372036854775808.0", 0x43E0000000000000ull),
    BIG_CASE("9223372036854775808", 0x43E0000000000000ull),
    BIG_CASE("18446744073709551615", 0x43F0000000000000ull),
    BIG_CASE("18446744073709551616", 0x43F0000000000000ull),
    BIG_CASE("-9223372036854775809", 0xC3E0000000000000ull),
    BIG_CASE("123456789012345678901234567890", 0x45F8EE90FF6C373Eull),
    BIG_CASE("-123456789012345678901234567890", 0xC5F8EE90FF6C373Eull),
    BIG_CASE("10000000000000000000", 0x43E158E460913D00ull),
};

static void check_case(const num_case *c, rig_json_val v) {
    rig_json_type t = rig_json_typeof(v);
    if (t != c->type)
        fail_msg("%s: type %s, expected %s", c->text, rig_json_type_name(t),
                 rig_json_type_name(c->type));
    if (rig_json_val_flags(v) != c->flags)
        fail_msg("%s: flags %#x, expected %#x", c->text, rig_json_val_flags(v), c->flags);
    assert_true(rig_json_is_number(v));
    if (t == RIG_JSON_INT) {
        int64_t i = 0;
        assert_int_equal(rig_json_get_int64(v, &i), 0);
        if (i != c->i)
            fail_msg("%s: %" PRId64 ", expected %" PRId64, c->text, i, c->i);
        double d;
        assert_int_equal(rig_json_get_double(v, &d), 0);
        assert_true(d == (double)c->i);
    } else {
        double d = 1234.5;
        assert_int_equal(rig_json_get_double(v, &d), 0);
        if (bits_of(d) != c->bits)
            fail_msg("%s: %.17g (%#" PRIx64 "), expected %.17g (%#" PRIx64 ")", c->text, d,
                     bits_of(d), double_of(c->bits), c->bits);
    }
}

static void test_classification(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        const num_case *c = &classes[i];
        rig_json_doc *d = parse_ok(c->text);
        rig_json_val v = rig_json_doc_root(d);
        check_case(c, v);
        size_t len;
        const char *raw = rig_json_raw(v, &len);
        assert_int_equal(len, strlen(c->text));
        assert_memory_equal(raw, c->text, len);
        rig_json_doc_free(d);

        /* the same inside an array, with whitespace, and as an object member */
        char buf[256];
        snprintf(buf, sizeof buf, "[ %s ,{\"k\" :%s}]", c->text, c->text);
        d = parse_ok(buf);
        rig_json_val root = rig_json_doc_root(d);
        check_case(c, rig_json_at(root, 0));
        check_case(c, rig_json_get(rig_json_at(root, 1), "k"));
        rig_json_doc_free(d);
    }
    /* "-0" keeps its sign through get_double */
    rig_json_doc *d = parse_ok("-0");
    double z;
    assert_int_equal(rig_json_get_double(rig_json_doc_root(d), &z), 0);
    assert_true(z == 0.0 && signbit(z));
    rig_json_doc_free(d);
    d = parse_ok("0");
    assert_int_equal(rig_json_get_double(rig_json_doc_root(d), &z), 0);
    assert_true(z == 0.0 && !signbit(z));
    rig_json_doc_free(d);
}

static void test_reject_big_integers(void **state) {
    (void)state;
    rig_json_options o = {0, 0, RIG_JSON_REJECT_BIG_INTEGERS};
    rig_json_error err;
    static const struct {
        const char *text;
        size_t offset;
    } bad[] = {
        {"9223372036854775808", 0},
        {"-9223372036854775809", 0},
        {"18446744073709551616", 0},
        {"100000000000000000000", 0},
        {"[1, -9223372036854775809]", 4},
        {"{\"a\":  123456789012345678901234567890}", 7},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_status(bad[i].text, strlen(bad[i].text), &o, &err);
        if (rc != RIG_JSON_ERANGE || err.code != RIG_JSON_ERANGE || err.offset != bad[i].offset)
            fail_msg("%s: rc %d offset %zu, expected ERANGE at %zu", bad[i].text, rc, err.offset,
                     bad[i].offset);
        /* without the flag they are doubles */
        rig_json_doc *d = parse_ok(bad[i].text);
        rig_json_doc_free(d);
    }
    /* what still parses with the flag: int64's edges, "-0", non-integer forms */
    static const char *const good[] = {
        "9223372036854775807", "-9223372036854775808", "-0", "0", "1e19",
        "9223372036854775808.0", "1.5", "18446744073709551616e0",
    };
    rig_json_doc *d = rig_json_doc_new();
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = rig_json_doc_parse(d, good[i], strlen(good[i]), &o, &err);
        if (rc != 0)
            fail_msg("%s with REJECT_BIG_INTEGERS: %d", good[i], rc);
        assert_int_equal(rig_json_val_flags(rig_json_doc_root(d)), 0);
    }
    rig_json_doc_free(d);
}

static void test_overflow_is_erange(void **state) {
    (void)state;
    char huge[420];
    huge[0] = '1';
    memset(huge + 1, '0', 400); /* an integer of 401 digits: beyond any double */
    huge[401] = '\0';
    char hugeneg[sizeof huge + 4];
    snprintf(hugeneg, sizeof hugeneg, "[-%s]", huge);
    static const struct {
        const char *text;
        size_t offset;
    } cases[] = {
        {"1e309", 0},
        {"-1e309", 0},
        {"1.8e308", 0},
        {"1.7976931348623159e308", 0}, /* past DBL_MAX + half an ulp */
        {"[123123e100000]", 1},
        {"{\"a\":[0.5,1E400]}", 10},
        {"1e99999999999999999999", 0},
        {"0.0000001e316", 0},
    };
    rig_json_error err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = parse_status(cases[i].text, strlen(cases[i].text), NULL, &err);
        if (rc != RIG_JSON_ERANGE || err.offset != cases[i].offset)
            fail_msg("%s: rc %d offset %zu, expected ERANGE at %zu", cases[i].text, rc,
                     err.offset, cases[i].offset);
    }
    assert_int_equal(parse_status(huge, strlen(huge), NULL, &err), RIG_JSON_ERANGE);
    assert_int_equal(err.offset, 0);
    assert_int_equal(parse_status(hugeneg, strlen(hugeneg), NULL, &err), RIG_JSON_ERANGE);
    assert_int_equal(err.offset, 1);
    /* just below the edge: DBL_MAX */
    rig_json_doc *d = parse_ok("1.7976931348623158e308");
    double v;
    assert_int_equal(rig_json_get_double(rig_json_doc_root(d), &v), 0);
    assert_true(v == DBL_MAX);
    rig_json_doc_free(d);
}

static void test_underflow(void **state) {
    (void)state;
    static const struct {
        const char *text;
        uint64_t bits;
    } cases[] = {
        {"1e-400", 0},
        {"-1e-400", 0x8000000000000000ull},
        {"123e-10000000", 0},
        {"0.000000000000000000000000000000000000000000000000001e-300", 0},
        {"1e-99999999999999999999", 0},
        {"4.9e-324", 1},                  /* the smallest subnormal */
        {"5e-324", 1},
        {"2.4703282292062327e-324", 0},   /* below half of it: 0 */
        {"2.4703282292062328e-324", 1},   /* above half: rounds up */
        {"-4.9406564584124654e-324", 0x8000000000000001ull},
        {"2.225073858507201e-308", 0x000FFFFFFFFFFFFFull}, /* the largest subnormal */
    };
    rig_json_doc *d = rig_json_doc_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(parse_into(d, cases[i].text, strlen(cases[i].text), NULL, NULL), 0);
        rig_json_val v = rig_json_doc_root(d);
        assert_int_equal(rig_json_typeof(v), RIG_JSON_DOUBLE);
        double x;
        assert_int_equal(rig_json_get_double(v, &x), 0);
        if (bits_of(x) != cases[i].bits)
            fail_msg("%s: %#" PRIx64 ", expected %#" PRIx64, cases[i].text, bits_of(x),
                     cases[i].bits);
    }
    rig_json_doc_free(d);
}

/* ---------------------------------------------------------------- rounding */

static void check_double(rig_json_doc *d, const char *text, uint64_t want) {
    rig_json_error err;
    int rc = parse_into(d, text, strlen(text), NULL, &err);
    if (rc != 0)
        fail_msg("%.60s...: status %d", text, rc);
    double x;
    rig_json_val v = rig_json_doc_root(d);
    if (rig_json_typeof(v) != RIG_JSON_DOUBLE)
        fail_msg("%.60s...: type %s", text, rig_json_type_name(rig_json_typeof(v)));
    assert_int_equal(rig_json_get_double(v, &x), 0);
    if (bits_of(x) != want)
        fail_msg("%.60s... (%zu chars): %.17g (%#" PRIx64 "), expected %.17g (%#" PRIx64 ")", text,
                 strlen(text), x, bits_of(x), double_of(want), want);
}

static void test_hard_rounding_cases(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    check_double(d, "2.2250738585072011e-308", 0x000FFFFFFFFFFFFFull);
    check_double(d, "2.2250738585072012e-308", 0x0010000000000000ull);
    check_double(d, "2.2250738585072014e-308", 0x0010000000000000ull);
    check_double(d, "1.7976931348623157e308", 0x7FEFFFFFFFFFFFFFull);
    check_double(d, "9007199254740993.0", 0x4340000000000000ull); /* tie: to even */
    check_double(d, "9007199254740995.0", 0x4340000000000002ull); /* tie: to even (up) */
    check_double(d, "9007199254740993.0000000000000000001", 0x4340000000000001ull);
    check_double(d, "0.1", 0x3FB999999999999Aull);
    check_double(d, "0.30000000000000004", 0x3FD3333333333334ull);
    check_double(d, "3.14159265358979323846264338327950288", 0x400921FB54442D18ull);
    check_double(d, "1.00000000000000011102230246251565404236316680908203125",
                 0x3FF0000000000000ull); /* exactly halfway: even */
    check_double(d, "1.00000000000000011102230246251565404236316680908203126",
                 0x3FF0000000000001ull); /* just above */
    check_double(d, "1.00000000000000011102230246251565404236316680908203124",
                 0x3FF0000000000000ull); /* just below */
    check_double(d, "1e23", 0x44B52D02C7E14AF6ull);
    check_double(d, "8.988465674311579e307", 0x7FDFFFFFFFFFFFFFull);
    check_double(d, "7.2057594037927933e16", 0x4370000000000000ull);
    check_double(d, "9007199254740992e22", bits_of(9007199254740992e22)); /* fast path's edge */

    /* 700+ digits: 1 followed by 750 zeros, scaled back; and the same value
     * with its point moved */
    char *big = malloc(2048);
    assert_non_null(big);
    big[0] = '1';
    memset(big + 1, '0', 750);
    strcpy(big + 751, "e-750");
    check_double(d, big, 0x3FF0000000000000ull);
    strcpy(big, "0.");
    memset(big + 2, '0', 700);
    strcpy(big + 702, "1e701");
    check_double(d, big, 0x3FF0000000000000ull);
    /* 800 significant digits that are 1/3 * 10: 3.333... */
    big[0] = '3';
    big[1] = '.';
    memset(big + 2, '3', 799);
    big[801] = '\0';
    check_double(d, big, bits_of(10.0 / 3.0));
    /* the exact decimal value of the smallest subnormal (751 digits): itself */
    snprintf(big, 2048, "%.800e", 4.9406564584124654e-324);
    check_double(d, big, 1);
    /* the exact value of DBL_MAX written out as a 309-digit integer */
    snprintf(big, 2048, "%.0f", DBL_MAX);
    assert_int_equal(strlen(big), 309);
    check_double(d, big, 0x7FEFFFFFFFFFFFFFull);
    assert_int_equal(rig_json_val_flags(rig_json_doc_root(d)), RIG_JSON_VAL_BIGINT);
    free(big);
    rig_json_doc_free(d);
}

/* The exact decimal digits of (2m+1) * 2^q, the point halfway between the
 * doubles m * 2^(q+1) and (m+1) * 2^(q+1), computed with a small bignum (base
 * 10^9). The value is the integer in *digits times 10^*scale, with no
 * trailing zero in the digits. No long double: valgrind does not
 * emulate x87's 64-bit mantissa. */
static void exact_midpoint(uint64_t m2p1, int q, char *digits, int *scale) {
    uint32_t limb[200];
    size_t nl = 0;
    for (uint64_t v = m2p1; v; v /= 1000000000u)
        limb[nl++] = (uint32_t)(v % 1000000000u);
    unsigned k = q >= 0 ? 2 : 5;
    for (int i = 0; i < (q >= 0 ? q : -q); i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < nl; j++) {
            uint64_t t = (uint64_t)limb[j] * k + carry;
            limb[j] = (uint32_t)(t % 1000000000u);
            carry = t / 1000000000u;
        }
        if (carry)
            limb[nl++] = (uint32_t)carry;
        assert_true(nl < 200);
    }
    char *o = digits + sprintf(digits, "%u", limb[nl - 1]);
    for (size_t j = nl - 1; j-- > 0;)
        o += sprintf(o, "%09u", limb[j]);
    *scale = q >= 0 ? 0 : q;
    while (o[-1] == '0') { /* (2m+1) * 2^q with 5 | 2m+1 */
        *--o = '\0';
        ++*scale;
    }
}

/* Exactly halfway between two doubles, and a hair either side, written out in
 * full (up to ~770 digits): the tie must go to the even one. */
static void test_halfway_points(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    char *s = malloc(2048), *digits = malloc(2048);
    assert_non_null(s);
    assert_non_null(digits);
    rng = 7;
    size_t tested = 0;
    for (int iter = 0; iter < 4000; iter++) {
        uint64_t lo = rnd() & 0x7FFFFFFFFFFFFFFFull;
        if (iter % 4 == 0)
            lo &= 0x000FFFFFFFFFFFFFull; /* subnormals */
        if (iter % 4 == 1)
            lo = (lo & 0x000FFFFFFFFFFFFFull) | ((uint64_t)(1023 + rnd_below(140) - 70) << 52);
        if (iter == 2)
            lo = 0; /* halfway between 0 and the smallest subnormal */
        if (iter == 3)
            lo = 0x7FEFFFFFFFFFFFFEull; /* just below DBL_MAX */
        if (lo >= 0x7FEFFFFFFFFFFFFFull)
            continue;
        unsigned ef = (unsigned)(lo >> 52);
        uint64_t m = lo & 0x000FFFFFFFFFFFFFull;
        int e = -1074;
        if (ef) {
            m |= 1ull << 52;
            e = (int)ef - 1075;
        }
        int scale;
        exact_midpoint(2 * m + 1, e - 1, digits, &scale);
        size_t nd = strlen(digits);
        int exp10 = (int)nd - 1 + scale;
        uint64_t even = (lo & 1) ? lo + 1 : lo;

        /* exactly halfway: to even */
        snprintf(s, 2048, "%c.%se%d", digits[0], nd > 1 ? digits + 1 : "0", exp10);
        check_double(d, s, even);
        assert_true(bits_of(strtod(s, NULL)) == even); /* the oracle agrees */
        /* a hair either side: one unit in the 800th significant digit, far
         * below half an ulp (digits has room: at most ~770 are used) */
        enum { HAIR = 800 };
        assert_true(nd < HAIR);
        memset(digits + nd, '0', HAIR - nd);
        digits[HAIR] = '1';
        digits[HAIR + 1] = '\0';
        snprintf(s, 2048, "%c.%se%d", digits[0], digits + 1, exp10);
        check_double(d, s, lo + 1);
        /* below: ...d000...0 - 1 = ...(d-1)999...9 (d, the last digit, is not 0) */
        assert_true(digits[nd - 1] != '0');
        digits[nd - 1]--;
        memset(digits + nd, '9', HAIR + 1 - nd);
        snprintf(s, 2048, "%c.%se%d", digits[0], digits + 1, exp10);
        check_double(d, s, lo);
        tested++;
    }
    assert_true(tested > 3900);
    free(s);
    free(digits);
    rig_json_doc_free(d);
}

/* ---------------------------------------------------------------- vs strtod */

/* A random JSON number of one of many shapes. */
static size_t gen_number(char *out) {
    char *o = out;
    if (rnd_below(10) < 3)
        *o++ = '-';
    unsigned nd = 1 + rnd_below(40); /* significant digits */
    unsigned shape = rnd_below(6);
    char digits[48];
    unsigned style = rnd_below(5);
    for (unsigned i = 0; i < nd; i++) {
        unsigned c;
        switch (style) {
        case 0: c = 9; break;                            /* 99999...: rounding carries */
        case 1: c = i == 0 ? 1 + rnd_below(9) : 0; break; /* d0000... */
        case 2: c = rnd_below(4) ? 0 : rnd_below(10); break;
        default: c = rnd_below(10); break;
        }
        if (style == 0 && rnd_below(8) == 0)
            c = rnd_below(10);
        digits[i] = (char)('0' + c);
    }
    if (digits[0] == '0')
        digits[0] = (char)('1' + rnd_below(9));
    unsigned ni; /* digits before the point */
    switch (shape) {
    case 0: ni = nd; break;                /* an integer */
    case 1: ni = 0; break;                 /* 0.000ddd */
    default: ni = rnd_below(nd + 1); break; /* anything */
    }
    bool frac = ni < nd || rnd_below(4) == 0;
    if (ni == 0) {
        *o++ = '0';
    } else {
        memcpy(o, digits, ni);
        o += ni;
    }
    if (frac) {
        *o++ = '.';
        if (ni == 0)
            for (unsigned z = rnd_below(31); z; z--)
                *o++ = '0';
        memcpy(o, digits + ni, nd - ni);
        o += nd - ni;
        if (ni == nd || rnd_below(5) == 0)
            for (unsigned z = 1 + rnd_below(4); z; z--)
                *o++ = '0';
    }
    if (shape != 0 && rnd_below(3) != 0) {
        *o++ = rnd_below(2) ? 'e' : 'E';
        int ex = (int)rnd_below(701) - 350;
        unsigned sg = rnd_below(3);
        if (ex < 0)
            *o++ = '-';
        else if (sg == 1)
            *o++ = '+';
        for (unsigned z = rnd_below(6) == 0 ? 1 + rnd_below(3) : 0; z; z--)
            *o++ = '0';
        o += sprintf(o, "%d", ex < 0 ? -ex : ex);
    }
    *o = '\0';
    return (size_t)(o - out);
}

static void test_differential_vs_strtod(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    assert_non_null(d);
    char text[160];
    rng = 20240601;
    size_t ints = 0, doubles = 0, bigs = 0, ranges = 0;
    for (int iter = 0; iter < 200000; iter++) {
        size_t len = gen_number(text);
        rig_json_error err;
        int rc = parse_into(d, text, len, NULL, &err);
        errno = 0;
        double want = strtod(text, NULL);
        bool is_int_form = !strpbrk(text, ".eE");
        bool fits = false;
        long long ll = 0;
        if (is_int_form) {
            errno = 0;
            ll = strtoll(text, NULL, 10);
            fits = errno == 0 && strcmp(text, "-0") != 0;
        }
        if (isinf(want)) {
            if (rc != RIG_JSON_ERANGE || err.offset != 0)
                fail_msg("%s: rc %d offset %zu, expected ERANGE (overflow)", text, rc, err.offset);
            ranges++;
            continue;
        }
        if (rc != 0)
            fail_msg("%s: rc %d at %zu", text, rc, err.offset);
        rig_json_val v = rig_json_doc_root(d);
        if (fits) {
            int64_t i;
            if (rig_json_typeof(v) != RIG_JSON_INT || rig_json_get_int64(v, &i) != 0 || i != ll)
                fail_msg("%s: not the int %lld", text, ll);
            ints++;
            continue;
        }
        if (rig_json_typeof(v) != RIG_JSON_DOUBLE)
            fail_msg("%s: type %s, expected double", text, rig_json_type_name(rig_json_typeof(v)));
        unsigned want_flags = is_int_form && strcmp(text, "-0") != 0 ? RIG_JSON_VAL_BIGINT : 0;
        if (rig_json_val_flags(v) != want_flags)
            fail_msg("%s: flags %#x, expected %#x", text, rig_json_val_flags(v), want_flags);
        bigs += want_flags != 0;
        double got;
        assert_int_equal(rig_json_get_double(v, &got), 0);
        if (bits_of(got) != bits_of(want))
            fail_msg("%s: rig %.17g (%#" PRIx64 "), strtod %.17g (%#" PRIx64 ")", text, got,
                     bits_of(got), want, bits_of(want));
        doubles++;
    }
    /* the generator covered every class */
    assert_true(ints > 1000);
    assert_true(doubles > 100000);
    assert_true(bigs > 1000);
    assert_true(ranges > 1000);
    rig_json_doc_free(d);
}

/* Short numbers that take the parser's fast path (few digits, small powers of
 * ten) against strtod: every mantissa/exponent pair in a grid. */
static void test_fast_path_grid(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    static const char *const mants[] = {
        "1", "3", "7", "9", "17", "123", "9007199254740991", "9007199254740992", "9007199254740993",
        "4503599627370497", "1844674407370955", "999999999999999", "1000000000000000000",
        "0.1", "0.3", "2.5", "12345.6789", "0.000001", "0.9999999999999999", "1.7976931348623157",
        "4.9406564584124654", "2.2250738585072014", "900719925474099.3", "123456789012345678",
        "1234567890123456789",
    };
    char text[96];
    for (size_t m = 0; m < sizeof mants / sizeof mants[0]; m++)
        for (int e = -30; e <= 30; e++) {
            snprintf(text, sizeof text, "%se%d", mants[m], e);
            check_double(d, text, bits_of(strtod(text, NULL)));
            snprintf(text, sizeof text, "-%sE%+d", mants[m], e);
            check_double(d, text, bits_of(strtod(text, NULL)));
        }
    rig_json_doc_free(d);
}

/* ---------------------------------------------------------------- getters */

static void test_get_int64_on_doubles(void **state) {
    (void)state;
    static const struct {
        const char *text;
        int rc;
        int64_t want;
    } cases[] = {
        {"1e3", 0, 1000},
        {"1.0", 0, 1},
        {"-2.0", 0, -2},
        {"-0", 0, 0},
        {"-0.0", 0, 0},
        {"1e-400", RIG_JSON_ERANGE, 0},                      /* written with a fraction */
        {"1.5", RIG_JSON_ERANGE, 0},
        {"-0.5", RIG_JSON_ERANGE, 0},
        {"1e-7", RIG_JSON_ERANGE, 0},
        {"1e19", RIG_JSON_ERANGE, 0},
        {"1e300", RIG_JSON_ERANGE, 0},
        {"-1e300", RIG_JSON_ERANGE, 0},
        {"-9223372036854775808.0", 0, INT64_MIN},
        {"-9.223372036854775808e18", 0, INT64_MIN},
        {"9223372036854775808.0", RIG_JSON_ERANGE, 0},
        {"9223372036854775807.0", 0, INT64_MAX}, /* judged by the text, not the double 2^63 */
        {"9223372036854775808", RIG_JSON_ERANGE, 0},   /* a big integer */
        {"18446744073709551616", RIG_JSON_ERANGE, 0},
        {"9223372036854774784.0", 0, 9223372036854774784ll}, /* the largest double below 2^63 */
        {"2251799813685248.5", RIG_JSON_ERANGE, 0},          /* 2^51 + 0.5: has a fraction */
        {"4503599627370496.5", RIG_JSON_ERANGE, 0},          /* 2^52 + 0.5: the double is 2^52 */
        {"9007199254740992.0", 0, 9007199254740992ll},
        {"9223372036854775807", 0, INT64_MAX},
        {"9007199254740993.0", 0, 9007199254740993ll}, /* the double would be ...992 */
        {"-9223372036854775809", RIG_JSON_ERANGE, 0},  /* a big integer, rounds to -2^63 */
        {"-9223372036854775808.5", RIG_JSON_ERANGE, 0},
        {"125e-1", RIG_JSON_ERANGE, 0},
        {"1000e-3", 0, 1},
        {"0.001e3", 0, 1},
        {"12.50e1", 0, 125},
        {"1e20", RIG_JSON_ERANGE, 0},
        {"-9223372036854775808", 0, INT64_MIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rig_json_doc *d = parse_ok(cases[i].text);
        int64_t out = 77;
        int rc = rig_json_get_int64(rig_json_doc_root(d), &out);
        if (rc != cases[i].rc)
            fail_msg("%s: rc %d, expected %d", cases[i].text, rc, cases[i].rc);
        if (rc == 0 && out != cases[i].want)
            fail_msg("%s: %" PRId64 ", expected %" PRId64, cases[i].text, out, cases[i].want);
        rig_json_doc_free(d);
    }
    /* other types and a missing value */
    rig_json_doc *d = parse_ok("[\"1\", true, null, [], {}]");
    rig_json_val root = rig_json_doc_root(d);
    int64_t i64;
    double dbl;
    for (size_t k = 0; k < 5; k++) {
        assert_int_equal(rig_json_get_int64(rig_json_at(root, k), &i64), RIG_JSON_ETYPE);
        assert_int_equal(rig_json_get_double(rig_json_at(root, k), &dbl), RIG_JSON_ETYPE);
    }
    assert_int_equal(rig_json_get_int64(rig_json_at(root, 5), &i64), RIG_JSON_EMISSING);
    assert_int_equal(rig_json_get_double(rig_json_at(root, 5), &dbl), RIG_JSON_EMISSING);
    rig_json_doc_free(d);
}

static void test_get_double_on_ints(void **state) {
    (void)state;
    rig_json_doc *d = rig_json_doc_new();
    char text[32];
    rng = 99;
    /* exact below 2^53 */
    for (int i = 0; i < 20000; i++) {
        int64_t v = (int64_t)(rnd() >> (11 + rnd_below(53)));
        if (rnd_below(2))
            v = -v;
        if (i == 0)
            v = 9007199254740992ll;
        if (i == 1)
            v = -9007199254740992ll;
        snprintf(text, sizeof text, "%" PRId64, v);
        assert_int_equal(parse_into(d, text, strlen(text), NULL, NULL), 0);
        rig_json_val r = rig_json_doc_root(d);
        assert_int_equal(rig_json_typeof(r), RIG_JSON_INT);
        double x;
        assert_int_equal(rig_json_get_double(r, &x), 0);
        if ((int64_t)x != v || x != (double)v)
            fail_msg("%s: get_double %.17g", text, x);
    }
    /* rounded to nearest beyond: ties to even */
    static const struct {
        const char *text;
        uint64_t bits;
    } far[] = {
        {"9007199254740993", 0x4340000000000000ull}, /* tie: down to even */
        {"9007199254740995", 0x4340000000000002ull}, /* tie: up to even */
        {"9007199254740997", 0x4340000000000002ull},
        {"9223372036854775807", 0x43E0000000000000ull},
        {"-9223372036854775808", 0xC3E0000000000000ull},
    };
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
        assert_int_equal(parse_into(d, far[i].text, strlen(far[i].text), NULL, NULL), 0);
        rig_json_val r = rig_json_doc_root(d);
        assert_int_equal(rig_json_typeof(r), RIG_JSON_INT);
        double x;
        assert_int_equal(rig_json_get_double(r, &x), 0);
        if (bits_of(x) != far[i].bits)
            fail_msg("%s: get_double %.17g", far[i].text, x);
    }
    rig_json_doc_free(d);
}

/* ---------------------------------------------------------------- malformed */

static void test_malformed_numbers(void **state) {
    (void)state;
    static const struct {
        const char *text;
        int rc;
        size_t offset;
    } cases[] = {
        {"01", RIG_JSON_ENUMBER, 1},
        {"-01", RIG_JSON_ENUMBER, 2},
        {"00", RIG_JSON_ENUMBER, 1},
        {"-", RIG_JSON_ETRUNCATED, 1},
        {"1.", RIG_JSON_ETRUNCATED, 2},
        {".5", RIG_JSON_ESYNTAX, 0},
        {"-.5", RIG_JSON_ENUMBER, 1},
        {"1e", RIG_JSON_ETRUNCATED, 2},
        {"1e+", RIG_JSON_ETRUNCATED, 3},
        {"1E-", RIG_JSON_ETRUNCATED, 3},
        {"1.5e", RIG_JSON_ETRUNCATED, 4},
        {"+1", RIG_JSON_ESYNTAX, 0},
        {"0x10", RIG_JSON_ESYNTAX, 1},
        {"1_000", RIG_JSON_ESYNTAX, 1},
        {"NaN", RIG_JSON_ESYNTAX, 0},
        {"Infinity", RIG_JSON_ESYNTAX, 0},
        {"-Infinity", RIG_JSON_ENUMBER, 1},
        {"--1", RIG_JSON_ENUMBER, 1},
        {"1.e3", RIG_JSON_ENUMBER, 2},
        {"1e5.5", RIG_JSON_ESYNTAX, 3},
        {"1.5.5", RIG_JSON_ESYNTAX, 3},
        {"1ee5", RIG_JSON_ENUMBER, 2},
        {"1e+-5", RIG_JSON_ENUMBER, 3},
        {"1 2", RIG_JSON_ESYNTAX, 2},
        {"[01]", RIG_JSON_ENUMBER, 2},
        {"[-]", RIG_JSON_ENUMBER, 2},
        {"[-", RIG_JSON_ETRUNCATED, 2},
        {"[1.]", RIG_JSON_ENUMBER, 3},
        {"[1e]", RIG_JSON_ENUMBER, 3},
        {"[1e+]", RIG_JSON_ENUMBER, 4},
        {"[.5]", RIG_JSON_ESYNTAX, 1},
        {"[1.e3]", RIG_JSON_ENUMBER, 3},
        {"{\"a\":-}", RIG_JSON_ENUMBER, 6},
        {"{\"a\":1.}", RIG_JSON_ENUMBER, 7},
        {"[1,2,+3]", RIG_JSON_ESYNTAX, 5},
        {"[NaN]", RIG_JSON_ESYNTAX, 1},
        {"[1,\n 0012]", RIG_JSON_ENUMBER, 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rig_json_error err;
        memset(&err, 0, sizeof err);
        size_t len = strlen(cases[i].text);
        char *copy = exact_copy(cases[i].text, len);
        int rc = parse_status(copy, len, NULL, &err);
        free(copy);
        if (rc != cases[i].rc || err.code != rc || err.offset != cases[i].offset)
            fail_msg("%s: rc %d (%s) offset %zu, expected %d at %zu", cases[i].text, rc,
                     rig_json_strerror(rc), err.offset, cases[i].rc, cases[i].offset);
        assert_non_null(err.reason);
        /* single-line cases: column is the offset + 1 */
        if (!strchr(cases[i].text, '\n')) {
            assert_int_equal(err.line, 1);
            assert_int_equal(err.column, cases[i].offset + 1);
        } else {
            assert_int_equal(err.line, 2);
            assert_int_equal(err.column, 3);
        }
    }
}

/* ---------------------------------------------------------------- raw */

static void test_raw_text(void **state) {
    (void)state;
    const char *text = " [ 1.50 ,-0,1E+2\t,123456789012345678901234567890, {\"a\" : -1.5e-3 ,"
                       "\"b\":[0e0]}, 9223372036854775807,-9223372036854775809 ,0 ] ";
    static const char *const want[] = {"1.50", "-0", "1E+2", "123456789012345678901234567890"};
    rig_json_doc *d = parse_ok(text);
    rig_json_val root = rig_json_doc_root(d);
    size_t len;
    const char *raw;
    for (size_t i = 0; i < 4; i++) {
        raw = rig_json_raw(rig_json_at(root, i), &len);
        assert_int_equal(len, strlen(want[i]));
        assert_memory_equal(raw, want[i], len);
    }
    raw = rig_json_raw(rig_json_pointer(root, "/4/a"), &len);
    assert_int_equal(len, 7);
    assert_memory_equal(raw, "-1.5e-3", 7);
    raw = rig_json_raw(rig_json_pointer(root, "/4/b/0"), &len);
    assert_int_equal(len, 3);
    assert_memory_equal(raw, "0e0", 3);
    raw = rig_json_raw(rig_json_at(root, 5), &len);
    assert_int_equal(len, 19);
    assert_memory_equal(raw, "9223372036854775807", 19);
    raw = rig_json_raw(rig_json_at(root, 6), &len);
    assert_int_equal(len, 20);
    assert_memory_equal(raw, "-9223372036854775809", 20);
    raw = rig_json_raw(rig_json_at(root, 7), &len);
    assert_int_equal(len, 1);
    assert_memory_equal(raw, "0", 1);
    assert_null(rig_json_raw(rig_json_at(root, 8), &len));
    rig_json_doc_free(d);

    /* a top-level number with whitespace around it, in an exact-size buffer */
    const char top[] = "\n  -12.5e+3 \r\n";
    char *copy = exact_copy(top, sizeof top - 1);
    d = rig_json_parse(copy, sizeof top - 1, NULL, NULL);
    assert_non_null(d);
    raw = rig_json_raw(rig_json_doc_root(d), &len);
    assert_int_equal(len, 8);
    assert_memory_equal(raw, "-12.5e+3", 8);
    rig_json_doc_free(d);
    /* a top-level number that ends the input exactly */
    memcpy(copy, "123", 3);
    d = rig_json_parse(copy, 3, NULL, NULL);
    assert_non_null(d);
    raw = rig_json_raw(rig_json_doc_root(d), &len);
    assert_int_equal(len, 3);
    assert_ptr_equal(raw, copy);
    rig_json_doc_free(d);
    free(copy);
}

/* ---------------------------------------------------------------- bugs */

/* The parser once accumulated the exponent only while it was below 10^8, and
 * its fast-path test used the saturated value: a fraction with 99999999
 * leading zeros followed by "1e1000000000" made the computed exponent exactly
 * 0, and the parser returned 1.0 for 10^900000000, which overflows a double
 * and must be RIG_JSON_ERANGE (fixed in 591d6fa). Needs a ~100 MB input. */
static void test_huge_exponent_after_long_fraction(void **state) {
    (void)state;
    size_t zeros = 100000000 - 1;
    const char *tail = "1e1000000000";
    size_t tl = strlen(tail), len = 2 + zeros + tl;
    char *s = malloc(len);
    assert_non_null(s);
    memcpy(s, "0.", 2);
    memset(s + 2, '0', zeros);
    memcpy(s + 2 + zeros, tail, tl);
    rig_json_options o = {len, 0, 0};
    rig_json_error err;
    rig_json_doc *d = rig_json_doc_new();
    /* a small parse first, so the document does not size its node array
     * from this input's length */
    assert_int_equal(rig_json_doc_parse(d, "[1,2]", 5, NULL, NULL), 0);
    int rc = rig_json_doc_parse(d, s, len, &o, &err);
    double v = 0;
    if (rc == 0)
        rig_json_get_double(rig_json_doc_root(d), &v);
    rig_json_doc_free(d);
    free(s);
    if (rc != RIG_JSON_ERANGE)
        fail_msg("0.(99999999 zeros)1e1000000000 = 1e900000000: rc %d value %g, expected "
                 "RIG_JSON_ERANGE",
                 rc, v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classification),
        cmocka_unit_test(test_reject_big_integers),
        cmocka_unit_test(test_overflow_is_erange),
        cmocka_unit_test(test_underflow),
        cmocka_unit_test(test_hard_rounding_cases),
        cmocka_unit_test(test_halfway_points),
        cmocka_unit_test(test_differential_vs_strtod),
        cmocka_unit_test(test_fast_path_grid),
        cmocka_unit_test(test_get_int64_on_doubles),
        cmocka_unit_test(test_get_double_on_ints),
        cmocka_unit_test(test_malformed_numbers),
        cmocka_unit_test(test_raw_text),
        cmocka_unit_test(test_huge_exponent_after_long_fraction),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_copy);
}
