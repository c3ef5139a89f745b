/*
 * refarray.h: the public interface of refarray, devspec's reference array library.
 *
 * This header is the manual. refarray is a small array library whose every behaviour is a
 * deliberate reading of the device parts of the Python array API standard, of the early
 * draft's device-string syntax and of Ivy's default-device control. Statement IDs in the
 * comments (DEV-..., DRAFT-STR-..., IVY-...) refer to spec/statements.json; the choices the
 * standard leaves open are recorded in spec/decisions.md.
 *
 * Conventions used throughout:
 *  - Actions return an int status: RA_OK (0) on success, a negative RA_E_... code on error.
 *    The status table below gives each code a name, a message and a kind (the Python
 *    exception the standard would raise). On error, out-parameters are left NULL (or
 *    untouched for value outputs), nothing is changed, and the detail (which input, why) is
 *    available from ra_ctx_message() in the same thread.
 *  - Getters return the value; predicates return bool.
 *  - Whoever creates destroys. Arrays are reference counted: every ra_array * returned
 *    through an out-parameter is a new reference the caller must give back with
 *    ra_array_release(). ra_..._destroy(NULL) and ra_array_release(NULL) are no-ops.
 *  - refarray never aborts, exits or prints.
 *  - Structs that cross the API (ra_opts, ra_ctx_options, ra_device_props) carry their own
 *    size in their first field, so that fields can be appended without breaking compiled
 *    callers: the caller sets .size = sizeof(the struct) as it was compiled (the RA_OPTS,
 *    RA_CTX_OPTIONS and RA_DEVICE_PROPS_INIT macros do), and the library reads or writes
 *    only the fields that size covers. Size 0 means the first layout with a size field (the
 *    fields of version 0.2.0), so `&(ra_opts){.dtype = RA_FLOAT32}` keeps working; a field
 *    added later is read only when .size covers it. A size between 1 and the first layout's,
 *    or a larger size whose bytes beyond the library's struct are not all zero (fields this
 *    library does not know), is RA_E_ARG.
 *  - NULL handed to a getter (a function that returns a value, not a status) is never an
 *    error and never a crash: each getter says what it returns for NULL, always a value that
 *    no valid input gives (RA_NO_DEVICE, RA_DTYPE_DEFAULT, 0, NULL) or, for a context's
 *    settings, the built-in default.
 *  - Thread safety: a context may be used from several threads at once. Arrays are
 *    immutable after creation, so they may be shared between threads, except through the
 *    two calls that write an existing array (ra_binary_into's out, and ra_setitem of
 *    refarray_fn_shape.h): no other thread may use that array during them. Scoped defaults,
 *    soft device mode and the detail message are per thread (and per context).
 */
#ifndef REFARRAY_H
#define REFARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RA_API marks every exported function. Building refarray as a shared library defines
 * RA_BUILDING_LIBRARY (exported: dllexport on Windows, default visibility elsewhere, where
 * everything else is hidden); a program using the shared library gets dllimport on Windows.
 * A static refarray defines RA_STATIC for itself and for its users (its CMake target does),
 * and then RA_API is empty. */
#if defined(RA_STATIC)
#define RA_API
#elif defined(_WIN32) || defined(__CYGWIN__)
#if defined(RA_BUILDING_LIBRARY)
#define RA_API __declspec(dllexport)
#else
#define RA_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define RA_API __attribute__((visibility("default")))
#else
#define RA_API
#endif

/* ---------------------------------------------------------------------------------------
 * Version
 *
 * The header's version; the project's VERSION file is the one source of this number and
 * the build checks that the three macros below equal it. RA_VERSION_NUMBER is
 * MAJOR * 1000000 + MINOR * 1000 + PATCH (0.2.0 is 2000), so versions compare as integers.
 * A program compiled against this header can ask the library it runs with for its number
 * (ra_version_number) and decide what to use: within one major version, functions and
 * struct fields are only ever added, and each says in its comment the version that added it
 * when that is later than 0.2.0.
 * ------------------------------------------------------------------------------------- */
#define RA_VERSION_MAJOR 0
#define RA_VERSION_MINOR 2
#define RA_VERSION_PATCH 0
#define RA_VERSION_NUMBER (RA_VERSION_MAJOR * 1000000 + RA_VERSION_MINOR * 1000 + RA_VERSION_PATCH)

/* The running library's version string, "MAJOR.MINOR.PATCH". Static storage. */
RA_API const char *ra_version(void);
/* The running library's RA_VERSION_NUMBER (which may differ from the header a caller was
 * compiled with). */
RA_API int ra_version_number(void);

/* ---------------------------------------------------------------------------------------
 * Status codes
 *
 * One table: X(NAME, value, message, kind). Codes are only ever appended; a value is never
 * reused. RA_OK is 0 and is not in the table.
 * ------------------------------------------------------------------------------------- */
#define RA_STATUS_TABLE(X)                                                                         \
    X(RA_E_NULL, -1, "a required argument is NULL", "TypeError")                                   \
    X(RA_E_ARG, -2, "invalid argument", "ValueError")                                              \
    X(RA_E_DEVICE_SYNTAX, -3, "malformed device string", "ValueError")                             \
    X(RA_E_DEVICE_TYPE, -4, "unknown device type", "ValueError")                                   \
    X(RA_E_DEVICE_UNAVAILABLE, -5, "device not available", "ValueError")                           \
    X(RA_E_DEVICE_MISMATCH, -6, "arrays are on different devices", "ValueError")                   \
    X(RA_E_DTYPE, -7, "unsupported data type for this operation", "TypeError")                     \
    X(RA_E_DTYPE_DEVICE, -8, "data type not supported on this device", "ValueError")               \
    X(RA_E_SHAPE, -9, "invalid shape", "ValueError")                                               \
    X(RA_E_BROADCAST, -10, "shapes cannot be broadcast together", "ValueError")                    \
    X(RA_E_AXIS, -11, "axis out of range", "IndexError")                                           \
    X(RA_E_NOMEM, -12, "out of memory", "MemoryError")                                             \
    X(RA_E_TOO_LARGE, -13, "array size exceeds the addressable range", "ValueError")               \
    X(RA_E_BUFFER, -14, "buffer too small or of the wrong size", "BufferError")                    \
    X(RA_E_SCALAR, -15, "scalar operand not allowed here", "TypeError")                            \
    X(RA_E_SCALAR_RANGE, -16, "scalar out of range for the data type", "ValueError")               \
    X(RA_E_COPY, -17, "a copy is required but copy=False was requested", "ValueError")             \
    X(RA_E_STREAM, -18, "invalid stream for this device", "ValueError")                            \
    X(RA_E_SCOPE_EMPTY, -19, "no scoped default device to pop", "RuntimeError")                    \
    X(RA_E_NOT_MEASURABLE, -20, "quantity cannot be measured on this device",                      \
      "NotImplementedError")                                                                       \
    X(RA_E_NOT_IMPLEMENTED, -21, "operation not implemented", "NotImplementedError")               \
    X(RA_E_BACKEND, -22, "device backend failure", "RuntimeError")                                 \
    X(RA_E_EMPTY_REDUCTION, -23, "reduction over an empty axis has no identity", "ValueError")     \
    X(RA_E_DEVICE_KIND, -24, "operation not supported for this device type", "RuntimeError")       \
    X(RA_E_TIMEOUT, -25, "a collective operation did not complete in time", "RuntimeError")        \
    X(RA_E_COMM, -26, "communication between ranks failed", "RuntimeError")                        \
    X(RA_E_SHARDED, -27, "the array is sharded over several devices", "RuntimeError")              \
    X(RA_E_SHARD_UNEVEN, -28, "the axis cannot be divided evenly among the devices",               \
      "RuntimeError")                                                                              \
    X(RA_E_OUT_CAST, -29, "result type cannot be cast to the output's dtype", "RuntimeError")

enum ra_status {
    RA_OK = 0,
#define RA_STATUS_ENUM_(name, value, message, kind) name = value,
    RA_STATUS_TABLE(RA_STATUS_ENUM_)
#undef RA_STATUS_ENUM_
};

/* The status's name ("RA_E_ARG", "RA_OK"), or "RA_E_UNKNOWN" for a value not in the table. */
RA_API const char *ra_status_name(int status);
/* The status's fixed message ("invalid argument"), or "unknown status". */
RA_API const char *ra_status_message(int status);
/* The Python exception name the standard would raise for this status ("ValueError"); NULL
 * for RA_OK; "RuntimeError" for a value not in the table. */
RA_API const char *ra_status_kind(int status);

/* ---------------------------------------------------------------------------------------
 * Contexts, allocation and the detail message
 * ------------------------------------------------------------------------------------- */

/* A context owns the discovered devices, their backends (and kernel caches) and the global
 * default device. Scoped defaults and soft device mode are per thread within a context. */
typedef struct ra_ctx ra_ctx;

/* The allocation hook. Every allocation refarray makes for a context (the context itself,
 * array headers, host array data, per-thread state, staging buffers) goes through it.
 * alloc(n, ud) returns NULL on failure; release(p, ud) accepts NULL. Memory a device
 * backend allocates on the device itself (OpenCL buffers) does not go through the hook. */
typedef struct ra_allocator {
    void *(*alloc)(size_t size, void *user_data);
    void (*release)(void *ptr, void *user_data);
    void *user_data;
} ra_allocator;

enum ra_ctx_flags {
    /* Do not open the OpenCL backend: the context has only the cpu device. */
    RA_CTX_NO_OPENCL = 1u << 0,
};

typedef struct ra_ctx_options {
    size_t size; /* sizeof(ra_ctx_options) as the caller compiled it, or 0 (first layout) */
    /* NULL: malloc/free. The struct is copied; the functions must stay valid for the
     * context's lifetime. */
    const ra_allocator *allocator;
    unsigned flags; /* ra_ctx_flags, or 0 */
    /* The most bytes of array data the cpu device may hold at once, or 0 for no limit. An
     * allocation that would pass it is RA_E_NOMEM (MemoryError) with a message naming the
     * limit, so that one oversized request cannot take the machine down (an adapter sets it;
     * OpenCL devices have max_device_bytes). */
    size_t max_host_bytes;
    /* The most bytes of buffers each OpenCL device (gpu:N) may hold at once, or 0 for no
     * limit beyond the device's own memory. Each device counts its own buffers, those idle
     * in its pool of reusable buffers included (they are released before a refusal); the cpu
     * device is not counted here. An allocation that would pass it is RA_E_NOMEM with a
     * message naming the device and the limit, before any buffer is created. An OpenCL CPU
     * device (PoCL) takes its buffers from host memory: what a context may take from the
     * host is then max_host_bytes plus this for each such device. */
    size_t max_device_bytes;
} ra_ctx_options;

/* Context options with their size set: ra_ctx_create(RA_CTX_OPTIONS(.flags = ...), &ctx). */
#define RA_CTX_OPTIONS(...) (&(ra_ctx_options){.size = sizeof(ra_ctx_options), __VA_ARGS__})

/* Creates a context and discovers devices: cpu (host memory) always, gpu:0..gpu:N-1 for the
 * OpenCL devices the ICD loader lists when the library was built with OpenCL and
 * RA_CTX_NO_OPENCL is not set. opts NULL means all defaults. *out receives the context.
 * Returns RA_E_NULL (out NULL), RA_E_ARG (opts->size, an allocator without both functions,
 * unknown flags), RA_E_NOMEM, RA_E_BACKEND (device discovery failed); the detail is in
 * ra_ctx_message(NULL). */
RA_API int ra_ctx_create(const ra_ctx_options *opts, ra_ctx **out);

/* Destroys the context, its backends and every thread's state in it. Every array created in
 * the context must have been released before. NULL is a no-op. */
RA_API void ra_ctx_destroy(ra_ctx *ctx);

/* The detail message of the calling thread's last error in ctx ("device string 'GPU:0':
 * upper-case type; types are lower-case cpu, gpu, tpu"), or "" if none. With ctx NULL: the
 * last error of a call made with a NULL context (ra_device_parse(NULL, ...), a failed
 * ra_ctx_create). Valid until the thread's next call into refarray with the same ctx. */
RA_API const char *ra_ctx_message(const ra_ctx *ctx);

/* Frees the calling thread's state in ctx (scoped defaults, soft mode, message, and the
 * header of the array it released last, which it keeps for its next array). Optional: a
 * thread that used ctx and is about to exit may call it; otherwise the state lives until
 * ra_ctx_destroy. */
RA_API void ra_ctx_thread_release(ra_ctx *ctx);

/* ---------------------------------------------------------------------------------------
 * Devices (DRAFT-STR-*, DEV-DS-4)
 * ------------------------------------------------------------------------------------- */

typedef enum ra_device_type {
    RA_DEVICE_CPU = 1, /* host memory; exactly one: cpu (== cpu:0) */
    RA_DEVICE_GPU = 2, /* the N-th OpenCL device the ICD loader lists */
    RA_DEVICE_TPU = 3, /* valid syntax, never available */
} ra_device_type;

/* A device is a small value. Two devices are equal when type and index are equal
 * (ra_device_eq). The index is >= 0, except RA_DEVICE_INDEX_CURRENT (see "The current
 * device of a type" below). ra_device_parse reads a device string without an index as index
 * 0, so "cpu" == "cpu:0" and "gpu" == "gpu:0" (spec/decisions.md, "Device strings"). */
typedef struct ra_device {
    ra_device_type type;
    int32_t index;
} ra_device;

#define RA_CPU ((ra_device){RA_DEVICE_CPU, 0})

/* No device: what a getter that returns a device gives for a NULL argument
 * (ra_array_device(NULL), ra_default_device(NULL)). Its type, 0, is no ra_device_type, so
 * it is equal to no available device, ra_device_check rejects it (RA_E_ARG) and
 * ra_device_format refuses it; a zero-initialised ra_device is RA_NO_DEVICE. */
#define RA_NO_DEVICE ((ra_device){(ra_device_type)0, 0})

/* The longest canonical device string including its NUL ("tpu:2147483647"). */
#define RA_DEVICE_STR_MAX 16

/* Parses the string form 'type:index' (DRAFT-STR-1..3): a lower-case type cpu, gpu or tpu,
 * optionally ':' and a decimal index of ASCII digits without sign, leading zeros or spaces,
 * at most 2147483647. Parsing checks syntax and type only, not availability: a device
 * value names a device; using one that is not available (creating an array on it, moving
 * to it, making it the default) is RA_E_DEVICE_UNAVAILABLE. ctx may be NULL (the detail
 * then goes to ra_ctx_message(NULL)). Returns RA_E_NULL (text or out NULL),
 * RA_E_DEVICE_SYNTAX (malformed), RA_E_DEVICE_TYPE (well-formed but unknown type); the
 * message quotes the input and says what is wrong. */
RA_API int ra_device_parse(ra_ctx *ctx, const char *text, ra_device *out);

/* Builds a device from a type name ("cpu", "gpu") and an index >= 0 (OneFlow's
 * device(type, index)). The type must not carry an index. Returns RA_E_NULL,
 * RA_E_DEVICE_TYPE (an unknown type, and tpu, no OneFlow device type), RA_E_DEVICE_SYNTAX
 * (type with ':' or other junk), RA_E_ARG (index < 0 or > INT32_MAX). */
RA_API int ra_device_from_type_index(ra_ctx *ctx, const char *type, int64_t index, ra_device *out);

/* A legacy integer ordinal N means gpu:N (OneFlow's device(1)). Returns RA_E_NULL, RA_E_ARG
 * (N < 0 or > INT32_MAX). */
RA_API int ra_device_from_ordinal(ra_ctx *ctx, int64_t ordinal, ra_device *out);

/* Writes the canonical string ("cpu", "gpu:1", "tpu:0") into buf (cap bytes, NUL
 * terminated). cpu has no index in its canonical form; gpu and tpu always have one.
 * Returns RA_E_NULL, RA_E_ARG (not a valid device value), RA_E_BUFFER (cap too small;
 * RA_DEVICE_STR_MAX always suffices). */
RA_API int ra_device_format(ra_device dev, char *buf, size_t cap);

/* The type's name: "cpu", "gpu", "tpu"; NULL for a value outside ra_device_type. */
RA_API const char *ra_device_type_name(ra_device_type type);

/* Equality of devices (DEV-DS-4): same type and same index. */
RA_API bool ra_device_eq(ra_device a, ra_device b);

/* Whether dev is available in ctx (listed by ra_info_devices). ctx NULL: false. */
RA_API bool ra_device_is_available(const ra_ctx *ctx, ra_device dev);

/* RA_OK when dev is available in ctx; otherwise RA_E_DEVICE_UNAVAILABLE with a message that
 * names the device and lists the available ones (RA_E_ARG for an invalid value). */
RA_API int ra_device_check(ra_ctx *ctx, ra_device dev);

/* Facts about an available device. An output: the caller sets .size (RA_DEVICE_PROPS_INIT
 * does, or 0 for the first layout) and the library fills the fields it covers. */
typedef struct ra_device_props {
    size_t size;           /* sizeof(ra_device_props) as the caller compiled it, or 0 */
    char name[128];        /* the backend's device name ("host", PoCL's "cpu-..." name) */
    char backend[16];      /* "host" or "opencl" */
    uint64_t total_memory; /* bytes */
    bool has_float64;      /* float64 and complex128 supported */
    int compute_units;
} ra_device_props;

#define RA_DEVICE_PROPS_INIT                                                                       \
    {                                                                                              \
        .size = sizeof(ra_device_props)                                                            \
    }

/* Fills the fields of *out that out->size covers for an available device (the library's
 * fields beyond them are left out; the caller's bytes beyond the library's struct are set
 * to zero). Returns RA_E_NULL, RA_E_ARG (out->size), RA_E_DEVICE_UNAVAILABLE. */
RA_API int ra_device_props_get(ra_ctx *ctx, ra_device dev, ra_device_props *out);

/* The device's default stream or queue for ra_to_device: NULL for cpu (no streams), the
 * device's cl_command_queue for an OpenCL device (borrowed; the context owns it).
 * Returns RA_E_NULL, RA_E_DEVICE_UNAVAILABLE. */
RA_API int ra_device_default_stream(ra_ctx *ctx, ra_device dev, void **out);

/* ---------------------------------------------------------------------------------------
 * Data types
 * ------------------------------------------------------------------------------------- */

typedef enum ra_dtype {
    RA_DTYPE_DEFAULT = 0, /* in options: the function's default */
    RA_BOOL = 1,
    RA_INT8,
    RA_INT16,
    RA_INT32,
    RA_INT64,
    RA_UINT8,
    RA_UINT16,
    RA_UINT32,
    RA_UINT64,
    RA_FLOAT32,
    RA_FLOAT64,
    RA_COMPLEX64,
    RA_COMPLEX128,
    /* OneFlow's half (OF-DT-1), IEEE 754 binary16 storage; not an array API dtype.
     * Supported on cpu and on OpenCL devices that report cl_khr_fp16; elsewhere
     * RA_E_DTYPE_DEVICE. */
    RA_FLOAT16,
} ra_dtype;

#define RA_DTYPE_COUNT 14 /* RA_BOOL..RA_FLOAT16 */

/* The array API name ("float32"), "float16" for RA_FLOAT16; NULL for a value outside
 * RA_BOOL..RA_FLOAT16. */
RA_API const char *ra_dtype_name(ra_dtype dtype);
/* Parses a dtype name: the array API names, "float16", and OneFlow's aliases (OF-DT-1)
 * "double" (float64), "float" (float32), "half" (float16), "int" (int32) and "long" (int64),
 * which are accepted as input only (ra_dtype_name prints the canonical name). Returns
 * RA_E_NULL, RA_E_ARG (unknown name). */
RA_API int ra_dtype_parse(ra_ctx *ctx, const char *name, ra_dtype *out);
/* Bytes per element (1..16); 0 for an invalid value. */
RA_API size_t ra_dtype_size(ra_dtype dtype);
/* RA_FLOAT16's elements (IEEE 754 binary16, stored as uint16_t) from and to double: from
 * rounds to nearest, ties to even (beyond 65504 to infinity); subnormals, infinities and
 * signed zeros are kept; a NaN becomes the quiet NaN 0x7e00 with its sign. Every binary16
 * value is a double, so to is exact. The codec refarray's own casts use. */
RA_API uint16_t ra_float16_from_double(double d);
RA_API double ra_float16_to_double(uint16_t h);

/* Dtype kinds for ra_info_dtypes, as flags (the standard's kind= strings). */
enum ra_dtype_kind {
    RA_KIND_BOOL = 1u << 0,
    RA_KIND_SIGNED_INTEGER = 1u << 1,
    RA_KIND_UNSIGNED_INTEGER = 1u << 2,
    RA_KIND_REAL_FLOATING = 1u << 3,
    RA_KIND_COMPLEX_FLOATING = 1u << 4,
    RA_KIND_INTEGRAL = RA_KIND_SIGNED_INTEGER | RA_KIND_UNSIGNED_INTEGER,
    RA_KIND_NUMERIC = RA_KIND_INTEGRAL | RA_KIND_REAL_FLOATING | RA_KIND_COMPLEX_FLOATING,
    RA_KIND_ALL = RA_KIND_BOOL | RA_KIND_NUMERIC,
};

/* The kind flag of one dtype (exactly one bit); 0 for an invalid value. */
RA_API unsigned ra_dtype_kind(ra_dtype dtype);

/* ---------------------------------------------------------------------------------------
 * Scalars (Python scalars as operands and fill values)
 * ------------------------------------------------------------------------------------- */

typedef enum ra_scalar_kind {
    RA_SCALAR_BOOL = 1,
    RA_SCALAR_INT = 2,     /* Python int within int64, or (u) within [2^63, 2^64) */
    RA_SCALAR_FLOAT = 3,   /* Python float */
    RA_SCALAR_COMPLEX = 4, /* Python complex */
} ra_scalar_kind;

/* A Python int is one of the values some dtype holds: -2^63 <= v < 2^64. One in int64 is `i`
 * with `u` false; one in [2^63, 2^64) has `u` true and `i` holding its bits ((uint64_t)i is
 * the value). `u` sits where `b`'s padding was, so the struct's size and its other members'
 * offsets are those of the struct without it. */
typedef struct ra_scalar {
    ra_scalar_kind kind;
    bool b;
    bool u;        /* RA_SCALAR_INT: the value is (uint64_t)i, at least 2^63 */
    int64_t i;     /* RA_SCALAR_INT */
    double re, im; /* float: re; complex: re + im*j */
} ra_scalar;

static inline ra_scalar ra_scalar_bool(bool b)
{
    ra_scalar s = {RA_SCALAR_BOOL, b, false, 0, 0.0, 0.0};
    return s;
}
static inline ra_scalar ra_scalar_int(int64_t i)
{
    ra_scalar s = {RA_SCALAR_INT, false, false, i, 0.0, 0.0};
    return s;
}
/* A Python int in [0, 2^64): within int64 it is ra_scalar_int's, above it `u` is set. */
static inline ra_scalar ra_scalar_uint(uint64_t v)
{
    ra_scalar s = {RA_SCALAR_INT, false, v > (uint64_t)INT64_MAX, (int64_t)v, 0.0, 0.0};
    return s;
}
static inline ra_scalar ra_scalar_float(double re)
{
    ra_scalar s = {RA_SCALAR_FLOAT, false, false, 0, re, 0.0};
    return s;
}
static inline ra_scalar ra_scalar_complex(double re, double im)
{
    ra_scalar s = {RA_SCALAR_COMPLEX, false, false, 0, re, im};
    return s;
}

/* ---------------------------------------------------------------------------------------
 * Arrays
 * ------------------------------------------------------------------------------------- */

/* A contiguous, C-ordered array with a dtype, a shape and a device. Immutable after
 * creation but for ra_binary_into's out and ra_setitem (x[key] = value); reference counted. */
typedef struct ra_array ra_array;

#define RA_MAX_NDIM 32

/* Adds a reference to x and returns x (NULL stays NULL). */
RA_API ra_array *ra_array_retain(const ra_array *x);
/* Gives back one reference; the last one frees the array and its device memory. NULL is a
 * no-op. Any thread may release any reference, whichever thread made the array. The release
 * of the only reference takes no locked instruction where the system offers a process-wide
 * memory barrier (Linux's membarrier), which ra_util_arrays_on_device then issues
 * (spec/decisions.md, "Arrays and operations"). */
RA_API void ra_array_release(ra_array *x);

/* The array's device: the .device attribute (DEV-ATTR-1). NULL: RA_NO_DEVICE. */
RA_API ra_device ra_array_device(const ra_array *x);
/* The array's dtype. NULL: RA_DTYPE_DEFAULT (no dtype). */
RA_API ra_dtype ra_array_dtype(const ra_array *x);
/* The number of axes. NULL: 0 (check for NULL before reading it as 0-d). */
RA_API size_t ra_array_ndim(const ra_array *x);
/* The shape, ndim entries, owned by the array (NULL for a 0-d array). NULL: NULL. */
RA_API const int64_t *ra_array_shape(const ra_array *x);
/* Number of elements (1 for 0-d). NULL: 0. */
RA_API int64_t ra_array_size(const ra_array *x);
/* Size in bytes of the data (size * dtype size). NULL: 0. */
RA_API size_t ra_array_nbytes(const ra_array *x);

/* Copies the array's data to host memory dst (C order, the array's dtype) without moving
 * the array. dst_bytes must equal ra_array_nbytes(x). Returns RA_E_NULL, RA_E_BUFFER (wrong
 * size), RA_E_BACKEND. */
RA_API int ra_array_read(ra_ctx *ctx, const ra_array *x, void *dst, size_t dst_bytes);

/* DLPack's __dlpack_device__: kDLCPU (1) with id 0 for cpu, kDLOpenCL (4) with the gpu
 * index for gpu (DEV-DLP-1). Returns RA_E_NULL. */
RA_API int ra_array_dlpack_device(const ra_array *x, int32_t *device_type, int32_t *device_id);

/* ---------------------------------------------------------------------------------------
 * Creation: options and functions (DEV-CREATE-*, DEV-DS-9)
 * ------------------------------------------------------------------------------------- */

/* copy= of asarray and astype. */
typedef enum ra_copy {
    RA_COPY_DEFAULT = 0, /* the function's default: asarray copies if needed, astype always */
    RA_COPY_IF_NEEDED,   /* copy=None */
    RA_COPY_ALWAYS,      /* copy=True */
    RA_COPY_NEVER,       /* copy=False: RA_E_COPY when a copy is needed */
} ra_copy;

/* Options, so that C reads like keywords:
 *   ra_zeros(ctx, shape, 2, &(ra_opts){.dtype = RA_FLOAT32, .device = "gpu:0"}, &x);
 * A NULL options pointer means all defaults. The struct's size comes first (see the
 * conventions at the top); RA_OPTS sets it:
 *   ra_zeros(ctx, shape, 2, RA_OPTS(.dtype = RA_FLOAT32, .device = "gpu:0"), &x);
 * A bad size is RA_E_ARG in every function that takes options. */
typedef struct ra_opts {
    size_t size;                   /* sizeof(ra_opts) as the caller compiled it, or 0 */
    ra_dtype dtype;                /* RA_DTYPE_DEFAULT: the function's default */
    const char *device;            /* device string; NULL = not given; a bare type ("gpu")
                                      is the current device of its type, index 0 until
                                      ra_device_set_current changes it */
    const ra_device *device_value; /* device value; NULL = not given; not both */
    ra_copy copy;                  /* asarray and astype only */
} ra_opts;

#define RA_OPTS(...) (&(ra_opts){.size = sizeof(ra_opts), __VA_ARGS__})

/* Where the result of a function with a device option goes (the inference order,
 * DEV-DS-14b, IVY-INFER-1): an explicit device (opts->device or opts->device_value) wins;
 * otherwise the device of the array argument (asarray from an array, *_like, astype);
 * otherwise the calling thread's innermost scoped default (ra_default_push); otherwise the
 * context's global default. ra_ctx_set_inference selects the 2021.12-2024.12 order instead.
 * Soft device mode comes first when it is on (under the default RA_SOFT_MOVE_ALL policy): a
 * function given an array argument and no explicit device then runs on the default device
 * (ra_default_device), its argument moved there, as operations do (IVY-SOFT-1, IVY-SOFT-5).
 * A scope turns soft mode on, so inside ra_default_push the scope's device wins over the
 * array argument (IVY-CTX-1); with soft mode switched off inside the scope (the array API's
 * context manager) the order above holds.
 * An explicit device that is malformed or not available is an error (RA_E_DEVICE_SYNTAX,
 * RA_E_DEVICE_TYPE, RA_E_DEVICE_UNAVAILABLE, ValueError kind). */

/* Default dtypes: float64 for zeros/ones/empty/full with a float fill/linspace/eye (float32
 * on a device without float64), int64 for integer fills and integer arange, bool for a bool
 * fill, complex128 (complex64) for a complex fill. A dtype the device does not support is
 * RA_E_DTYPE_DEVICE (DEV-DS-17).
 *
 * Common errors of the creation functions: RA_E_NULL (ctx, out, or shape with ndim > 0
 * NULL), RA_E_SHAPE (negative extent, ndim > RA_MAX_NDIM), RA_E_TOO_LARGE, RA_E_ARG (both
 * device and device_value given, invalid dtype value), the device errors above,
 * RA_E_DTYPE_DEVICE, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_zeros(ra_ctx *ctx, const int64_t *shape, size_t ndim, const ra_opts *opts,
                    ra_array **out);
RA_API int ra_ones(ra_ctx *ctx, const int64_t *shape, size_t ndim, const ra_opts *opts,
                   ra_array **out);
/* Like zeros; refarray initialises the memory to zero anyway, so nothing is undefined. */
RA_API int ra_empty(ra_ctx *ctx, const int64_t *shape, size_t ndim, const ra_opts *opts,
                    ra_array **out);
/* The default dtype follows the fill value's kind. RA_E_SCALAR_RANGE when the value does
 * not fit an explicit integer dtype; RA_E_DTYPE when its kind cannot be stored in the
 * dtype (a float into an integer dtype, a complex into a real one). */
RA_API int ra_full(ra_ctx *ctx, const int64_t *shape, size_t ndim, ra_scalar fill_value,
                   const ra_opts *opts, ra_array **out);
/* arange(start, stop, step): stop NULL means arange(0, start); step NULL means 1. Integer
 * scalars give int64 by default, any float gives float64. RA_E_ARG for step 0 or a bool or
 * complex argument. */
RA_API int ra_arange(ra_ctx *ctx, ra_scalar start, const ra_scalar *stop, const ra_scalar *step,
                     const ra_opts *opts, ra_array **out);
/* num >= 0 evenly spaced values from start to stop (inclusive when endpoint). Complex bounds
 * (2022.12) space the real and imaginary parts each on its own and default to the default
 * complex dtype. RA_E_ARG for num < 0 or a bool bound; RA_E_DTYPE for an integer or bool
 * dtype, or a real dtype with a complex bound. */
RA_API int ra_linspace(ra_ctx *ctx, ra_scalar start, ra_scalar stop, int64_t num, bool endpoint,
                       const ra_opts *opts, ra_array **out);
/* Ones on the k-th diagonal of an n_rows x n_cols matrix; n_cols < 0 means n_rows. RA_E_ARG
 * for n_rows < 0. */
RA_API int ra_eye(ra_ctx *ctx, int64_t n_rows, int64_t n_cols, int64_t k, const ra_opts *opts,
                  ra_array **out);

/* The *_like functions: x's shape and (unless opts->dtype) dtype; on x's device unless an
 * explicit device is given (DEV-CREATE-3). */
RA_API int ra_zeros_like(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out);
RA_API int ra_ones_like(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out);
RA_API int ra_empty_like(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out);
RA_API int ra_full_like(ra_ctx *ctx, const ra_array *x, ra_scalar fill_value, const ra_opts *opts,
                        ra_array **out);

/* asarray from host memory: data holds size(shape) elements of dtype in C order (copied).
 * opts->dtype casts (RA_E_DTYPE for a cast that loses the kind: complex to real, float to
 * integer is allowed as in astype). The result goes where the inference order says (there
 * is no array argument). Host data is always copied: opts->copy RA_COPY_NEVER is RA_E_COPY
 * (ValueError). */
RA_API int ra_asarray_buffer(ra_ctx *ctx, const void *data, ra_dtype dtype, const int64_t *shape,
                             size_t ndim, const ra_opts *opts, ra_array **out);
/* asarray of a Python scalar: a 0-d array; default dtype as for ra_full. */
RA_API int ra_asarray_scalar(ra_ctx *ctx, ra_scalar value, const ra_opts *opts, ra_array **out);
/* asarray of an array: on x's device unless an explicit device is given (DEV-CREATE-2).
 * With copy if-needed (the default) and nothing to change, *out is x itself (retained);
 * RA_COPY_ALWAYS gives a new array; RA_COPY_NEVER with a dtype or device change is
 * RA_E_COPY. */
RA_API int ra_asarray(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out);
/* astype: x's values converted to dtype (C casts; float to integer truncates toward zero,
 * complex to real is RA_E_DTYPE), on x's device unless an explicit device is given
 * (DEV-CREATE-6). The default copy is always; RA_COPY_IF_NEEDED or RA_COPY_NEVER with the
 * same dtype and device returns x itself (retained). opts->dtype is ignored. */
RA_API int ra_astype(ra_ctx *ctx, const ra_array *x, ra_dtype dtype, const ra_opts *opts,
                     ra_array **out);

/* from_dlpack (DEV-DLP-*): refarray's arrays are their own DLPack producers within a
 * process, so importing one is asarray with the DLPack rules: on x's device unless an
 * explicit device is given; opts->copy RA_COPY_DEFAULT or RA_COPY_IF_NEEDED returns x itself
 * (retained) when nothing changes and copies otherwise, RA_COPY_ALWAYS always copies,
 * RA_COPY_NEVER with a device change is RA_E_BUFFER (BufferError, DEV-DLP-16). opts->dtype
 * must be RA_DTYPE_DEFAULT (DLPack keeps the dtype). Returns RA_E_NULL, RA_E_ARG, the device
 * errors, RA_E_DTYPE_DEVICE, RA_E_BUFFER, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_from_dlpack(ra_ctx *ctx, const ra_array *x, const ra_opts *opts, ra_array **out);

/* DLPack 1.x across libraries. The structs are the standard's; devspec_dlpack.h (or the
 * standard's dlpack.h, 1.0 or later) declares them. */
struct DLManagedTensorVersioned;

/* x.__dlpack__(dl_device=, copy=) (DEV-DLP-6..10, -12): x as a DLManagedTensorVersioned of
 * DLPack 1.3 that the consumer owns and gives back by calling its deleter exactly once, on
 * any thread, before ctx is destroyed. dl_device NULL exports on x's device, else the pair
 * {device_type, device_id}: {kDLCPU (1), 0} is cpu, {kDLOpenCL (4), N} is gpu:N; the tensor's
 * data is then the array's host pointer, or its OpenCL buffer's cl_mem with byte_offset 0;
 * strides are always given (C order). With the device of x and copy RA_COPY_DEFAULT or
 * RA_COPY_IF_NEEDED the tensor shares x's buffer and is DLPACK_FLAG_BITMASK_READ_ONLY
 * (refarray's arrays are immutable); otherwise it is a copy on the device asked for,
 * DLPACK_FLAG_BITMASK_IS_COPIED. Returns RA_E_NULL, RA_E_BUFFER (BufferError: a sharded
 * array, a dl_device refarray has not, copy RA_COPY_NEVER when a copy is needed), RA_E_NOMEM,
 * RA_E_BACKEND. */
RA_API int ra_to_dlpack(ra_ctx *ctx, const ra_array *x, const int32_t *dl_device, ra_copy copy,
                        struct DLManagedTensorVersioned **out);

struct DLManagedTensor;

/* The same for a consumer of DLPack before 1.0 (x.__dlpack__() without max_version): an
 * unversioned DLManagedTensor, always a copy, since it cannot say read-only (copy
 * RA_COPY_NEVER is RA_E_BUFFER). The deleter contract is the same. */
RA_API int ra_to_dlpack_unversioned(ra_ctx *ctx, const ra_array *x, const int32_t *dl_device,
                                    ra_copy copy, struct DLManagedTensor **out);

/* from_dlpack of any producer's tensor (another library's, or refarray's own): a new array
 * with its values on opts' device (default cpu), read by the tensor's strides (NULL: C
 * order) from data + byte_offset. The tensor is taken: its deleter runs exactly once before
 * the return, also on error; a NULL deleter, which DLPack allows a producer that has no
 * destructor to give, is not called (the tensor stays the producer's). Host tensors only
 * (kDLCPU, kDLCUDAHost, kDLROCMHost): a device tensor's memory belongs to its producer's
 * context. The data is always copied (refarray holds only memory it allocated), so
 * opts->copy RA_COPY_NEVER is RA_E_BUFFER. opts->dtype must be RA_DTYPE_DEFAULT.
 *
 * The tensor is checked for everything a consumer can check before any of its data is read,
 * each field read once (a producer changing it meanwhile changes nothing checked), and
 * refused with RA_E_BUFFER (BufferError) and a message naming the field and why: a major
 * version other than 1 (then nothing but version and deleter is read); a dtype.code DLPack
 * has not, lanes other than 1, a type refarray has not (bfloat16, float8, ...); a
 * device_type DLPack has not, a negative device_id, kDLCPU other than device 0, a device
 * other than host memory (another producer's OpenCL buffer too, even on one of refarray's
 * devices); ndim negative or above RA_MAX_NDIM, shape NULL with ndim > 0, a negative
 * extent; data NULL with elements; strides or a byte_offset by which an element's address
 * (data + byte_offset + offset * itemsize) overflows int64 offsets or the address space. An
 * element count times the itemsize beyond the address space is RA_E_TOO_LARGE. A tensor
 * without elements reads neither data nor strides.
 *
 * What no consumer can check, and the producer alone answers for: that data + byte_offset
 * with the strides' reach lies inside memory it allocated and keeps alive until the deleter
 * runs (strides past the allocation read other memory or fault); that a host device's data
 * is host memory (not a device address) of the stated dtype's layout; that shape and strides
 * each point to ndim int64s; that the deleter is a function that frees this tensor once; and
 * that nothing writes the tensor or its data during the call.
 *
 * Returns RA_E_NULL, RA_E_ARG, RA_E_BUFFER, RA_E_TOO_LARGE, the device errors,
 * RA_E_DTYPE_DEVICE, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_from_dlpack_tensor(ra_ctx *ctx, struct DLManagedTensorVersioned *tensor,
                                 const ra_opts *opts, ra_array **out);

/* fftfreq(n, d): the sample frequencies of a length-n discrete Fourier transform with
 * sample spacing d: [0, 1, ..., ceil(n/2)-1, -floor(n/2), ..., -1] / (d*n). rfftfreq: the
 * non-negative ones, [0, 1, ..., floor(n/2)] / (d*n), n/2+1 values. The default dtype is the
 * device's default floating dtype; an explicit dtype must be real floating (RA_E_DTYPE). The
 * device follows the inference order (no array argument). Returns RA_E_NULL, RA_E_ARG
 * (n < 1, d zero or not finite), RA_E_DTYPE, the device errors, RA_E_DTYPE_DEVICE,
 * RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_fftfreq(ra_ctx *ctx, int64_t n, double d, const ra_opts *opts, ra_array **out);
RA_API int ra_rfftfreq(ra_ctx *ctx, int64_t n, double d, const ra_opts *opts, ra_array **out);

/* to_device (DEV-TODEV-*): a copy of x on dev with the same dtype, shape and values.
 * stream NULL uses the destination device's default queue; otherwise it must be that
 * device's stream (for an OpenCL device a cl_command_queue of it; cpu has no streams, so a
 * non-NULL stream is RA_E_STREAM). The copy is complete when the call returns. When dev is
 * x's own device, *out is x itself (retained): no copy (spec/decisions.md). Returns
 * RA_E_NULL, RA_E_DEVICE_UNAVAILABLE, RA_E_DTYPE_DEVICE, RA_E_STREAM, RA_E_NOMEM,
 * RA_E_BACKEND. */
RA_API int ra_to_device(ra_ctx *ctx, const ra_array *x, ra_device dev, void *stream,
                        ra_array **out);

/* ---------------------------------------------------------------------------------------
 * Operations (DEV-DS-10, DEV-DS-11, DEV-DS-12)
 *
 * Outputs live on the inputs' device. Arrays on different devices are RA_E_DEVICE_MISMATCH
 * (ValueError kind), naming both devices, unless soft device mode is on (then, under the
 * default RA_SOFT_MOVE_ALL policy, every input is moved to the default device first and the
 * result is there, whether the inputs shared a device or not: inside a scope, which turns
 * soft mode on, operations run on the scope's device). Python scalars take the
 * array operand's device and dtype (the scalar must be representable in the array's kind).
 * Promotion between two arrays follows the standard's table within a kind (bool, signed,
 * unsigned, mixed integers, floating, complex); mixing kinds (bool with numbers, integers
 * with floating) and int64/uint64 are RA_E_DTYPE.
 * ------------------------------------------------------------------------------------- */

/* An operand: an array, or (array NULL) a Python scalar. */
typedef struct ra_operand {
    const ra_array *array;
    ra_scalar scalar;
} ra_operand;

static inline ra_operand ra_operand_array(const ra_array *x)
{
    ra_operand o = {x, {RA_SCALAR_INT, false, false, 0, 0.0, 0.0}};
    return o;
}
static inline ra_operand ra_operand_scalar(ra_scalar s)
{
    ra_operand o = {NULL, s};
    return o;
}

typedef enum ra_binop {
    RA_ADD = 1,
    RA_SUBTRACT,
    RA_MULTIPLY,
    RA_DIVIDE,  /* floating and complex only */
    RA_EQUAL,   /* result bool */
    RA_LESS,    /* result bool; real dtypes only */
    RA_MAXIMUM, /* real dtypes only; NaN propagates */
} ra_binop;

typedef enum ra_unop {
    RA_NEGATIVE = 1, /* numeric */
    RA_ABS,          /* numeric; complex gives the real magnitude dtype */
    RA_SQRT,         /* floating and complex only */
} ra_unop;

typedef enum ra_reduceop {
    RA_SUM = 1, /* bool and signed integers sum in int64, unsigned in uint64, floats keep */
    RA_MAX,     /* real numeric; RA_E_EMPTY_REDUCTION on an empty axis */
} ra_reduceop;

/* The operation's name ("add", "negative", "sum"), or NULL. */
RA_API const char *ra_binop_name(ra_binop op);
RA_API const char *ra_unop_name(ra_unop op);
RA_API const char *ra_reduceop_name(ra_reduceop op);

/* Elementwise x1 op x2 with broadcasting. At least one operand must be an array
 * (RA_E_SCALAR). Returns RA_E_NULL, RA_E_ARG (op), RA_E_SCALAR, RA_E_SCALAR_RANGE,
 * RA_E_DTYPE, RA_E_BROADCAST, RA_E_DEVICE_MISMATCH, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_binary(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array **out);

/* ra_binary of two arrays, ra_binary(ctx, op, ra_operand_array(x1), ra_operand_array(x2),
 * out) in every result and error, with the arrays passed as they are: a caller of ra_binary
 * builds two 40-byte operands on its stack for every call, which for a 1-element operation
 * costs about as much as the operation (reference/bench/README.md). Returns RA_E_NULL also
 * for x1 or x2 NULL (an operand that is no array needs ra_binary). */
RA_API int ra_binary_arrays(ra_ctx *ctx, ra_binop op, const ra_array *x1, const ra_array *x2,
                            ra_array **out);

/* Elementwise op x. Returns RA_E_NULL, RA_E_ARG, RA_E_DTYPE, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_unary(ra_ctx *ctx, ra_unop op, const ra_array *x, ra_array **out);

/* Reduction over every axis (axis NULL: a 0-d result on x's device, DEV-ATTR-2) or over one
 * axis (negative counts from the end). Returns RA_E_NULL, RA_E_ARG, RA_E_AXIS, RA_E_DTYPE,
 * RA_E_EMPTY_REDUCTION, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_reduce(ra_ctx *ctx, ra_reduceop op, const ra_array *x, const int *axis,
                     ra_array **out);

/* Matrix product with the standard's rules: 1-D operands are promoted and the added axis
 * removed; more than 2-D stacks of matrices broadcast. Numeric dtypes. Returns RA_E_NULL,
 * RA_E_SHAPE (0-d operand or inner sizes differ), RA_E_BROADCAST, RA_E_DTYPE,
 * RA_E_DEVICE_MISMATCH, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_matmul(ra_ctx *ctx, const ra_array *x1, const ra_array *x2, ra_array **out);

/* Joins n >= 1 arrays of the same shape along a new axis (-ndim-1 <= axis <= ndim). The
 * result dtype is the promotion of all. Returns RA_E_NULL, RA_E_ARG (n == 0), RA_E_SHAPE,
 * RA_E_AXIS, RA_E_DTYPE, RA_E_DEVICE_MISMATCH, RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_stack(ra_ctx *ctx, const ra_array *const *arrays, size_t n, int axis, ra_array **out);

/* ---------------------------------------------------------------------------------------
 * Default devices, scopes and soft device mode (DEV-DS-13, DEV-DS-14a/b, IVY-INFER-*, IVY-SOFT-*,
 * IVY-CTX-*)
 * ------------------------------------------------------------------------------------- */

/* The device a creation function uses now with no device option and no array argument:
 * the calling thread's innermost scoped default, else the global default. ctx NULL:
 * RA_NO_DEVICE. */
RA_API ra_device ra_default_device(ra_ctx *ctx);

/* The context's global default (shared by every thread). The built-in default is gpu:0
 * when available, else cpu. ctx NULL: RA_NO_DEVICE. */
RA_API ra_device ra_default_global(ra_ctx *ctx);

/* Sets the global default. Returns RA_E_NULL, RA_E_DEVICE_UNAVAILABLE (nothing changes). */
RA_API int ra_default_set(ra_ctx *ctx, ra_device dev);

/* Back to the built-in default. Returns RA_E_NULL. */
RA_API int ra_default_unset(ra_ctx *ctx);

/* Enters a scoped default for the calling thread only (the C analogue of Ivy's
 * DefaultDevice context manager): until the matching pop, the thread's default device is
 * dev, and soft device mode is on (pushed as with ra_soft_set(ctx, true)), so every function
 * without an explicit device runs on dev, its array inputs moved there (IVY-CTX-1). Scopes
 * nest. Other threads are not affected. The array API's context manager (DEV-DS-14a/b), which
 * moves nothing, is a scope followed by ra_soft_set(ctx, false): inside it the inference
 * order of ra_ctx_set_inference holds (input arrays before the scope from 2025.12). Returns
 * RA_E_NULL, RA_E_DEVICE_UNAVAILABLE, RA_E_NOMEM. */
RA_API int ra_default_push(ra_ctx *ctx, ra_device dev);

/* Leaves the calling thread's innermost scope: restores the previous scoped default (or
 * none) and restores soft mode to exactly its state before the matching push (the scope's
 * own entry and whatever was set inside the scope and not unset are dropped). Returns
 * RA_E_NULL, RA_E_SCOPE_EMPTY (no scope in this thread; nothing changes). */
RA_API int ra_default_pop(ra_ctx *ctx);

/* The calling thread's number of open scopes. ctx NULL: 0. */
RA_API size_t ra_default_depth(ra_ctx *ctx);

/* Soft device mode, per thread, as a stack like Ivy's: ra_soft_set pushes a value,
 * ra_soft_unset pops one (a no-op on an empty stack, and it never pops the entry of an open
 * scope: that one goes with ra_default_pop), ra_soft_get reads the top (false when empty, and
 * for ctx NULL). When on, functions given arrays and no explicit device copy their inputs to
 * the default device (ra_default_device) and compute there: all of them under the default
 * policy, only inputs on different devices under RA_SOFT_MOVE_MIXED (ra_ctx_set_soft_policy).
 * Returns RA_E_NULL, RA_E_NOMEM. */
RA_API int ra_soft_set(ra_ctx *ctx, bool enabled);
RA_API int ra_soft_unset(ra_ctx *ctx);
RA_API bool ra_soft_get(ra_ctx *ctx);

/* The inference order for functions with a device option. */
typedef enum ra_inference {
    /* 2025.12 (DEV-DS-14b), the default: explicit > array argument > scope > global. */
    RA_INFER_2025 = 0,
    /* 2021.12-2024.12 read literally (DEV-DS-14a): explicit > scope > array argument >
     * global. */
    RA_INFER_LEGACY = 1,
} ra_inference;

/* What soft device mode moves (spec/decisions.md, "Default devices, scopes and soft
 * mode"). */
typedef enum ra_soft_policy {
    /* Inputs that share one device stay there (IVY-SOFT-2's listed priority); inputs on
     * different devices all go to the default device. Creation functions with an array
     * argument follow it (the inference order). */
    RA_SOFT_MOVE_MIXED = 0,
    /* The default: Ivy's rule as its guide states and shows it (IVY-SOFT-1, IVY-SOFT-5,
     * IVY-CTX-1): every function given arrays and no explicit device runs on the default
     * device, its inputs moved there, so everything inside a scope (which turns soft mode on)
     * runs on the scoped device. With soft mode off neither policy moves anything, and the
     * inference order (DEV-DS-14b, or 14a) holds. */
    RA_SOFT_MOVE_ALL = 1,
} ra_soft_policy;

/* Sets the soft-mode policy for the whole context (default RA_SOFT_MOVE_ALL). Returns
 * RA_E_NULL, RA_E_ARG. */
RA_API int ra_ctx_set_soft_policy(ra_ctx *ctx, ra_soft_policy policy);
/* The context's soft-mode policy; ctx NULL: the built-in default. */
RA_API ra_soft_policy ra_ctx_soft_policy(const ra_ctx *ctx);

/* Sets the inference order for the whole context. Returns RA_E_NULL, RA_E_ARG. */
RA_API int ra_ctx_set_inference(ra_ctx *ctx, ra_inference rule);
/* The context's inference order; ctx NULL: the built-in default, RA_INFER_2025. */
RA_API ra_inference ra_ctx_inference(const ra_ctx *ctx);

/* ---------------------------------------------------------------------------------------
 * Inspection (the standard's info namespace, DEV-INFO-*)
 * ------------------------------------------------------------------------------------- */

/* The available devices in refarray's order: cpu first, then gpu:0..gpu:N-1. Writes up to
 * cap devices to out (out may be NULL when cap is 0) and the total number to *count.
 * Returns RA_E_NULL (ctx or count NULL, or out NULL with cap > 0). */
RA_API int ra_info_devices(const ra_ctx *ctx, ra_device *out, size_t cap, size_t *count);

/* The default dtypes on a device (the standard's default_dtypes). */
typedef struct ra_default_dtypes {
    ra_dtype real_floating;
    ra_dtype complex_floating;
    ra_dtype integral;
    ra_dtype indexing;
} ra_default_dtypes;

/* dev NULL means the current default device (DEV-INFO-8). Returns RA_E_NULL,
 * RA_E_DEVICE_UNAVAILABLE. */
RA_API int ra_info_default_dtypes(ra_ctx *ctx, const ra_device *dev, ra_default_dtypes *out);

/* The dtypes supported on dev (NULL: the current default device) of the kinds in
 * kind_mask (ra_dtype_kind flags; 0 means all), as a bit set: bit d is set when dtype d is
 * supported. A device without float64 leaves out float64 and complex128. Only the array
 * API's dtypes are listed (the standard's dtypes()); float16 is not one of them. Returns
 * RA_E_NULL, RA_E_DEVICE_UNAVAILABLE, RA_E_ARG (unknown kind bits). */
RA_API int ra_info_dtypes(ra_ctx *ctx, const ra_device *dev, unsigned kind_mask, uint32_t *out);

/* ---------------------------------------------------------------------------------------
 * Device utilities (Ivy's device utilities)
 * ------------------------------------------------------------------------------------- */

/* Number of available gpu devices in ctx (0 when ctx is NULL). */
RA_API int ra_util_num_gpus(const ra_ctx *ctx);
/* Number of online CPU cores of this machine (at least 1). */
RA_API int ra_util_num_cpu_cores(void);
/* Total memory of an available device in bytes (host: physical memory; OpenCL:
 * CL_DEVICE_GLOBAL_MEM_SIZE). Returns RA_E_NULL, RA_E_DEVICE_UNAVAILABLE. */
RA_API int ra_util_total_memory(ra_ctx *ctx, ra_device dev, uint64_t *out);
/* Bytes of array data refarray currently holds on the device in this context. Each thread
 * counts what it makes and releases; this is their sum, so while other threads make and
 * release arrays it is the figure of a moment. Returns RA_E_NULL, RA_E_DEVICE_UNAVAILABLE. */
RA_API int ra_util_used_memory(ra_ctx *ctx, ra_device dev, uint64_t *out);
/* Utilisation in percent [0, 100] where the backend can measure it; otherwise
 * RA_E_NOT_MEASURABLE (NotImplementedError kind) and *out untouched: refarray never
 * invents a number. cpu measures the share of non-idle CPU time over 100 ms (the call takes
 * that long); OpenCL has no utilisation query, so a gpu device answers with the host's
 * measure when its OpenCL device type is CL_DEVICE_TYPE_CPU (it runs on the host's
 * processors, as PoCL's CPU driver does) and RA_E_NOT_MEASURABLE otherwise.
 * Returns RA_E_NULL, RA_E_DEVICE_UNAVAILABLE, RA_E_NOT_MEASURABLE. */
RA_API int ra_util_utilisation(ra_ctx *ctx, ra_device dev, double *out);

/* ---------------------------------------------------------------------------------------
 * Promotion per device (DEV-DT-2..5), tril and triu (DEV-CREATE-8), arrays alive on a
 * device (IVY-UTIL-6)
 *
 * Each device has a promotion graph: the standard's promotion table restricted to the
 * dtypes the device supports. A device without float64 (an OpenCL device lacking
 * cl_khr_fp64) has a graph without float64 and complex128; every other device's graph is
 * the whole table. Promotion is defined within a kind only (bool; integers, with no int64
 * and uint64 pair; real and complex floating), as for the operations above.
 * ------------------------------------------------------------------------------------- */

/* can_cast(from_, to) with a dtype as from_ (DEV-DT-2): *out is true when from_ promotes to
 * `to` under the complete promotion table (whatever the devices of ctx support), that is
 * when from_ == to or the promotion of from_ and `to` is `to`. Pairs of different kinds
 * (int8 to float32, bool to int8) are false. ctx may be NULL (the detail then goes to
 * ra_ctx_message(NULL)). Returns RA_E_NULL (out NULL), RA_E_ARG (from_ or to not a dtype);
 * *out is untouched on error. */
RA_API int ra_can_cast_dtype(ra_ctx *ctx, ra_dtype from_, ra_dtype to, bool *out);

/* can_cast(from_, to) with an array as from_ (DEV-DT-3): answered from the promotion graph
 * of x's device: as ra_can_cast_dtype on x's dtype, and false when `to` is not supported on
 * x's device (so a float32 array on a device without float64 cannot be cast to float64,
 * although ra_can_cast_dtype(float32, float64) is true). Returns RA_E_NULL (ctx, x or out
 * NULL), RA_E_ARG (to not a dtype). */
RA_API int ra_can_cast_array(ra_ctx *ctx, const ra_array *x, ra_dtype to, bool *out);

/* result_type of narrays arrays and ndtypes dtypes, at least one in all (the order does
 * not matter: promotion within a kind is associative and commutative). With no array, the
 * complete promotion table decides. With arrays (DEV-DT-4), they must share one device and
 * that device's graph decides: every dtype argument must be supported there. Arrays on
 * different devices are refarray's choice where the standard leaves it open (DEV-DT-5):
 * RA_E_DEVICE_MISMATCH, as for operations. arrays may be NULL when narrays is 0, dtypes when
 * ndtypes is 0. Returns RA_E_NULL (ctx or out NULL, a NULL list with a count, a NULL array),
 * RA_E_ARG (nothing given, an invalid dtype), RA_E_DEVICE_MISMATCH, RA_E_DTYPE_DEVICE (a
 * dtype argument outside the arrays' device's graph), RA_E_DTYPE (no promotion defined, e.g.
 * int8 with float32, int64 with uint64, bool with int8); *out is untouched on error. */
RA_API int ra_result_type(ra_ctx *ctx, const ra_array *const *arrays, size_t narrays,
                          const ra_dtype *dtypes, size_t ndtypes, ra_dtype *out);

/* tril(x, k) and triu(x, k): a copy of x (ndim >= 2, a stack of matrices over the last two
 * axes) with the elements above (tril) or below (triu) the k-th diagonal set to zero.
 * Element (i, j) of each matrix is kept by tril when j <= i + k and by triu when
 * j >= i + k; k = 0 is the main diagonal, k > 0 above it, k < 0 below. Any k is valid (far
 * out, the result is all kept or all zero). Same dtype and shape as x; the result is on x's
 * device (DEV-CREATE-8): the kept parts are copied into it with the device's own copies,
 * or, where that would take many copies on a non-host device, x is staged through host
 * memory. Returns RA_E_NULL
 * (ctx, x or out NULL), RA_E_SHAPE (ndim < 2), RA_E_NOMEM, RA_E_BACKEND. */
RA_API int ra_tril(ra_ctx *ctx, const ra_array *x, int64_t k, ra_array **out);
RA_API int ra_triu(ra_ctx *ctx, const ra_array *x, int64_t k, ra_array **out);

/* Every array currently alive on dev in ctx (Ivy's get_all_ivy_arrays_on_dev, IVY-UTIL-6):
 * arrays created and not yet released by their last reference, whoever holds them, in the
 * order they were created. Writes up to cap of them to out as new references (the caller
 * releases each with ra_array_release) and the number alive to *count; out may be NULL when
 * cap is 0, which only counts. With other threads at work in ctx: an array whose last
 * reference is being released during the call is not listed, and an array another thread
 * is creating may be listed before its creating call has returned; its device, dtype and
 * shape are set, but its data must not be read until that call has returned (it is still
 * being written). Returns RA_E_NULL (ctx or count NULL, out NULL with
 * cap > 0), RA_E_DEVICE_UNAVAILABLE; on error nothing is written. */
RA_API int ra_util_arrays_on_device(ra_ctx *ctx, ra_device dev, ra_array **out, size_t cap,
                                    size_t *count);

/* ---------------------------------------------------------------------------------------
 * The current device of a type, and an array's ordinal (OF-DEV-1..8)
 *
 * OneFlow's devices: a device without an ordinal stands for the current device of its type,
 * also after the current device is changed (OF-DEV-2). refarray spells such a device with
 * the index RA_DEVICE_INDEX_CURRENT. Every function that uses a device (creation, to_device,
 * availability, defaults) resolves it to the calling thread's current device of that type
 * at the moment of the call; a value kept and used again later follows the current device.
 * ra_device_parse keeps the draft's reading of a bare type (index 0); ra_device_parse_current
 * is the OneFlow reading (spec/decisions.md, "OneFlow devices and global arrays"). The two
 * agree until ra_device_set_current changes a current device; a device string in ra_opts
 * takes the OneFlow reading, so zeros(device="gpu") after set_current(gpu:1) is on gpu:1.
 * OneFlow names a device by the device it stands for now: compare and print resolved
 * values (ra_device_resolve) to get its equality (device('cpu') == device('cpu', 0)) and
 * its printed index.
 * ------------------------------------------------------------------------------------- */

/* The index of a device value that means "the current device of this type". */
#define RA_DEVICE_INDEX_CURRENT (-1)

/* OneFlow's device(text): like ra_device_parse, but a string without an index ("gpu",
 * "cpu") gives the current device of that type: index RA_DEVICE_INDEX_CURRENT (OF-DEV-2,
 * OF-DEV-3), and tpu, no OneFlow device type (OF-DEV-1), is RA_E_DEVICE_TYPE. Otherwise the
 * errors of ra_device_parse. */
RA_API int ra_device_parse_current(ra_ctx *ctx, const char *text, ra_device *out);

/* The calling thread's current device of a type in ctx, always with a real index: cpu:0 for
 * cpu; for gpu and tpu the index last set with ra_device_set_current in this thread, 0
 * before any. ctx NULL gives index 0. A type outside ra_device_type gives index 0 of it. */
RA_API ra_device ra_device_current(ra_ctx *ctx, ra_device_type type);

/* Makes dev the calling thread's current device of dev's type (OneFlow's
 * cuda.set_device). Other threads are not affected. dev must be available; a value with
 * RA_DEVICE_INDEX_CURRENT changes nothing. Returns RA_E_NULL (ctx NULL),
 * RA_E_DEVICE_UNAVAILABLE, RA_E_ARG (not a device value), RA_E_NOMEM. */
RA_API int ra_device_set_current(ra_ctx *ctx, ra_device dev);

/* *out is dev with RA_DEVICE_INDEX_CURRENT replaced by the calling thread's current index
 * of its type (dev itself otherwise): what OneFlow's device.index reports. Returns
 * RA_E_NULL (out NULL), RA_E_ARG (not a device value). */
RA_API int ra_device_resolve(ra_ctx *ctx, ra_device dev, ra_device *out);

/* get_device() (OF-DEV-8): the ordinal of an accelerator array (gpu or tpu) into *out.
 * A cpu array has none: RA_E_DEVICE_KIND (RuntimeError kind), *out untouched. Returns
 * RA_E_NULL (x or out NULL), RA_E_DEVICE_KIND. */
RA_API int ra_array_get_device(ra_ctx *ctx, const ra_array *x, int32_t *out);

/* ---------------------------------------------------------------------------------------
 * Host memory for layers built on refarray
 *
 * The global arrays (refarray_global.h) hand array memory straight to MPI. These two
 * functions let a layer read a cpu array's bytes and write a new array's bytes in place,
 * without the copies ra_array_read and ra_asarray_buffer make.
 * ------------------------------------------------------------------------------------- */

/* The bytes of a cpu array (C order, the array's dtype), borrowed: valid while x is alive,
 * never to be written (arrays are immutable). NULL for an array on another device, for a
 * sharded array, for an empty array and for x NULL. */
RA_API const void *ra_array_host_data(const ra_array *x);

/* Writes a new array's bytes: fill(dst, nbytes, user_data) must write all nbytes bytes of dst
 * (C order, dtype) and return RA_OK, or return a negative status, which is then returned
 * unchanged with the array freed (fill sets its own detail message where it keeps one). For
 * an empty array fill is called with dst NULL and nbytes 0. */
typedef int (*ra_fill_fn)(void *dst, size_t nbytes, void *user_data);

/* A new array of dtype and shape on dev whose bytes fill writes: for cpu, straight into the
 * array's memory; for another device, into a host staging buffer then copied to the device.
 * Returns RA_E_NULL (ctx, fill or out NULL, shape NULL with ndim > 0), RA_E_ARG (dtype),
 * RA_E_SHAPE, RA_E_TOO_LARGE, the device errors, RA_E_DTYPE_DEVICE, RA_E_NOMEM,
 * RA_E_BACKEND, or fill's status. */
RA_API int ra_array_create_filled(ra_ctx *ctx, ra_device dev, ra_dtype dtype, const int64_t *shape,
                                  size_t ndim, ra_fill_fn fill, void *user_data, ra_array **out);

/* ---------------------------------------------------------------------------------------
 * Promotion rule sets and out= (API-PROM-*, OF-PROM-*, OF-OUT-*; spec/promotion/)
 *
 * The result dtype of ra_binary and ra_binary_into, and the answers of ra_result_type and
 * ra_can_cast_*, follow the context's promotion rule set. The tables of both sets are
 * generated from spec/promotion/ (reference/src/promote_tables.h).
 * ------------------------------------------------------------------------------------- */

typedef enum ra_promotion {
    /* The default: the array API's table (API-PROM-1): joins within bool, the integers and
     * the floating dtypes; nothing across them or between uint64 and a signed integer
     * (RA_E_DTYPE, TypeError). A Python scalar takes the array's dtype when its kind goes
     * with it (API-PROM-3); a 0-d array is an array (API-PROM-4). float16 joins the floating
     * group below float32. */
    RA_PROMOTION_ARRAY_API = 0,
    /* OneFlow's category rules (OF-PROM-1..7), the stated reading of OF-PROM-9: operands
     * are Python scalars, 0-d arrays and dimensioned arrays; the result is the join of the
     * dimensioned operands, replaced by the join of the 0-d ones when their category
     * (bool < integral < floating < complex) is higher, and by the scalars' when theirs is
     * higher than every array's. A Python bool counts as bool, an int as int64, a float as
     * float32 (the default dtype), a complex as complex64. Values are never inspected, but a
     * Python int must still fit the result's integer dtype (RA_E_SCALAR_RANGE). */
    RA_PROMOTION_CATEGORY = 1,
    /* The category rules as the guide's example reads OF-PROM-9: 0-d arrays are joined with
     * the dimensioned ones (int32 array + 0-d int64 is int64). */
    RA_PROMOTION_CATEGORY_EXAMPLES = 2,
} ra_promotion;
/* Arithmetic that the array API leaves undefined, under the two category rule sets (OneFlow's
 * reading; OneFlow 0.9.0 and PyTorch compute them so): divide of operands whose promoted
 * dtype is integral or bool is true division in the default floating dtype, float32
 * (int32 [7, -7] / [2, 2] is float32 [3.5, -3.5]); add, subtract and multiply of bool
 * operands give bool: logical or, exclusive or and and. Under RA_PROMOTION_ARRAY_API they are
 * RA_E_DTYPE (TypeError). */

/* Selects the context's promotion rule set (default RA_PROMOTION_ARRAY_API). Returns
 * RA_E_NULL, RA_E_ARG (unknown value). */
RA_API int ra_ctx_set_promotion(ra_ctx *ctx, ra_promotion rules);
/* The context's promotion rule set; ctx NULL: the built-in default. */
RA_API ra_promotion ra_ctx_promotion(const ra_ctx *ctx);

typedef enum ra_out_casting {
    /* The default: the three refusals OF-OUT-1 states (an integral output refuses a floating
     * or complex result, a bool output any non-bool result, a non-complex output a complex
     * result); every other result is cast into the output (narrowing wraps or rounds). */
    RA_OUT_CAST_STATED = 0,
    /* The guide's examples (OF-OUT-4): besides those, a result that does not promote to the
     * output's dtype by the category table is refused (float32 *= float64, int32 *= int64). */
    RA_OUT_CAST_NO_NARROWING = 1,
    /* OneFlow 0.9.0's own combination, operator by operator: add (`+=`) casts as
     * RA_OUT_CAST_STATED does (OneFlow's `+=` checks nothing, so it narrows; refarray keeps
     * OF-OUT-1's three refusals), subtract, multiply and divide (`-=`, `*=`, `/=`) as
     * RA_OUT_CAST_NO_NARROWING (OneFlow refuses float32 *= float64, int32 -= int64). */
    RA_OUT_CAST_ONEFLOW = 2,
} ra_out_casting;

/* Selects the context's out= casting rule (default RA_OUT_CAST_STATED). Returns RA_E_NULL,
 * RA_E_ARG. */
RA_API int ra_ctx_set_out_casting(ra_ctx *ctx, ra_out_casting rule);
/* The context's out= casting rule; ctx NULL: the built-in default. */
RA_API ra_out_casting ra_ctx_out_casting(const ra_ctx *ctx);

/* Whether a result of dtype `result` may be written into an out= array of dtype `out` under
 * the context's rule (false for invalid values); under RA_OUT_CAST_ONEFLOW, the rule of
 * subtract, multiply and divide (add takes RA_OUT_CAST_STATED's). */
RA_API bool ra_can_cast_out(const ra_ctx *ctx, ra_dtype result, ra_dtype out);

/* x1 op x2 written into out (OneFlow's out=, and the in-place forms: `x op= y` is out = x1's
 * array). The result dtype is the context's promotion of x1 and x2 (out's dtype does not take
 * part); it is then cast into out's dtype unless ra_can_cast_out refuses, which is
 * RA_E_OUT_CAST (RuntimeError kind, OF-OUT-2) naming both dtypes. out must be on the device
 * of the array operands (RA_E_DEVICE_MISMATCH naming both devices, also in soft device mode:
 * an output is never moved) and have their broadcast shape exactly (RA_E_SHAPE). out may be
 * one of the operands: the result is computed in full before out is written. This is one of
 * the calls that change an array after its creation: no other thread may use out during it.
 * On error out is unchanged. Returns the statuses of ra_binary, RA_E_OUT_CAST, RA_E_SHAPE. */
RA_API int ra_binary_into(ra_ctx *ctx, ra_binop op, ra_operand x1, ra_operand x2, ra_array *out);

/* OneFlow's dtype.is_floating_point (OF-DT-2): true for float16, float32 and float64; false
 * for complex and every other value. */
RA_API bool ra_dtype_is_floating_point(ra_dtype dtype);

#ifdef __cplusplus
}
#endif

/* The rest of the manual, one header per part; including refarray.h gives the whole API. */
#include "refarray_shard.h"          /* sharded arrays over a tuple of devices */
#include "refarray_fn_elementwise.h" /* elementwise, creation, data type, statistics, utility */
#include "refarray_fn_shape.h"       /* manipulation, indexing, searching, sets, sorting */
#include "refarray_fn_linalg.h"      /* linalg, linear algebra, fft */
#include "refarray_fn_generated.h"   /* declared from spec/signatures.json (gen_refarray.py) */

#endif /* REFARRAY_H */
