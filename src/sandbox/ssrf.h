/* ssrf.h — which addresses `fetch` must never connect to: everything that
 * is not a public unicast host on the internet. Internal.
 *
 * The check is made on the address a socket is about to connect to (from
 * libcurl's open-socket callback), not on a host name, so a DNS answer
 * that changes between two lookups (rebinding) cannot slip a private
 * address through, and it is made again for every redirect's connection.
 * Addresses that carry an IPv4 address inside an IPv6 one (IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4) are judged by the IPv4 address they hold. */
#ifndef RIG_SANDBOX_SSRF_H
#define RIG_SANDBOX_SSRF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "util/compiler.h"

/* True when `sa` (an AF_INET or AF_INET6 address of `len` bytes; any other
 * family is blocked too) must not be connected to; `why` (cap bytes; may be
 * NULL) then names the range, e.g. "127.0.0.1 is loopback". */
RIG_INTERNAL bool rig__addr_blocked(const struct sockaddr *sa, socklen_t len, char *why,
                                    size_t cap);

/* The same for a numeric address as text (IPv4 dotted quad or IPv6); text
 * that is neither is blocked ("not an IP address"). */
RIG_INTERNAL bool rig__ip_text_blocked(const char *text, char *why, size_t cap);

#endif
