/* hash.c — SipHash-1-3 (Aumasson and Bernstein) with a random per-process key.
 *
 * One compression round and three finalization rounds: the variant Rust and
 * Python use for hash tables, fast on short keys and still unpredictable
 * without the key. The key comes from getrandom(2) once per process. */
#include "util/hash.h"

#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static uint64_t key0, key1;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void key_init(void) {
    uint64_t k[2];
    if (getrandom(k, sizeof k, 0) != (ssize_t)sizeof k) {
        /* No entropy source: fall back to something that at least differs
         * between runs. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        k[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)&ts;
        k[1] = (uint64_t)ts.tv_sec * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)(uintptr_t)&key0;
    }
    key0 = k[0];
    key1 = k[1];
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND                                                                                   \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = ROTL(v1, 13);                                                                         \
        v1 ^= v0;                                                                                  \
        v0 = ROTL(v0, 32);                                                                         \
        v2 += v3;                                                                                  \
        v3 = ROTL(v3, 16);                                                                         \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = ROTL(v3, 21);                                                                         \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = ROTL(v1, 17);                                                                         \
        v1 ^= v2;                                                                                  \
        v2 = ROTL(v2, 32);                                                                         \
    } while (0)

static uint64_t load_le64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

uint64_t rig__hash_bytes(const void *data, size_t len) {
    pthread_once(&key_once, key_init);
    const unsigned char *p = data;
    uint64_t v0 = 0x736f6d6570736575ull ^ key0;
    uint64_t v1 = 0x646f72616e646f6dull ^ key1;
    uint64_t v2 = 0x6c7967656e657261ull ^ key0;
    uint64_t v3 = 0x7465646279746573ull ^ key1;
    size_t whole = len & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = load_le64(p + i);
        v3 ^= m;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    switch (len & 7) {
    case 7: b |= (uint64_t)p[whole + 6] << 48; /* fall through */
    case 6: b |= (uint64_t)p[whole + 5] << 40; /* fall through */
    case 5: b |= (uint64_t)p[whole + 4] << 32; /* fall through */
    case 4: b |= (uint64_t)p[whole + 3] << 24; /* fall through */
    case 3: b |= (uint64_t)p[whole + 2] << 16; /* fall through */
    case 2: b |= (uint64_t)p[whole + 1] << 8;  /* fall through */
    case 1: b |= (uint64_t)p[whole];           /* fall through */
    case 0: break;
    }
    v3 ^= b;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}
