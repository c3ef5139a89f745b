/*
 * backend.h: refarray's private device-backend interface.
 *
 * A backend serves one device through a table of function pointers (ra__backend_ops). The
 * core (context, arrays, operations) checks every argument, computes shapes, dtypes and
 * broadcasting, and calls the table with already-validated, simple requests; a backend never
 * sees a bad shape or a mixed dtype. The table has its version and size first and grows only
 * at the end. Every slot says whether it is required or may be NULL; for a NULL compute slot
 * the core reads the inputs to host memory, computes with the host backend and writes the
 * result back, so a new backend can start with the required slots only.
 *
 * Conventions for every slot:
 *  - `impl` is the device's backend state, as given to ra__ctx_add_device.
 *  - Buffers are opaque `void *` handles made by alloc (host: a pointer to the bytes;
 *    OpenCL: a cl_mem). Offsets and sizes are in bytes unless they say elements.
 *  - `stream` is NULL (the device's default queue) or a value check_stream accepted.
 *  - A slot returns RA_OK or a negative ra_status; on error it sets the detail with
 *    ra__ctx_error(ctx, status, ...) using the context it was opened with.
 *  - Every operation is complete (its results visible to read) when the slot returns, or
 *    ordered before any later operation on the same device's default queue; read blocks
 *    until the bytes are in host memory.
 */
#ifndef RA_BACKEND_H
#define RA_BACKEND_H

#include "refarray.h"

#include <stdarg.h>
#include <stddef.h>

#define RA_BACKEND_VERSION 1u

/* A strided view of a buffer for elementwise operations: ndim extents and element strides
 * (a stride 0 repeats along a broadcast axis). offset is in elements. */
typedef struct ra__view {
    void *buf;
    ra_dtype dtype;
    size_t ndim;
    const int64_t *shape;
    const int64_t *strides; /* in elements; may be 0 */
    int64_t offset;         /* in elements */
} ra__view;

/* What the core needs to know about a device, filled by query. */
typedef struct ra__device_info {
    char name[128];
    uint64_t total_memory; /* bytes */
    uint64_t max_alloc;    /* largest single allocation, bytes (0: unknown) */
    bool has_float64;
    int compute_units;
    bool has_float16; /* float16 storage (cpu; OpenCL devices reporting cl_khr_fp16) */
} ra__device_info;

typedef struct ra__backend_ops {
    uint32_t version; /* RA_BACKEND_VERSION */
    uint32_t size;    /* sizeof(ra__backend_ops) as compiled by the backend */
    const char *name; /* "host", "opencl"; static storage */

    /* Required. Fills *info. Called once when the device is added. */
    int (*query)(void *impl, ra__device_info *info);

    /* Required. Releases impl (and its device resources) when the context is destroyed;
     * every buffer has been freed before. */
    void (*close)(void *impl);

    /* Required. Allocates nbytes (>= 1) of device memory, zero-initialised, into *buf.
     * RA_E_NOMEM when the device is out of memory. */
    int (*alloc)(void *impl, size_t nbytes, void **buf);

    /* Required. Frees a buffer from alloc (NULL is a no-op). */
    void (*free)(void *impl, void *buf);

    /* Required. Copies nbytes from host memory src to buf at byte offset dst_offset. */
    int (*write)(void *impl, void *buf, size_t dst_offset, const void *src, size_t nbytes,
                 void *stream);

    /* Required. Copies nbytes from buf at byte offset src_offset to host memory dst;
     * blocks until the bytes are there. */
    int (*read)(void *impl, const void *buf, size_t src_offset, void *dst, size_t nbytes,
                void *stream);

    /* May be NULL (then every non-NULL stream is rejected with RA_E_STREAM). RA_OK when
     * stream is one of this device's streams, else RA_E_STREAM. */
    int (*check_stream)(void *impl, void *stream);

    /* May be NULL (then the default stream is NULL). The device's default stream/queue,
     * borrowed. */
    void *(*default_stream)(void *impl);

    /* May be NULL (core: read to host, write back). Copies rows blocks of row_bytes from
     * src (byte offset src_offset, rows src_pitch bytes apart) to dst (dst_offset,
     * dst_pitch) on this device. rows == 1 is a plain copy. src and dst do not overlap. */
    int (*copy)(void *impl, void *dst, size_t dst_offset, size_t dst_pitch, const void *src,
                size_t src_offset, size_t src_pitch, size_t row_bytes, size_t rows, void *stream);

    /* May be NULL (core: build on host, write). Fills count elements of elem_size bytes at
     * byte offset dst_offset with the pattern at value (one element, already in the
     * buffer's dtype). */
    int (*fill)(void *impl, void *dst, size_t dst_offset, const void *value, size_t elem_size,
                size_t count);

    /* May be NULL (core: on host). Converts count contiguous elements from src (dtype
     * src_dtype) to dst (dtype dst_dtype) as the host backend does: to bool, nonzero gives 1
     * and zero 0; real floating to an integer dtype, NaN gives 0, values beyond the dtype's
     * range saturate to its minimum or maximum, others truncate toward zero (OpenCL C's
     * convert_<type>_sat_rtz); every other pair is C's conversion. Complex to real never
     * comes here. */
    int (*cast)(void *impl, void *dst, ra_dtype dst_dtype, const void *src, ra_dtype src_dtype,
                size_t count);

    /* May be NULL (core: on host). out[i] = a[i] op b[i] over out's shape (contiguous, offset
     * 0). a and b are views broadcast to out's shape (same ndim as out, stride 0 on
     * broadcast axes) with the same dtype; out's dtype is theirs, or bool for RA_EQUAL and
     * RA_LESS. The core has checked the op is defined for the dtype. */
    int (*binary)(void *impl, ra_binop op, const ra__view *a, const ra__view *b,
                  const ra__view *out);

    /* May be NULL (core: on host). out[i] = op x[i], both contiguous with count elements.
     * out's dtype is x's, except RA_ABS of complex (the real dtype of the same precision). */
    int (*unary)(void *impl, ra_unop op, const void *x, ra_dtype dtype, void *out,
                 ra_dtype out_dtype, size_t count);

    /* May be NULL (core: on host). Reduces contiguous x, viewed as (outer, len, inner), over
     * its middle axis into out (outer, inner), same dtype as x (the core casts first for
     * sum's accumulation dtype). A reduction over all axes is outer = inner = 1. len >= 1 for
     * RA_MAX; len == 0 for RA_SUM gives zeros. */
    int (*reduce)(void *impl, ra_reduceop op, const void *x, ra_dtype dtype, size_t outer,
                  size_t len, size_t inner, void *out);

    /* May be NULL (core: on host). One matrix product out(n, m) = a(n, k) @ b(k, m), all
     * contiguous row-major at the given element offsets, one dtype (numeric). k may be 0
     * (zeros). The core loops over batches. */
    int (*matmul)(void *impl, ra_dtype dtype, const void *a, size_t a_offset, const void *b,
                  size_t b_offset, void *out, size_t out_offset, size_t n, size_t k, size_t m);

    /* May be NULL (then ra_util_utilisation answers RA_E_NOT_MEASURABLE). The device's
     * current utilisation in percent [0, 100]; RA_E_NOT_MEASURABLE when it cannot be
     * measured now. */
    int (*utilisation)(void *impl, double *percent);

    /* May be NULL (then the core calls alloc). Like alloc, but the contents are unspecified:
     * the core asks for it only for a buffer that the operation making it writes whole before
     * anything reads it (the result of a cast, a copy between devices, an elementwise
     * operation), so a backend can skip zeroing memory that is about to be overwritten.
     * Read only when size covers it (RA__BACKEND_HAS). */
    int (*alloc_uninit)(void *impl, size_t nbytes, void **buf);

    /* What the core may assume about the backend (ra__backend_flags), or 0. Read only when
     * size covers it (RA__BACKEND_FLAGS). */
    uint32_t flags;

    /* May be NULL. The native handle of a buffer, which DLPack hands to other libraries as a
     * tensor's data (for OpenCL the cl_mem, dlpack.c). Read only when size covers it
     * (RA__BACKEND_HAS). */
    void *(*native)(void *impl, void *buf);
} ra__backend_ops;

enum ra__backend_flag {
    /* Buffers are pointers to the data in host memory: the core may read and write them
     * directly (memcpy, the host kernels) instead of through read, write and the compute
     * slots, keep small arrays' data inline in the array's header, and stage another
     * device's data straight into them. */
    RA__BACKEND_HOST_MEMORY = 1u << 0,
};

/* Whether a backend's table, as compiled by the backend, has the slot and it is not NULL. */
#define RA__BACKEND_HAS(ops, slot)                                                                 \
    ((ops)->size >= offsetof(ra__backend_ops, slot) + sizeof((ops)->slot) && (ops)->slot != NULL)

/* The backend's flags, 0 when its table predates the field. */
#define RA__BACKEND_FLAGS(ops)                                                                     \
    ((ops)->size >= offsetof(ra__backend_ops, flags) + sizeof((ops)->flags) ? (ops)->flags : 0u)

/* ---- Services of the core for backends ---- */

/* Allocation through the context's hook (all host-side allocations of a backend). */
/* The context's ra_ctx_options.max_host_bytes: the cpu device's limit, 0 for none. */
size_t ra__ctx_max_host_bytes(const ra_ctx *ctx);
/* The context's ra_ctx_options.max_device_bytes: each OpenCL device's limit, 0 for none. */
size_t ra__ctx_max_device_bytes(const ra_ctx *ctx);
void *ra__alloc(ra_ctx *ctx, size_t size);
void *ra__calloc(ra_ctx *ctx, size_t count, size_t size);
void ra__free(ra_ctx *ctx, void *ptr);

/* Records status with a printf-style detail for the calling thread and returns status.
 * Safe to call with ctx NULL (the context-free slot). */
int ra__ctx_error(ra_ctx *ctx, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Adds a device of the given type with the next index of that type (gpu:0, gpu:1, ...).
 * The context takes ownership of impl: ops->close(impl) runs at ra_ctx_destroy, or at once
 * if this call fails. ops must outlive the context (static storage). */
int ra__ctx_add_device(ra_ctx *ctx, ra_device_type type, const ra__backend_ops *ops, void *impl);

/* ---- The host system (sysinfo.c), for backends whose device is the host ---- */

/* The host's CPU utilisation in percent [0, 100]: the share of non-idle CPU time over a
 * 100 ms window from the kernel's counters (/proc/stat); RA_E_NOT_MEASURABLE where they
 * cannot be read. For backends whose device is the host CPU (an OpenCL device of type
 * CL_DEVICE_TYPE_CPU, such as PoCL's), this is that device's utilisation too. */
int ra__host_utilisation(ra_ctx *ctx, double *percent);
/* Physical memory in bytes (0 when unknown). */
uint64_t ra__host_physical_memory(void);
/* Online CPU cores (at least 1). */
int ra__host_cpu_cores(void);

/* ---- The backends' constructors, called by the context ---- */

/* The host backend (backend_host.c): adds the cpu device. */
int ra__host_open(ra_ctx *ctx);

#ifdef RA_HAVE_OPENCL
/* Defined by src/opencl/: discovers the OpenCL devices the ICD loader lists (every
 * platform, in order, every device type) and adds each with
 * ra__ctx_add_device(ctx, RA_DEVICE_GPU, &ops, impl). No platform or no device is not an
 * error (RA_OK, nothing added). Any other failure returns a status with its detail; the
 * context then fails to open. OpenCL errors are mapped to statuses in one place there. */
int ra__opencl_backend_open(ra_ctx *ctx);
#endif

#endif /* RA_BACKEND_H */
