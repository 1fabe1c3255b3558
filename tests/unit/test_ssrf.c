/* test_ssrf.c — the addresses fetch refuses (src/sandbox/ssrf.h): every
 * special-purpose range of IPv4 and IPv6 blocked, including the IPv6 forms
 * that carry an IPv4 address, and public addresses let through. */
#include "testing.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "sandbox/ssrf.h"

typedef struct addr_case {
    const char *ip;
    bool blocked;
    const char *why; /* a part of the reason, when blocked */
} addr_case;

static const addr_case cases[] = {
    /* IPv4 */
    {"0.0.0.0", true, "this network"},
    {"0.1.2.3", true, "this network"},
    {"10.0.0.1", true, "private"},
    {"10.255.255.255", true, "private"},
    {"100.64.0.1", true, "carrier-grade NAT"},
    {"100.127.255.254", true, "carrier-grade NAT"},
    {"100.63.255.255", false, NULL},
    {"100.128.0.0", false, NULL},
    {"127.0.0.1", true, "loopback"},
    {"127.255.255.254", true, "loopback"},
    {"169.254.169.254", true, "link-local"}, /* cloud metadata */
    {"172.16.0.1", true, "private"},
    {"172.31.255.255", true, "private"},
    {"172.15.255.255", false, NULL},
    {"172.32.0.0", false, NULL},
    {"192.0.0.1", true, "IETF"},
    {"192.0.2.1", true, "documentation"},
    {"192.88.99.1", true, "6to4 relay"},
    {"192.168.1.1", true, "private"},
    {"198.18.0.1", true, "benchmarking"},
    {"198.19.255.255", true, "benchmarking"},
    {"198.51.100.7", true, "documentation"},
    {"203.0.113.9", true, "documentation"},
    {"224.0.0.1", true, "multicast"},
    {"239.255.255.250", true, "multicast"},
    {"240.0.0.1", true, "reserved"},
    {"255.255.255.255", true, "broadcast"},
    {"8.8.8.8", false, NULL},
    {"1.1.1.1", false, NULL},
    {"93.184.216.34", false, NULL},
    {"223.255.255.255", false, NULL},
    /* IPv6 */
    {"::", true, "unspecified"},
    {"::1", true, "loopback"},
    {"::ffff:127.0.0.1", true, "loopback"},
    {"::ffff:7f00:1", true, "loopback"},
    {"::ffff:10.0.0.1", true, "private"},
    {"::ffff:169.254.169.254", true, "link-local"},
    {"::ffff:8.8.8.8", false, NULL},
    {"::127.0.0.1", true, "loopback"},
    {"::8.8.8.8", true, "IPv4-compatible"},
    {"64:ff9b::127.0.0.1", true, "loopback"},
    {"64:ff9b::10.1.2.3", true, "private"},
    {"64:ff9b::8.8.8.8", false, NULL},
    {"64:ff9b:1::1", true, "local-use NAT64"},
    {"100::1", true, "discard"},
    {"2001::1", true, "Teredo"},
    {"2001:db8::1", true, "documentation"},
    {"2002:7f00:1::1", true, "loopback"},    /* 6to4 of 127.0.0.1 */
    {"2002:c0a8:101::1", true, "private"},   /* 6to4 of 192.168.1.1 */
    {"2002:808:808::1", false, NULL},        /* 6to4 of 8.8.8.8 */
    {"fc00::1", true, "unique-local"},
    {"fd12:3456:789a::1", true, "unique-local"},
    {"fe80::1", true, "link-local"},
    {"febf::1", true, "link-local"},
    {"fec0::1", true, "site-local"},
    {"ff02::1", true, "multicast"},
    {"ff05::2", true, "multicast"},
    {"2606:4700:4700::1111", false, NULL},
    {"2a00:1450:4001::200e", false, NULL},
    /* not addresses */
    {"localhost", true, "not an IP address"},
    {"127.1", true, "not an IP address"},  /* inet_aton's short forms are refused as text */
    {"0x7f000001", true, "not an IP address"},
    {"", true, "not an IP address"},
};

static void test_table(void **state) {
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char why[160] = "";
        bool b = rig__ip_text_blocked(cases[i].ip, why, sizeof why);
        if (b != cases[i].blocked || (b && cases[i].why && !strstr(why, cases[i].why))) {
            print_error("'%s': %s (%s), want %s (%s)\n", cases[i].ip, b ? "blocked" : "allowed",
                        why, cases[i].blocked ? "blocked" : "allowed",
                        cases[i].why ? cases[i].why : "-");
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

/* The socket-address form, as libcurl's open-socket callback hands it. */
static void test_sockaddr(void **state) {
    (void)state;
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(80)};
    inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
    char why[128];
    assert_true(rig__addr_blocked((struct sockaddr *)&in, sizeof in, why, sizeof why));
    assert_non_null(strstr(why, "127.0.0.1 is loopback"));
    inet_pton(AF_INET, "8.8.4.4", &in.sin_addr);
    assert_false(rig__addr_blocked((struct sockaddr *)&in, sizeof in, why, sizeof why));
    struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, "::ffff:192.168.0.1", &in6.sin6_addr);
    assert_true(rig__addr_blocked((struct sockaddr *)&in6, sizeof in6, why, sizeof why));
    assert_non_null(strstr(why, "192.168.0.1"));
    /* a short length, another family, no address: blocked */
    assert_true(rig__addr_blocked((struct sockaddr *)&in, 4, NULL, 0));
    struct sockaddr un = {.sa_family = AF_UNIX};
    assert_true(rig__addr_blocked(&un, sizeof un, why, sizeof why));
    assert_true(rig__addr_blocked(NULL, 0, why, sizeof why));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_sockaddr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
