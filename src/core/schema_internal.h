/* schema_internal.h — the compiled form of a JSON Schema, shared by the
 * compiler (schema.c), the validator (validate.c) and the format checks
 * (format.c). Nothing here is public API.
 *
 * A compiled schema is a flat array of nodes, one per schema object or
 * boolean of the source document, that refer to each other by index. Every
 * keyword's operand is decoded and checked once, at compile time, into the
 * form the validator walks: a type bitmask, numeric bounds, a property table
 * that merges "properties" and "required", compiled regular expressions,
 * enum values with their hashes. $ref is resolved to a node index, so a
 * recursive schema is a cycle in the node graph; the compiler rejects cycles
 * that do not pass through a keyword that descends into the instance. */
#ifndef RIG_CORE_SCHEMA_INTERNAL_H
#define RIG_CORE_SCHEMA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "rig/arena.h"
#include "rig/json.h"
#include "rig/schema.h"
#include "util/compiler.h"

/* Instance classes, as bits. "number" is INT | NUM; a double with an integral
 * value (1.0) is an INT for "type": "integer". */
enum {
    T_NULL = 1 << 0,
    T_BOOL = 1 << 1,
    T_INT = 1 << 2,
    T_NUM = 1 << 3, /* a number that is not an integer */
    T_STRING = 1 << 4,
    T_ARRAY = 1 << 5,
    T_OBJECT = 1 << 6,
    T_ANY = (1 << 7) - 1
};

/* The asserted formats. */
enum {
    RIG__FORMAT_NONE = 0,
    RIG__FORMAT_DATE_TIME,
    RIG__FORMAT_DATE,
    RIG__FORMAT_TIME,
    RIG__FORMAT_URI,
    RIG__FORMAT_EMAIL
};

/* Node indices: the two boolean schemas are shared; NONE is "absent". */
#define SN_TRUE 0u
#define SN_FALSE 1u
#define SN_NONE UINT32_MAX

/* Which keywords a node has (snode.has), so the validator skips absent ones
 * with one test each. */
enum {
    K_TYPE = 1u << 0,
    K_ENUM = 1u << 1,
    K_CONST = 1u << 2,
    K_MINIMUM = 1u << 3,
    K_MAXIMUM = 1u << 4,
    K_EXMIN = 1u << 5,
    K_EXMAX = 1u << 6,
    K_MULTIPLE = 1u << 7,
    K_MINLEN = 1u << 8,
    K_MAXLEN = 1u << 9,
    K_PATTERN = 1u << 10,
    K_FORMAT = 1u << 11,
    K_MINITEMS = 1u << 12,
    K_MAXITEMS = 1u << 13,
    K_UNIQUE = 1u << 14,
    K_ITEMS = 1u << 15,   /* prefix and/or items */
    K_MINPROPS = 1u << 16,
    K_MAXPROPS = 1u << 17,
    K_PROPS = 1u << 18,   /* properties and/or required */
    K_ADDPROPS = 1u << 19,
    K_ALLOF = 1u << 20,
    K_ANYOF = 1u << 21,
    K_ONEOF = 1u << 22,
    K_NOT = 1u << 23,
    K_REF = 1u << 24,
    K_PATPROPS = 1u << 25,
    /* keywords by the instance type they apply to */
    K_NUMBER_KW = K_MINIMUM | K_MAXIMUM | K_EXMIN | K_EXMAX | K_MULTIPLE,
    K_STRING_KW = K_MINLEN | K_MAXLEN | K_PATTERN | K_FORMAT,
    K_ARRAY_KW = K_MINITEMS | K_MAXITEMS | K_UNIQUE | K_ITEMS,
    K_OBJECT_KW = K_MINPROPS | K_MAXPROPS | K_PROPS | K_ADDPROPS | K_PATPROPS,
    K_APPLY_KW = K_ALLOF | K_ANYOF | K_ONEOF | K_NOT | K_REF
};

/* A number from the schema: exact as an integer when it is one. */
typedef struct snum {
    bool is_int;
    int64_t i;
    double d;
} snum;

/* One row of an object node's property table: a name from "properties",
 * "required" or both. */
typedef struct sprop {
    const char *name; /* decoded, NUL-terminated (may hold NUL bytes: use len) */
    uint32_t len;
    uint32_t schema;  /* node under "properties", or SN_NONE if only required */
    bool required;
    rig_json_val dflt; /* the subschema's "default" (through $ref and allOf) */
} sprop;

/* One "patternProperties" entry: members whose name matches get the schema. */
typedef struct spatprop {
    pcre2_code *re;
    uint32_t schema;
} spatprop;

typedef struct snode {
    uint32_t has;        /* K_* */
    uint8_t types;       /* "type", as T_* bits (T_ANY without the keyword) */
    uint8_t eff_types;   /* what this node and its in-place subschemas allow */
    uint8_t format;      /* RIG__FORMAT_* */
    bool unique;
    uint32_t json;       /* the source value's index in the schema document */
    uint32_t parent;     /* the node this one was reached from, or SN_NONE */
    const char *where;   /* the pointer suffix from parent (or from the root) */

    snum minimum, maximum, exmin, exmax, multiple;
    rig_json_val minimum_v, maximum_v, exmin_v, exmax_v, multiple_v; /* for messages */

    uint64_t min_len, max_len, min_items, max_items, min_props, max_props;

    pcre2_code *pattern;
    rig_json_val pattern_v;

    /* arrays: prefixItems (or draft-7 "items": [...]), then items for the rest */
    uint32_t *prefix;
    uint32_t nprefix;
    uint32_t items;      /* SN_NONE: anything */

    /* objects */
    sprop *props;
    uint32_t nprops;
    uint32_t *req;       /* indices into props, in "required" order */
    uint32_t nreq;
    uint32_t *table;     /* open-addressed hash of props (SN_NONE empty); NULL if small */
    uint32_t table_mask;
    spatprop *patprops;
    uint32_t npatprops;
    uint32_t addprops;   /* SN_NONE: anything */

    /* in-place applicators */
    uint32_t *all, *any, *one;
    uint32_t nall, nany, none;
    uint32_t not_;
    uint32_t ref;
    const char *ref_text; /* the $ref as written, for messages */

    rig_json_val *enum_v;
    uint64_t *enum_hash;
    const char **enum_str; /* decoded, for string members (else NULL) */
    uint32_t *enum_len;
    uint32_t nenum;
    rig_json_val const_v;

    rig_json_val own_default; /* "default" here */
    rig_json_val dflt;        /* own default, else through $ref, else allOf */
} snode;

struct rig_schema {
    rig_json_doc *doc;
    rig_arena *arena;
    snode *nodes;
    uint32_t count, cap;
    uint32_t top; /* the root's node: SN_TRUE, SN_FALSE or 2 */
    /* A normalized value needs no second check: no keyword looks at a
     * place in more than one way (allOf, anyOf, oneOf, not, uniqueItems,
     * maxProperties, patternProperties, an enum or const of containers),
     * and every default fits its own schema. See validate.c. */
    bool settles;
};

/* floor(3) without libm, which librig does not link: exact for every
 * double (from 2^52 on, every double is an integer already). */
static inline double dfloor(double d)
{
    if (!(d > -4503599627370496.0 && d < 4503599627370496.0))
        return d;
    double t = (double)(int64_t)d; /* toward zero */
    return t > d ? t - 1 : t;
}

static inline double dabs(double d) { return d < 0 ? -d : d; }

/* ---- schema.c */

/* The JSON pointer of node n inside the schema, into buf ("" for the root). */
RIG_INTERNAL void rig__schema_pointer(const rig_schema *s, uint32_t n, char *buf, size_t cap);

/* ---- validate.c */

/* Is v valid against node n, without coercion or defaults? */
RIG_INTERNAL bool rig__schema_fits(const rig_schema *s, uint32_t n, rig_json_val v);

/* Hash of a JSON value such that values rig_json_equal calls equal hash
 * alike (1 and 1.0, objects in any member order); it looks a few levels deep
 * and no further, so any depth is safe. For enum and uniqueItems. */
RIG_INTERNAL uint64_t rig__value_hash(rig_json_val v);

/* The hash of a property name in snode.table (FNV-1a: the table is built from
 * the schema's names, and an instance's keys only probe it, so a key hash
 * need not resist chosen collisions). */
static inline uint32_t prop_hash(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

/* ---- format.c */

RIG_INTERNAL int rig__format_lookup(const char *name, size_t len);
RIG_INTERNAL const char *rig__format_name(int format);
RIG_INTERNAL bool rig__format_check(int format, const char *s, size_t len);

#endif
