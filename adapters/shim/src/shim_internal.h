/*
 * Internal declarations of the devspec shim library, shared by its modules and its tests.
 * Nothing here is installed.
 */
#ifndef DEVSPEC_SHIM_INTERNAL_H
#define DEVSPEC_SHIM_INTERNAL_H

#include "devspec_shim.h"

#include <cjson/cJSON.h>

/* Numbers and strings are read and written exactly through dsjson (common/). */
#include "dsjson.h"

/* Where an error comes from (spec/protocol.md, "Messages"). */
typedef enum ds__origin {
    DS__ORIGIN_LIBRARY = 0,
    DS__ORIGIN_ADAPTER,
    DS__ORIGIN_PROTOCOL
} ds__origin;

typedef struct ds__err {
    bool set;
    ds__origin origin;
    char kind[64];
    char message[1024];
    char lacks[128]; /* what the library lacks (ds_lacks), or "" */
} ds__err;

/* Sets *e (overwriting it) and returns -1, so a check reads `return ds__fail(...)`. */
int ds__fail(ds__err *e, ds__origin origin, const char *kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

const char *ds__origin_name(ds__origin origin);

/* Where ds_error() writes from now (NULL: nowhere; it is then ignored). */
void ds__error_target(ds__err *e);

/* alloc.c: every allocation the shim makes goes through these, so that a test can make the
 * n-th one fail (ds__alloc_fail_at) and check that nothing crashes or leaks. A test also
 * hands them to cJSON_InitHooks so that cJSON's allocations count too. */
void *ds__malloc(size_t size);
void *ds__calloc(size_t count, size_t size);
void *ds__realloc(void *ptr, size_t size);
void ds__free(void *ptr);
/* From now, allocation number n (1 = the next) fails; 0 turns failures off. */
void ds__alloc_fail_at(long n);
/* Allocations made since the last ds__alloc_fail_at call. */
long ds__alloc_count(void);

/* Adds `item` to an object under `key`, a string constant (not copied), or to a list.
 * A NULL item (a failed cJSON_Create...) gives false; on failure the item is deleted.
 * Replies are built only through these, so no allocation failure goes unnoticed. */
bool ds__put(cJSON *obj, const char *key, cJSON *item);
bool ds__push(cJSON *arr, cJSON *item);

/* typed.c: typed arrays and scalars. */

/* Decodes the typed array `v` (argument `arg`, for messages) into *out, whose data it
 * allocates with malloc (free with ds__buffer_clear). Returns 0, or -1 with *e set (origin
 * protocol) and *out empty. */
int ds__buffer_decode(const cJSON *v, const char *arg, ds_buffer *out, ds__err *e);
/* Frees out->data and empties *out. */
void ds__buffer_clear(ds_buffer *buf);
/* Encodes *buf as a typed array {"dtype", "shape", "data"} (spec/protocol.md, "Values") into
 * *out (free with cJSON_Delete). The "data" list is written straight to text into one buffer
 * that doubles as it fills and is held as one raw node, which dsj_print copies once: linear
 * time, the text's memory, no node per element. Encoding stops once the list's text passes
 * LIMIT bytes (SIZE_MAX: none), so no more than about LIMIT bytes are built. Returns 0, or -1
 * with *e set and *out NULL: MemoryError (origin adapter) when memory runs out or the text
 * would pass LIMIT; ValueError (origin adapter) when the buffer's dtype, shape and size do not
 * agree. */
int ds__buffer_encode(const ds_buffer *buf, size_t limit, cJSON **out, ds__err *e);
/* Element count of a shape, or -1 when it overflows or a dimension is negative. */
int64_t ds__shape_count(const int64_t *shape, int ndim);
/* Decodes a scalar operand (a JSON boolean, number or {"scalar": text}). */
/* `wide`: the table takes ints in [2^63, 2^64) (version 9); otherwise they are OverflowError. */
int ds__scalar_decode(const cJSON *v, const char *arg, bool wide, ds_scalar *out, ds__err *e);
/* Whether `v` has the form of a scalar operand. */
bool ds__is_scalar(const cJSON *v);
/* Writes an element's float text: an integral value below 1e16 in full ("100"), any other
 * the shortest decimal that reads back as exactly `d` (as a float32 when `single`).
 * Returns its length. */
size_t ds__format_float(double d, bool single, char buf[DSJ_NUMBER_MAX]);
/* Checks that `len` bytes of `s` are UTF-8; returns the offset of the first bad byte or -1. */
long ds__utf8_invalid_at(const char *s, size_t len);

#endif
