/* ssrf.c — the address ranges `fetch` refuses (ssrf.h).
 *
 * The tables follow the IANA special-purpose address registries (RFC 6890
 * and its updates): every range that is not globally reachable unicast,
 * plus multicast and broadcast. A range is blocked whole; nothing here is
 * configurable, because an operator who wants a private host names it
 * with --allow-host, which is checked by name before this. */
#include "sandbox/ssrf.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct v4range {
    uint32_t net;
    int bits;
    const char *what;
} v4range;

static const v4range v4_blocked[] = {
    {0x00000000u, 8, "\"this network\" (0.0.0.0/8)"},
    {0x0a000000u, 8, "private (10.0.0.0/8)"},
    {0x64400000u, 10, "carrier-grade NAT (100.64.0.0/10)"},
    {0x7f000000u, 8, "loopback (127.0.0.0/8)"},
    {0xa9fe0000u, 16, "link-local (169.254.0.0/16)"},
    {0xac100000u, 12, "private (172.16.0.0/12)"},
    {0xc0000000u, 24, "IETF protocol assignments (192.0.0.0/24)"},
    {0xc0000200u, 24, "documentation (192.0.2.0/24)"},
    {0xc0586300u, 24, "6to4 relay anycast (192.88.99.0/24)"},
    {0xc0a80000u, 16, "private (192.168.0.0/16)"},
    {0xc6120000u, 15, "benchmarking (198.18.0.0/15)"},
    {0xc6336400u, 24, "documentation (198.51.100.0/24)"},
    {0xcb007100u, 24, "documentation (203.0.113.0/24)"},
    {0xe0000000u, 4, "multicast (224.0.0.0/4)"},
    {0xf0000000u, 4, "reserved or broadcast (240.0.0.0/4)"},
};

static void put(char *why, size_t cap, const char *addr, const char *what)
{
    if (why && cap)
        snprintf(why, cap, "%s is %s", addr, what);
}

static bool v4_blocked_at(uint32_t a, const char *shown, char *why, size_t cap)
{
    for (size_t i = 0; i < sizeof v4_blocked / sizeof *v4_blocked; i++) {
        uint32_t mask = v4_blocked[i].bits ? ~0u << (32 - v4_blocked[i].bits) : 0;
        if ((a & mask) == v4_blocked[i].net) {
            put(why, cap, shown, v4_blocked[i].what);
            return true;
        }
    }
    return false;
}

static bool v4_check(uint32_t a, const char *ctx, char *why, size_t cap)
{
    struct in_addr in = {htonl(a)};
    char text[INET_ADDRSTRLEN + 64];
    char dotted[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &in, dotted, sizeof dotted);
    if (ctx)
        snprintf(text, sizeof text, "%s (%s)", ctx, dotted);
    else
        snprintf(text, sizeof text, "%s", dotted);
    return v4_blocked_at(a, text, why, cap);
}

static uint32_t v4_at(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static bool prefix(const uint8_t *a, const uint8_t *p, int bits)
{
    for (int i = 0; i < bits / 8; i++)
        if (a[i] != p[i])
            return false;
    int rest = bits % 8;
    return !rest || (a[bits / 8] & (uint8_t)(0xff << (8 - rest))) == (p[bits / 8] &
                                                                      (uint8_t)(0xff << (8 - rest)));
}

static bool v6_check(const uint8_t *a, char *why, size_t cap)
{
    char shown[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, a, shown, sizeof shown);
    static const uint8_t zero[16] = {0};
    static const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t nat64[16] = {0x00, 0x64, 0xff, 0x9b};
    static const uint8_t nat64_local[16] = {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01};
    static const uint8_t discard[16] = {0x01, 0x00};
    static const uint8_t ietf[16] = {0x20, 0x01};
    static const uint8_t sixtofour[16] = {0x20, 0x02};
    static const uint8_t ula[16] = {0xfc};
    static const uint8_t linklocal[16] = {0xfe, 0x80};
    static const uint8_t sitelocal[16] = {0xfe, 0xc0};
    static const uint8_t multicast[16] = {0xff};

    if (memcmp(a, zero, 16) == 0) {
        put(why, cap, shown, "unspecified (::)");
        return true;
    }
    if (memcmp(a, zero, 15) == 0 && a[15] == 1) {
        put(why, cap, shown, "loopback (::1)");
        return true;
    }
    if (memcmp(a, mapped, 12) == 0)
        return v4_check(v4_at(a + 12), shown, why, cap);
    if (memcmp(a, zero, 12) == 0) {
        /* IPv4-compatible (deprecated, ::a.b.c.d): as its IPv4 address,
         * and blocked whatever it is, since nothing routes it */
        if (!v4_check(v4_at(a + 12), shown, why, cap))
            put(why, cap, shown, "IPv4-compatible (::/96), which no network routes");
        return true;
    }
    if (prefix(a, nat64, 96)) {
        if (v4_check(v4_at(a + 12), shown, why, cap))
            return true;
        return false; /* NAT64 of a public IPv4 address: public */
    }
    if (prefix(a, nat64_local, 48)) {
        put(why, cap, shown, "local-use NAT64 (64:ff9b:1::/48)");
        return true;
    }
    if (prefix(a, discard, 64)) {
        put(why, cap, shown, "discard-only (100::/64)");
        return true;
    }
    if (prefix(a, ietf, 23)) {
        put(why, cap, shown, "IETF protocol assignments, Teredo or documentation (2001::/23)");
        return true;
    }
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8) {
        put(why, cap, shown, "documentation (2001:db8::/32)");
        return true;
    }
    if (prefix(a, sixtofour, 16))
        return v4_check(v4_at(a + 2), shown, why, cap); /* 6to4 carries one in bits 16-47 */
    if (prefix(a, ula, 7)) {
        put(why, cap, shown, "unique-local (fc00::/7)");
        return true;
    }
    if (prefix(a, linklocal, 10)) {
        put(why, cap, shown, "link-local (fe80::/10)");
        return true;
    }
    if (prefix(a, sitelocal, 10)) {
        put(why, cap, shown, "site-local (fec0::/10, deprecated)");
        return true;
    }
    if (prefix(a, multicast, 8)) {
        put(why, cap, shown, "multicast (ff00::/8)");
        return true;
    }
    return false;
}

bool rig__addr_blocked(const struct sockaddr *sa, socklen_t len, char *why, size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    if (!sa) {
        put(why, cap, "(none)", "no address");
        return true;
    }
    if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return v4_check(ntohl(in->sin_addr.s_addr), NULL, why, cap);
    }
    if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        return v6_check(in6->sin6_addr.s6_addr, why, cap);
    }
    put(why, cap, "the address", "not IPv4 or IPv6");
    return true;
}

bool rig__ip_text_blocked(const char *text, char *why, size_t cap)
{
    struct sockaddr_in in = {.sin_family = AF_INET};
    struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
    if (text && inet_pton(AF_INET, text, &in.sin_addr) == 1)
        return rig__addr_blocked((const struct sockaddr *)&in, sizeof in, why, cap);
    if (text && inet_pton(AF_INET6, text, &in6.sin6_addr) == 1)
        return rig__addr_blocked((const struct sockaddr *)&in6, sizeof in6, why, cap);
    if (why && cap)
        snprintf(why, cap, "'%s' is not an IP address", text ? text : "(null)");
    return true;
}
