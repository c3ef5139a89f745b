/*
 * devspec_shim.h: the C shim library for devspec adapters.
 *
 * A devspec adapter answers the requests of spec/protocol.md by calling an array library.
 * This library does everything except the calls: it reads and writes the JSON messages,
 * checks arguments, keeps the library's objects behind handles ("device#3", "array#17"),
 * encodes and decodes typed arrays, and dispatches each op to one typed callback of a
 * vendor table (ds_vendor). A vendor's C shim is that table and nothing else:
 *
 *     static int my_fill(void *lib, ds_fill_fn fn, const int64_t *shape, int ndim,
 *                        ds_dtype dtype, ds_device device, ds_array *out)
 *     {
 *         return fn == DS_ZEROS ? mylib_zeros(lib, shape, ndim, dtype, device, out)
 *                               : DS_NOT_IMPLEMENTED;
 *     }
 *     static const ds_vendor table = {
 *         .version = DS_VENDOR_VERSION, .size = sizeof(ds_vendor),
 *         .adapter_name = "mylib", .adapter_version = "1.0",
 *         .open = my_open, .hello = my_hello, .release_array = my_release,
 *         .fill = my_fill, ...
 *     };
 *     DEVSPEC_SHIM_EXPORT(&table)
 *
 * Built as a shared object, that file is an in-process adapter (the runner dlopens it and
 * calls devspec_adapter_call); `devspec-adapter-host FILE.so` serves the same object over
 * stdin/stdout, the out-of-process transport. ds_shim_serve() is that loop, for a vendor who
 * prefers a program of their own.
 *
 * The library is static and position-independent, so it links into a vendor's shared
 * object; its own symbols stay hidden there. Only the two entry points are exported.
 */
#ifndef DEVSPEC_SHIM_H
#define DEVSPEC_SHIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol version this library speaks (spec/protocol.md, "Versioning"). */
#define DS_PROTOCOL_VERSION 1
/* The longest request line, in bytes, without its newline (spec/protocol.md, "Limits"): 64 MiB,
 * as for a reply, so that host data of up to 2^24 elements (array.asarray, global.make)
 * crosses in one request. The shim reads the "data" of typed arrays packed, without a JSON
 * node per element, so a request costs about twice its length. hello's max_line says it. */
#define DS_PROTOCOL_MAX_LINE (64 * 1024 * 1024)
/* The longest reply line, in bytes, without its newline (spec/protocol.md, "Limits"). A reply
 * that would be longer is answered with MemoryError, origin "adapter", instead. */
#define DS_PROTOCOL_MAX_REPLY (64 * 1024 * 1024)
/* The most dimensions an array may have in a message. */
#define DS_MAX_NDIM 32
/* The most elements array.read returns (2^24); a larger array is refused with MemoryError,
 * origin "adapter", rather than written as a reply of hundreds of megabytes. */
#define DS_MAX_READ_ELEMENTS (1 << 24)

/* DS_EXPORT marks the two entry points an adapter defines (DEVSPEC_SHIM_EXPORT), as refarray.h's
 * RA_API marks refarray's functions. An adapter built as a shared object exports them
 * (dllexport on Windows, default visibility elsewhere, where everything else is hidden); a
 * program that links an adapter's DLL directly, rather than loading it at run time, defines
 * DS_ADAPTER_IMPORT (dllimport); an adapter linked statically into a program defines
 * DS_STATIC, and the macro is empty. */
#if defined(DS_STATIC)
#define DS_EXPORT
#elif defined(_WIN32) || defined(__CYGWIN__)
#if defined(DS_ADAPTER_IMPORT)
#define DS_EXPORT __declspec(dllimport)
#else
#define DS_EXPORT __declspec(dllexport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define DS_EXPORT __attribute__((visibility("default")))
#else
#define DS_EXPORT
#endif

/* ---------------------------------------------------------------------------------------
 * The in-process entry point. Every in-process adapter exports exactly these two symbols;
 * the runner finds them with dlsym and needs nothing else from this header.
 *
 * devspec_adapter_call: answers one request. `request` holds `len` bytes of one JSON
 * request (no newline needed; it need not be NUL-terminated). Returns the reply, a
 * NUL-terminated compact JSON object on one line without a newline, and stores its length
 * in *reply_len when reply_len is not NULL. The reply belongs to the caller, who frees it
 * with devspec_adapter_free. Never returns NULL: even an unreadable request gets an error
 * reply (only when memory runs out entirely does it return a static error reply, which
 * devspec_adapter_free recognises). Calls are serialised by the adapter; it is not
 * reentrant from inside its own callbacks.
 *
 * devspec_adapter_free: frees a reply of devspec_adapter_call. NULL is a no-op.
 * ------------------------------------------------------------------------------------- */
DS_EXPORT const char *devspec_adapter_call(const char *request, size_t len, size_t *reply_len);
DS_EXPORT void devspec_adapter_free(const char *reply);

typedef const char *(*devspec_adapter_call_fn)(const char *request, size_t len, size_t *reply_len);
typedef void (*devspec_adapter_free_fn)(const char *reply);

/* ---------------------------------------------------------------------------------------
 * Values passed to the callbacks
 * ------------------------------------------------------------------------------------- */

/* The array API's dtypes, then float16 (OneFlow's half, not an array API dtype). DS_DTYPE_NONE
 * means "absent": the library's default. */
typedef enum ds_dtype {
    DS_DTYPE_NONE = 0,
    DS_BOOL,
    DS_INT8,
    DS_INT16,
    DS_INT32,
    DS_INT64,
    DS_UINT8,
    DS_UINT16,
    DS_UINT32,
    DS_UINT64,
    DS_FLOAT32,
    DS_FLOAT64,
    DS_COMPLEX64,
    DS_COMPLEX128,
    DS_FLOAT16,    /* IEEE binary16 elements (uint16_t storage) */
    DS_DTYPE_COUNT /* one past the last dtype */
} ds_dtype;

/* The protocol name of a dtype ("float32"), or NULL for DS_DTYPE_NONE and out-of-range. */
const char *ds_dtype_name(ds_dtype dtype);
/* The dtype with that protocol name, or DS_DTYPE_NONE when there is none. */
ds_dtype ds_dtype_from_name(const char *name);
/* Bytes per element (bool is 1 byte, complex64 is 8), 0 for DS_DTYPE_NONE. */
size_t ds_dtype_size(ds_dtype dtype);

/* An object of the library behind a handle: whatever pointer the vendor hands out. The
 * shim never looks inside; it gives it back to the callbacks and, on reset, to the
 * matching release callback. */
typedef void *ds_array;
typedef void *ds_devobj;
typedef void *ds_stream;

/* A device argument (spec/protocol.md, "Device arguments"). */
typedef enum ds_device_kind {
    DS_DEVICE_NONE = 0, /* null or absent: the library's None */
    DS_DEVICE_OBJECT,   /* a device handle: `object` is the library's device */
    DS_DEVICE_STRING    /* {"str": ...}: `str` is passed to the library verbatim */
} ds_device_kind;

typedef struct ds_device {
    ds_device_kind kind;
    ds_devobj object; /* DS_DEVICE_OBJECT only */
    const char *str;  /* DS_DEVICE_STRING only; valid during the call */
} ds_device;

/* A Python scalar operand: a JSON boolean, number, {"scalar": "text"} or {"complex": [re,
 * im]}. A JSON number with an integral value that fits int64 is DS_SCALAR_INT, any other
 * number DS_SCALAR_FLOAT; {"scalar": "1.0"} or {"scalar": "nan"} is always DS_SCALAR_FLOAT,
 * {"scalar": "7"} an int (decision recorded in spec/decisions.md, "Protocol and adapters");
 * {"complex": [re, im]} is DS_SCALAR_COMPLEX (Python's complex), its parts floats.
 * An int is any value some dtype holds, -2^63 <= v < 2^64: within int64 it is `i` (`u`
 * false); in [2^63, 2^64) `u` is true and (uint64_t)i is the value. Only a table of version
 * 9 or later is handed such a value (an older one answers OverflowError without being
 * called); `u` sits in `b`'s former padding, so the struct's size and offsets are those of
 * versions 1 to 8 (spec/decisions.md, "Exact values and strings" 8). */
typedef enum ds_scalar_kind {
    DS_SCALAR_BOOL = 1,
    DS_SCALAR_INT,
    DS_SCALAR_FLOAT,
    DS_SCALAR_COMPLEX
} ds_scalar_kind;

typedef struct ds_scalar {
    ds_scalar_kind kind;
    bool b;    /* DS_SCALAR_BOOL */
    bool u;    /* DS_SCALAR_INT: the value is (uint64_t)i, at least 2^63 (version 9) */
    int64_t i; /* DS_SCALAR_INT */
    double f;  /* DS_SCALAR_FLOAT; the real part of DS_SCALAR_COMPLEX */
    double im; /* the imaginary part of DS_SCALAR_COMPLEX */
} ds_scalar;

/* An operand of a binary op: an array or a scalar. */
typedef struct ds_operand {
    bool is_array;
    ds_array array;   /* when is_array */
    ds_scalar scalar; /* otherwise */
} ds_operand;

/* The `copy` argument of asarray/from_dlpack: null, false or true. */
typedef enum ds_copy { DS_COPY_IF_NEEDED = 0, DS_COPY_NEVER, DS_COPY_ALWAYS } ds_copy;

/* A typed array in host memory, C order. Elements are stored natively: bool as one byte
 * (0 or 1), integers and floats as their C types, complex as two floats (re, im). */
typedef struct ds_buffer {
    ds_dtype dtype;
    int ndim;
    int64_t shape[DS_MAX_NDIM];
    void *data;    /* nbytes bytes; may be NULL when nbytes is 0 */
    size_t nbytes; /* product(shape) * ds_dtype_size(dtype) */
} ds_buffer;

/* What array.describe reports. `device` is a new device object that the shim will own
 * (released with release_device, when the table has it). */
typedef struct ds_array_info {
    ds_devobj device;
    ds_dtype dtype;
    int ndim;
    int64_t shape[DS_MAX_NDIM];
} ds_array_info;

/* The most pieces array.shard_describe reports. */
#define DS_MAX_SHARDS 64

/* What array.shard_describe reports. The shim provides `devices` and `bounds` with room for
 * DS_MAX_SHARDS pieces; the vendor fills n of each. */
typedef struct ds_shard_layout {
    bool sharded;       /* false: an array on one device (n 1, devices[0] its device) */
    size_t n;           /* pieces, 1..DS_MAX_SHARDS */
    bool split;         /* split along `axis`; false: replicated (or not sharded) */
    int64_t axis;       /* >= 0 when split */
    ds_devobj *devices; /* n new device objects that the shim will own, piece order */
    int64_t *bounds;    /* when split: bounds[2i], bounds[2i+1] = [start, end) of piece i */
} ds_shard_layout;

/* What device.describe reports. Fields the library does not have stay false/empty. */
typedef struct ds_device_info {
    bool has_str;
    char str[128];
    bool has_type;
    char type[64];
    bool has_index;
    bool index_is_null; /* the library has an index attribute and it is None */
    int64_t index;
} ds_device_info;

/* What the library says about itself in hello. The strings and the list must stay valid
 * until the library is closed. */
typedef struct ds_library_info {
    const char *name;
    const char *version;
    const char *const *features; /* names from spec/features.json, NULL-terminated */
} ds_library_info;

/* DLPack's managed tensor (devspec_dlpack.h): the version 7 slots pass pointers to it. */
struct DLManagedTensorVersioned;

/* ds_binary_fn, ds_unary_fn, ds_reduce_fn: generated from spec/ops.json. */
#include "devspec_shim_fns_generated.h"

/* The creation functions with only a shape (array.create fn zeros/ones/empty). */
typedef enum ds_fill_fn { DS_ZEROS = 1, DS_ONES, DS_EMPTY } ds_fill_fn;

/* The default dtypes of info.default_dtypes. */
typedef struct ds_default_dtypes {
    ds_dtype real_floating, complex_floating, integral, indexing;
} ds_default_dtypes;

/* What the inspection namespace's capabilities() answers (info.capabilities, version 10):
 * the standard's keys "boolean indexing", "data-dependent shapes" and, from 2024.12,
 * "max dimensions" (max_dimensions < 0: None, no limit stated; 0: the key is left out). */
typedef struct ds_capabilities {
    bool boolean_indexing;
    bool data_dependent_shapes;
    int64_t max_dimensions;
} ds_capabilities;

/* OneFlow's placements and sbp (version 3 slots). A placement argument: a type and its
 * ranks, flat, or nested rows (row_len given: nrows rows of row_len[i] ranks, concatenated
 * in ranks; rows of different lengths are passed on for the library to refuse). */
typedef struct ds_placement_arg {
    const char *type;
    const int64_t *ranks;
    size_t nranks;
    const size_t *row_len; /* NULL: a flat list */
    size_t nrows;
} ds_placement_arg;

typedef enum ds_sbp_kind { DS_SBP_SPLIT = 1, DS_SBP_BROADCAST, DS_SBP_PARTIAL_SUM } ds_sbp_kind;

typedef struct ds_sbp_arg {
    ds_sbp_kind kind;
    int64_t dim; /* split only */
} ds_sbp_arg;

/* At most this many sbp values (one per placement dimension). */
#define DS_MAX_SBP 2

/* What global.placement reports. */
typedef struct ds_placement_info {
    char str[512]; /* the library's printed form */
    char type[32];
    int ndim;
    int64_t shape[DS_MAX_SBP];
} ds_placement_info;

/* What global.make reports: the global array's attributes, the calling rank's local piece
 * and the whole value as the library reads it back. The slot allocates both buffers' data
 * with ds_buffer_alloc; the shim frees them. */
typedef struct ds_global_info {
    ds_dtype dtype;
    int ndim;
    int64_t shape[DS_MAX_NDIM];
    char placement[512];
    size_t nsbp;
    char sbp[DS_MAX_SBP][64];
    ds_buffer local;
    ds_buffer value;
} ds_global_info;

/* A global array argument of global.binary and global.sum, made as global.make makes one
 * (from_local false: pieces[0] is the whole value; true: pieces[r] is rank r's piece). */
typedef struct ds_global_arg {
    const ds_buffer *pieces;
    size_t npieces;
    bool from_local;
    const ds_placement_arg *placement;
    const ds_sbp_arg *sbp;
    size_t nsbp;
} ds_global_arg;

/* Allocates buf->data for buf's dtype and shape (sets nbytes): for a slot that fills a
 * ds_buffer the shim frees. Returns 0, or -1 when out of memory (with ds_error set). */
int ds_buffer_alloc(ds_buffer *buf);

/* ---------------------------------------------------------------------------------------
 * Call values (the generic call, spec/protocol.md "call")
 *
 * An argument of the `call` slot, and its result: None, a scalar, a string (a keyword's
 * value: side="left"), a dtype, a device, an array, a tuple or list of values, a slice or
 * the ellipsis. Everything an argument points to belongs to the shim and is valid during
 * the call.
 * ------------------------------------------------------------------------------------- */
typedef enum ds_value_kind {
    DS_VALUE_NONE = 0,
    DS_VALUE_SCALAR, /* `scalar` */
    DS_VALUE_STRING, /* `str` */
    DS_VALUE_DTYPE,  /* `dtype` */
    DS_VALUE_DEVICE, /* `device` (never DS_DEVICE_NONE: None is DS_VALUE_NONE) */
    DS_VALUE_ARRAY,  /* `array` */
    DS_VALUE_TUPLE,  /* `items`, `n` */
    DS_VALUE_LIST,   /* `items`, `n` */
    DS_VALUE_SLICE,  /* `slice`, `slice_set` */
    DS_VALUE_ELLIPSIS
} ds_value_kind;

typedef struct ds_value {
    ds_value_kind kind;
    ds_scalar scalar;
    const char *str;
    ds_dtype dtype;
    ds_device device;
    ds_array array;
    const struct ds_value *items;
    size_t n;
    int64_t slice[3];  /* start, stop, step */
    bool slice_set[3]; /* false: None */
} ds_value;

/* The arrays a `call` result holds in place (a tuple of arrays: unique_all's four, svd's
 * three); a result of more arrays asks the shim for room with ds_call_result_reserve. */
#define DS_CALL_MAX_RESULTS 16
/* The most items a `call` result's tuple may have (arrays, or plain values), so that its
 * reply stays within the runner's bound of values in one reply (spec/protocol.md, "Limits");
 * a result of more is answered with MemoryError, origin "adapter", its arrays released. */
#define DS_CALL_MAX_ITEMS 32768

/* What a `call` slot returns in *out: one value, or, for a tuple of arrays, `kind`
 * DS_VALUE_TUPLE with its `n` arrays in `arrays[0..n)` when n <= DS_CALL_MAX_RESULTS, or in
 * `many[0..n)` for any n, room that ds_call_result_reserve gives (unstack along a long axis,
 * meshgrid of many arrays). The shim gives each array a handle and owns them; a
 * DS_VALUE_ARRAY result is `array`, owned by the shim too. A tuple of plain values
 * (broadcast_shapes' ints) is `kind` DS_VALUE_TUPLE with `n` 0 and the values (scalars or
 * None) in `value.items[0..value.n)`, which must stay valid until the slot is called again
 * on that thread. An `n` above DS_CALL_MAX_RESULTS with `many` NULL is the slot's mistake:
 * the op answers RuntimeError, origin "adapter", and releases arrays[0..DS_CALL_MAX_RESULTS)
 * (never a tuple cut short). */
typedef struct ds_call_result {
    ds_value value;
    ds_array arrays[DS_CALL_MAX_RESULTS];
    size_t n;
    /* Set by ds_call_result_reserve only: the shim's storage, freed after the reply (also when
     * the slot fails). A slot that points it anywhere else gets RuntimeError, origin
     * "adapter", and the storage is neither read nor freed by the shim. Added at the end: a
     * slot built against an older header never sees it and keeps arrays[]. */
    ds_array *many;
} ds_call_result;

/* Room for a `call` result of n arrays: sets out->n to n and returns where the slot puts
 * them, out->arrays when n <= DS_CALL_MAX_RESULTS, else out->many, allocated by the shim and
 * freed after the reply, whether the slot then succeeds or fails. A second call replaces the
 * first (its room is freed; arrays put there are the slot's to release). Returns NULL when
 * out of memory, with ds_error set (MemoryError): the slot returns non-zero. */
ds_array *ds_call_result_reserve(ds_call_result *out, size_t n);

/* ---------------------------------------------------------------------------------------
 * Errors from callbacks
 *
 * Every callback returns an int: 0 on success, anything else on failure (the library's own
 * status code is the natural choice). On failure the shim builds the error reply, origin
 * "library", from, in this order:
 *   1. the kind and message the callback gave with ds_error() before returning, if any;
 *   2. the table's `error` slot, asked to describe the returned status;
 *   3. kind "RuntimeError" and a message naming the status.
 * One rule for "cannot" (spec/decisions.md, Protocol and adapters 24): what the library does
 * not have (a function, a keyword, a dtype, an argument value) is never a wrong answer. Say
 * it with ds_lacks(NAME, why) before returning non-zero (DS_NOT_IMPLEMENTED or any status):
 * the reply is NotImplementedError with `lacks` NAME. DS_NOT_IMPLEMENTED returned without
 * ds_lacks says the same of the whole op, as a NULL slot does (kind NotImplementedError,
 * origin "adapter"; a message given with ds_error() is kept, its kind ignored), and the runner
 * names what is lacking by the step's function or op. Either way the case is lacking under
 * the features the library claims, and skipped under a feature the step uses that it does
 * not claim; a dtype the library does not have at all is better left out of info_dtypes, so
 * that the cases needing it on that device skip before they run.
 * Out-parameters are only read on success.
 * ------------------------------------------------------------------------------------- */
#define DS_NOT_IMPLEMENTED (-0x7fff)

/* Records the error of the failing callback: `kind` a Python exception name ("ValueError"),
 * the message printf-formatted. Call it from a callback just before returning non-zero. */
void ds_error(const char *kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ds_error with a va_list, for a library's own printf-like error function. */
void ds_verror(const char *kind, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;

/* Records that the library does not have what the failing callback was asked for: kind
 * NotImplementedError, origin "library", and `lacks` naming it as the standard does; the
 * runner reports the case as lacking it, never as a wrong answer. Call it just before
 * returning non-zero (DS_NOT_IMPLEMENTED or any other status). NAME's forms:
 *   a function or method      "linalg.solve", "Array.__setitem__"
 *   a keyword                 "argsort(stable=)", "zeros(device=)"
 *   an argument value         "fft.fft(n=17)", "asarray(dtype=float16)", "add(scalar)":
 *                             NAME(PARAM=VALUE), VALUE as Python writes it (a length, a
 *                             dtype's name), for a function the library has for other values
 *                             only (an FFT of some lengths, a copy between some dtypes)
 *   a dtype                   "dtype uint16", where no function of the library has it
 * Build a formatted NAME with snprintf first (NAME itself is not a format). */
void ds_lacks(const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---------------------------------------------------------------------------------------
 * The vendor table
 *
 * `version` and `size` come first; the table only ever grows at the end, so a table built
 * against an older header keeps working (the slots past its `size` count as NULL). Every
 * slot says whether it is required; a NULL optional slot answers its op with
 * NotImplementedError (origin "adapter"). `lib` is what `open` returned.
 *
 * Objects returned through `out` parameters (arrays, devices, streams) become the shim's:
 * it gives each a handle and releases it exactly once, on reset (arrays, streams, devices
 * made after hello) or on close (devices listed by hello). If a callback may return an
 * object it already returned (to_device to the same device returning x itself), it must
 * return a new reference to it (retain it), since each handle releases once. array.same
 * compares the pointers.
 * ------------------------------------------------------------------------------------- */
/* Version 9 added no slot: its tables take int scalars in [2^63, 2^64) (ds_scalar's `u`). */
#define DS_VENDOR_VERSION 10u

typedef struct ds_vendor {
    uint32_t version;            /* required: DS_VENDOR_VERSION */
    uint32_t size;               /* required: sizeof(ds_vendor) */
    const char *adapter_name;    /* required: the adapter's name, as in adapters.json */
    const char *adapter_version; /* required */

    /* Session. */
    int (*open)(void **lib);                        /* required: start the library */
    void (*close)(void *lib);                       /* optional: stop it */
    int (*hello)(void *lib, ds_library_info *out);  /* required */
    int (*reset)(void *lib);                        /* optional: restore defaults */
    void (*release_array)(void *lib, ds_array x);   /* required */
    void (*release_device)(void *lib, ds_devobj d); /* optional: NULL if devices are not owned */
    void (*release_stream)(void *lib, ds_stream s); /* optional: likewise */
    /* optional: describe a status a callback returned; kind/message are copied at once. */
    void (*error)(void *lib, int status, const char **kind, const char **message);

    /* device.* ; device_parse also turns a {"str": s} argument of device.describe and
     * device.equal into a device (released after the call). */
    int (*device_parse)(void *lib, const char *text, ds_devobj *out);    /* optional */
    int (*device_describe)(void *lib, ds_devobj d, ds_device_info *out); /* optional */
    int (*device_equal)(void *lib, ds_devobj a, ds_devobj b, bool *out); /* required */
    int (*device_from_type_index)(void *lib, const char *type, int64_t index,
                                  ds_devobj *out);                          /* optional */
    int (*device_from_ordinal)(void *lib, int64_t ordinal, ds_devobj *out); /* optional */

    /* info.* ; info_devices is required (hello lists its result). It fills at most `cap`
     * devices and sets *n to the number the library has (a larger *n asks again). A NULL
     * entry is a device the library reports as None: null in info.devices, left out of
     * hello's list. */
    int (*info_devices)(void *lib, ds_devobj *out, size_t cap, size_t *n);
    int (*info_default_device)(void *lib, ds_devobj *out); /* optional; *out may be NULL */
    int (*info_default_dtypes)(void *lib, ds_device device, ds_default_dtypes *out); /* opt. */
    /* optional: the dtypes the device supports, as a bit set (1u << dtype); the shim
     * applies the standard's `kind` filter. */
    int (*info_dtypes)(void *lib, ds_device device, uint32_t *out);

    /* array.create */
    int (*fill)(void *lib, ds_fill_fn fn, const int64_t *shape, int ndim, ds_dtype dtype,
                ds_device device, ds_array *out);
    int (*full)(void *lib, const int64_t *shape, int ndim, ds_scalar fill_value, ds_dtype dtype,
                ds_device device, ds_array *out);
    /* stop and step are NULL when absent */
    int (*arange)(void *lib, ds_scalar start, const ds_scalar *stop, const ds_scalar *step,
                  ds_dtype dtype, ds_device device, ds_array *out);
    int (*linspace)(void *lib, ds_scalar start, ds_scalar stop, int64_t num, bool endpoint,
                    ds_dtype dtype, ds_device device, ds_array *out);
    /* n_cols is NULL when absent */
    int (*eye)(void *lib, int64_t n_rows, const int64_t *n_cols, int64_t k, ds_dtype dtype,
               ds_device device, ds_array *out);
    int (*fill_like)(void *lib, ds_fill_fn fn, ds_array x, ds_dtype dtype, ds_device device,
                     ds_array *out);
    int (*full_like)(void *lib, ds_array x, ds_scalar fill_value, ds_dtype dtype, ds_device device,
                     ds_array *out);
    /* fn: "fftfreq" or "rfftfreq"; d defaults to 1.0 */
    int (*fftfreq)(void *lib, bool real, int64_t n, double d, ds_dtype dtype, ds_device device,
                   ds_array *out);

    /* array.asarray: from a typed array, from a scalar, or from another array. */
    int (*asarray_buffer)(void *lib, const ds_buffer *obj, ds_dtype dtype, ds_device device,
                          ds_copy copy, ds_array *out);
    int (*asarray_scalar)(void *lib, ds_scalar obj, ds_dtype dtype, ds_device device, ds_copy copy,
                          ds_array *out);
    int (*asarray_array)(void *lib, ds_array obj, ds_dtype dtype, ds_device device, ds_copy copy,
                         ds_array *out);
    int (*astype)(void *lib, ds_array x, ds_dtype dtype, bool copy, ds_device device,
                  ds_array *out);

    /* array.describe (required) and array.read (required): read copies the elements, in C
     * order, into `data` (nbytes bytes, sized from describe's dtype and shape). */
    int (*describe)(void *lib, ds_array x, ds_array_info *out);
    int (*read)(void *lib, ds_array x, void *data, size_t nbytes);

    int (*to_device)(void *lib, ds_array x, ds_device device, ds_stream stream, ds_array *out);
    int (*binary)(void *lib, ds_binary_fn fn, ds_operand x1, ds_operand x2, ds_array *out);
    int (*unary)(void *lib, ds_unary_fn fn, ds_array x, ds_array *out);
    /* axis is NULL for all axes */
    int (*reduce)(void *lib, ds_reduce_fn fn, ds_array x, const int64_t *axis, ds_array *out);
    int (*matmul)(void *lib, ds_array x1, ds_array x2, ds_array *out);
    int (*stack)(void *lib, const ds_array *xs, size_t n, int64_t axis, ds_array *out);
    int (*dlpack_device)(void *lib, ds_array x, int32_t *device_type, int32_t *device_id);
    int (*from_dlpack)(void *lib, ds_array x, ds_device device, ds_copy copy, ds_array *out);
    int (*stream_default)(void *lib, ds_device device, ds_stream *out);

    /* default.* and soft.* */
    int (*default_get)(void *lib, ds_devobj *out);
    int (*default_set)(void *lib, ds_device device);
    int (*default_unset)(void *lib);
    int (*default_push)(void *lib, ds_device device);
    int (*default_pop)(void *lib);
    int (*soft_get)(void *lib, bool *out);
    int (*soft_set)(void *lib, bool enabled);
    int (*soft_unset)(void *lib);

    /* util.* */
    int (*num_gpus)(void *lib, int64_t *out);
    int (*num_cpu_cores)(void *lib, int64_t *out);
    int (*total_memory)(void *lib, ds_device device, int64_t *out);
    int (*used_memory)(void *lib, ds_device device, int64_t *out);
    int (*utilisation)(void *lib, ds_device device, double *out);

    /* ---- version 2: slots appended; a version 1 table is shorter and they count as NULL ---- */

    /* optional: dtype.can_cast. from_ is an array (from_array non-NULL: answer from the
     * promotion graph of its device) or a dtype (from_array NULL: from_dtype, answer from the
     * complete promotion rules). */
    int (*can_cast)(void *lib, ds_array from_array, ds_dtype from_dtype, ds_dtype to, bool *out);
    /* optional: dtype.result_type of n >= 1 arguments in request order; argument i is the
     * array arrays[i] when that is non-NULL, else the dtype dtypes[i]. */
    int (*result_type)(void *lib, const ds_array *arrays, const ds_dtype *dtypes, size_t n,
                       ds_dtype *out);
    /* optional: array.tril (upper false) and array.triu (upper true) with diagonal offset k. */
    int (*tri)(void *lib, bool upper, ds_array x, int64_t k, ds_array *out);
    /* optional: util.arrays_on_device. Fills at most `cap` of the arrays alive on the device
     * as new objects (new references: the shim releases each once) and sets *n to the number
     * alive; a larger *n asks again (the shim first releases what it got). The shim answers
     * an array it already has a handle for with that handle and releases the new
     * reference. */
    int (*arrays_on_device)(void *lib, ds_device device, ds_array *out, size_t cap, size_t *n);

    /* ---- version 3: OneFlow's devices and global arrays; all optional ---- */
    /* device.parse_current: a device string whose bare type means the current device of
     * the type (OF-DEV-2); device.set_current makes d the current device of its type;
     * array.get_device gives an accelerator array's ordinal (an error for a cpu array). */
    int (*device_parse_current)(void *lib, const char *text, ds_devobj *out);
    int (*device_set_current)(void *lib, ds_devobj d);
    int (*array_get_device)(void *lib, ds_array x, int64_t *out);
    /* global.placement: placement(type, ranks), or placement.all(type) when `all` (then
     * p->ranks is empty); env_spelling asks for env.all_device_placement instead. */
    int (*placement_describe)(void *lib, const ds_placement_arg *p, bool all, bool env_spelling,
                              ds_placement_info *out);
    int (*placement_equal)(void *lib, const ds_placement_arg *a, const ds_placement_arg *b,
                           bool *out);
    /* global.sbp: the printed form of one sbp value into out (cap bytes). */
    int (*sbp_describe)(void *lib, ds_sbp_arg s, char *out, size_t cap);
    /* global.make: a global array on placement p with sbp (nsbp values), from the whole
     * value (npieces 1, from_local false: every rank passes it) or from each rank's local
     * piece (from_local: pieces[r] is rank r's); then, when nto > 0, converted to the sbp
     * `to`. Fills *out with the result's attributes, local piece and whole value. */
    int (*global_make)(void *lib, const ds_buffer *pieces, size_t npieces, bool from_local,
                       const ds_placement_arg *p, const ds_sbp_arg *sbp, size_t nsbp,
                       const ds_sbp_arg *to, size_t nto, ds_global_info *out);

    /* ---- version 4: sharding over a tuple of devices; all optional ---- */

    /* optional: array.shard (inplace false) and array.shard_inplace (inplace true): x spread
     * over the n >= 1 devices, split along *axis, or replicated when axis is NULL. In place,
     * *out is x itself (a new reference, so that array.same holds). */
    int (*shard)(void *lib, ds_array x, const ds_device *devices, size_t n, const int64_t *axis,
                 bool inplace, ds_array *out);
    /* optional: array.shard_describe: how x is spread (see ds_shard_layout). */
    int (*shard_describe)(void *lib, ds_array x, ds_shard_layout *out);
    /* optional: array.shard_piece: piece `index` of sharded x as an array on its device. */
    int (*shard_piece)(void *lib, ds_array x, size_t index, ds_array *out);
    /* optional: array.to_devices: x moved to the tuple of n >= 1 devices. */
    int (*to_devices)(void *lib, ds_array x, const ds_device *devices, size_t n, ds_array *out);

    /* ---- version 5: OneFlow's dtype names and out= (OF-DT-*, OF-OUT-*); all optional ---- */
    /* dtype.describe: the library's dtype for name as the library spells it (aliases
     * included): *dtype its protocol dtype (DS_DTYPE_NONE when it is none of them, which the
     * shim reports as the library's TypeError), *is_floating_point its is_floating_point. An
     * unknown spelling is the library's error. */
    int (*dtype_describe)(void *lib, const char *name, ds_dtype *dtype, bool *is_floating_point);
    /* array.binary_into: x1 fn x2 written into out (out= and the in-place forms; out may be
     * x1's array). fn is one of DS_ADD..DS_DIVIDE. */
    int (*binary_into)(void *lib, ds_binary_fn fn, ds_operand x1, ds_operand x2, ds_array out);

    /* ---- version 6: operations on OneFlow's global arrays; all optional ---- */
    /* global.binary: x1 fn x2 elementwise (fn DS_ADD..DS_DIVIDE) on two global arrays made
     * from their arguments, with the library's rules for their sbps; fills *out as
     * global_make does. */
    int (*global_binary)(void *lib, ds_binary_fn fn, const ds_global_arg *x1,
                         const ds_global_arg *x2, ds_global_info *out);
    /* global.sum: the sum of a global array over *axis, or over every axis when axis is
     * NULL; fills *out as global_make does. */
    int (*global_sum)(void *lib, const ds_global_arg *x, const int64_t *axis, ds_global_info *out);

    /* ---- version 7: DLPack across libraries; all optional ---- */
    /* The tensors are DLPack 1.x's DLManagedTensorVersioned, declared by devspec_dlpack.h
     * (installed beside this header; the layout is the standard's, so a library's own
     * dlpack.h of 1.0 or later serves too). */
    /* array.dlpack: x.__dlpack__(max_version=(1, 0), dl_device=, copy=, stream=) (DEV-DLP-6
     * to -10, -12): *out a new tensor, which the shim owns from then (it reads it and calls its
     * deleter exactly once). dl_device NULL: x's own device, else {device_type, device_id};
     * stream NULL: None, else the integer. A device the library cannot serve, copy=false when
     * a copy is needed and an array DLPack cannot describe are ds_error("BufferError", ...)
     * with a failing status; a copy carries DLPACK_FLAG_BITMASK_IS_COPIED. With this slot the
     * adapter may claim the feature dlpack-export. */
    int (*dlpack_export)(void *lib, ds_array x, const int32_t *dl_device, ds_copy copy,
                         const int64_t *stream, struct DLManagedTensorVersioned **out);
    /* from_dlpack of a tensor from any producer (never assume it is this library's): the slot
     * takes the tensor and calls its deleter exactly once, also when it fails. device and copy
     * as from_dlpack's. array.from_dlpack uses dlpack_export then this slot when the table has
     * no from_dlpack slot. */
    int (*dlpack_import)(void *lib, struct DLManagedTensorVersioned *tensor, ds_device device,
                         ds_copy copy, ds_array *out);

    /* ---- version 8: the generic call; optional ---- */
    /* call: the function `name` as the standard names it ("where", "linalg.solve",
     * "fft.fft", or "Array.NAME" for a method, operator or property, whose array is args[0])
     * with the positional `args` and the keyword arguments kwnames[i] = kwargs[i]. Fills
     * *out (ds_call_result; a tuple of any number of arrays takes its room from
     * ds_call_result_reserve, DS_CALL_MAX_RESULTS of them fit in place). A name, keyword or
     * argument form the library does not have is answered with ds_lacks() before returning
     * non-zero; the library's own refusals with ds_error(). */
    int (*call)(void *lib, const char *name, const ds_value *args, size_t nargs,
                const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                ds_call_result *out);

    /* ---- version 10: the inspection namespace's capabilities(); optional ---- */
    /* info.capabilities (DEV-INFO-1, DEV-INFO-2): fill *out with what the library can do. A
     * NULL slot is a library without capabilities(): the shim answers that it lacks
     * `info.capabilities` (NotImplementedError, origin library, with "lacks"). */
    int (*info_capabilities)(void *lib, ds_capabilities *out);
} ds_vendor;

/* ---------------------------------------------------------------------------------------
 * Driving a table
 * ------------------------------------------------------------------------------------- */

/* Answers one request with `vendor` (the work behind devspec_adapter_call). The session
 * (handles, hello done or not) is per process and per table. Returns a reply to free with
 * ds_shim_free; never NULL. */
const char *ds_shim_call(const ds_vendor *vendor, const char *request, size_t len,
                         size_t *reply_len);
void ds_shim_free(const char *reply);

/* Ends the session of `vendor`: releases every handle and closes the library. The next
 * request must be hello again. Harmless when there is no session. */
void ds_shim_shutdown(const ds_vendor *vendor);

/* Serves requests from `in` to `out`, one JSON line each, with `call`/`release` (an
 * in-process entry point: the table's, or one found with dlsym). A line longer than
 * DS_PROTOCOL_MAX_LINE is answered with an error and skipped. Returns 0 at end of input or
 * after `bye`, 1 when writing a reply fails. */
int ds_shim_serve(FILE *in, FILE *out, devspec_adapter_call_fn call,
                  devspec_adapter_free_fn release);

/* Defines the two exported entry points of an in-process adapter for `vendor_ptr`, a
 * `const ds_vendor *`. Use it once, at file scope, in the vendor's shared object. */
#define DEVSPEC_SHIM_EXPORT(vendor_ptr)                                                            \
    DS_EXPORT const char *devspec_adapter_call(const char *request, size_t len, size_t *reply_len) \
    {                                                                                              \
        return ds_shim_call((vendor_ptr), request, len, reply_len);                                \
    }                                                                                              \
    DS_EXPORT void devspec_adapter_free(const char *reply)                                         \
    {                                                                                              \
        ds_shim_free(reply);                                                                       \
    }

#ifdef __cplusplus
}
#endif

#endif /* DEVSPEC_SHIM_H */
