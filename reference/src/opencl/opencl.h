/*
 * opencl.h: private declarations of refarray's OpenCL backend (src/opencl/).
 *
 * One ra__cl_device per OpenCL device refarray lists as gpu:N. Each has its own cl_context
 * and in-order default queue, a cache of built programs (one per kernel family and dtype,
 * built on first use) and a pool of freed buffers for reuse. The core may call one device
 * from several threads at once: the cache, the pool and every clSetKernelArg..enqueue
 * sequence are guarded by the device's mutex.
 *
 * Files: opencl_status.c (OpenCL error -> refarray status, the one place), opencl_discover.c
 * (platforms and devices, their order, ra__opencl_backend_open), opencl_kernels.c (building
 * and caching programs, launching kernels), backend_opencl.c (the ops table), kernels.cl
 * (the OpenCL C source, embedded at build time as ra__opencl_source).
 */
#ifndef RA_OPENCL_H
#define RA_OPENCL_H

#include "backend.h"

#include <CL/cl.h>
#include <pthread.h>

/* Kernel families: one program each per (device, dtype[, output dtype]). The values are
 * RA_FAMILY in kernels.cl. RA_CL_CAST names the casts from a dtype, whose kernels live in that
 * dtype's RA_CL_BINARY program (ra__cl_kernel maps it). */
typedef enum ra__cl_family {
    RA_CL_CAST = 2,
    RA_CL_BINARY = 3,
    RA_CL_UNARY = 4,
    RA_CL_REDUCE = 5,
    RA_CL_MATMUL = 6,
} ra__cl_family;
#define RA_CL_FAMILY_MAX 7

/* Must match RA_CL_MAXDIM in kernels.cl and fit RA_MAX_NDIM. */
#define RA_CL_MAXDIM 32

/* The broadcasting index passed by value to the *_bc kernels (layout as in kernels.cl). */
typedef struct ra__cl_index {
    cl_long ndim;
    cl_long shape[RA_CL_MAXDIM];
    cl_long sa[RA_CL_MAXDIM];
    cl_long sb[RA_CL_MAXDIM];
} ra__cl_index;

/* A device buffer as the core sees it (the opaque buffer handle of backend.h). */
typedef struct ra__cl_buffer {
    cl_mem mem;
    size_t size;     /* bytes, as created */
    bool needs_zero; /* alloc promised zeros that are not written yet (see backend_opencl.c) */
    struct ra__cl_buffer *next_free; /* pool link while pooled */
} ra__cl_buffer;

/* A built program and its kernels, by name. */
typedef struct ra__cl_program {
    cl_program program;
    cl_uint nkernels;
    cl_kernel *kernels;
    char **names;
} ra__cl_program;

typedef struct ra__cl_device {
    ra_ctx *ctx;
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    char name[128];
    uint64_t global_mem;
    uint64_t max_alloc;
    cl_uint compute_units;
    cl_device_type type; /* CL_DEVICE_TYPE_*: a CPU device's utilisation is the host's */
    bool has_fp64;
    bool has_fp16; /* cl_khr_fp16: float16 arrays may live here (their arithmetic is the core's) */
    bool fp32_correct_div_sqrt; /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT in the fp32 config */

    pthread_mutex_t lock;
    /* programs[family][input dtype][output dtype], built on first use (NULL until then). */
    ra__cl_program *programs[RA_CL_FAMILY_MAX][RA_DTYPE_COUNT + 1][RA_DTYPE_COUNT + 1];
    /* Freed buffers kept for reuse, newest first, and their total size. */
    ra__cl_buffer *pool;
    size_t pool_bytes;
    size_t pool_limit;
    uint64_t live_bytes; /* bytes in buffers handed out plus pooled */
} ra__cl_device;

/* The embedded kernels.cl (generated at build time). */
extern const char ra__opencl_source[];

/* ---- opencl_status.c ---- */

/* The refarray status for an OpenCL error code (the one mapping; see the table there). */
int ra__cl_status(cl_int err);
/* The OpenCL name of an error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR". */
const char *ra__cl_error_name(cl_int err);
/* Records the mapped status for err with a detail naming what failed, and returns it. */
int ra__cl_fail(ra_ctx *ctx, cl_int err, const char *what, const ra__cl_device *dev);

/* ---- opencl_discover.c ---- */

/* A device found by discovery, with what decides its place among the gpu:N. */
typedef struct ra__cl_candidate {
    cl_platform_id platform;
    cl_device_id device;
    cl_uint platform_order; /* index in the loader's platform list */
    cl_uint device_order;   /* index in the platform's device list */
    int type_rank;          /* 0 GPU, 1 accelerator, 2 anything else */
    char platform_name[128];
    char platform_vendor[128];
} ra__cl_candidate;

/* The order of gpu:N (qsort comparator): type rank, platform name, platform vendor,
 * platform order, device order. */
int ra__cl_candidate_cmp(const void *a, const void *b);

/* ---- opencl_kernels.c ---- */

/* The kernel `name` of family/dtypes on dev, building its program on first use. Call with
 * dev->lock held; the kernel stays valid until the device closes. Returns RA_OK,
 * RA_E_DTYPE_DEVICE (float64 kinds on a device without cl_khr_fp64), RA_E_BACKEND (build
 * failed: the detail holds the start of the build log), RA_E_NOT_IMPLEMENTED (no such
 * kernel for the dtype), RA_E_NOMEM. */
int ra__cl_kernel(ra__cl_device *dev, ra__cl_family family, ra_dtype in, ra_dtype out,
                  const char *name, cl_kernel *kernel);

/* Enqueues kernel over n work-items (grid-stride kernels: any n >= 1, the global size is
 * capped) on dev's default queue. Call with dev->lock held, after setting the arguments. */
int ra__cl_launch(ra__cl_device *dev, cl_kernel kernel, size_t n);

/* The global size ra__cl_launch uses for n work-items of kernel. */
size_t ra__cl_global_size(ra__cl_device *dev, cl_kernel kernel, size_t n, size_t *local);

/* Programs built in this process so far, over all contexts and devices (for the tests of
 * the kernel cache). */
unsigned long ra__cl_total_builds(void);

/* Releases every cached program of dev. */
void ra__cl_programs_release(ra__cl_device *dev);

/* ---- backend_opencl.c ---- */

extern const ra__backend_ops ra__opencl_ops;

#endif /* RA_OPENCL_H */
