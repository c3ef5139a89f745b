/*
 * opencl_kernels.c: building kernels.cl for a device and caching the programs; launching.
 *
 * A program is built lazily, the first time an operation needs its (family, input dtype,
 * output dtype) on a device, and kept until the context is destroyed: a process pays each
 * build once per context and device (PoCL also keeps compiled binaries in its disk cache,
 * so a second process pays less). Building a whole family at once (all binary operations
 * of float32, say) costs little more than one kernel and keeps the number of builds small.
 */
#include "opencl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* The OpenCL C spelling of each dtype; index is ra_dtype. */
typedef struct cl_type {
    const char *type;  /* element type */
    int kind;          /* RA_KI: 0 bool, 1 signed, 2 unsigned, 3 float, 4 complex */
    const char *utype; /* unsigned type of the same width (integer wrap-around) */
    const char *rtype; /* real component type (complex), else the type itself */
    bool fp64;
} cl_type;

static const cl_type cl_types[RA_DTYPE_COUNT + 1] = {
    [RA_BOOL] = {"uchar", 0, "uchar", "uchar", false},
    [RA_INT8] = {"char", 1, "uchar", "char", false},
    [RA_INT16] = {"short", 1, "ushort", "short", false},
    [RA_INT32] = {"int", 1, "uint", "int", false},
    [RA_INT64] = {"long", 1, "ulong", "long", false},
    [RA_UINT8] = {"uchar", 2, "uchar", "uchar", false},
    [RA_UINT16] = {"ushort", 2, "ushort", "ushort", false},
    [RA_UINT32] = {"uint", 2, "uint", "uint", false},
    [RA_UINT64] = {"ulong", 2, "ulong", "ulong", false},
    [RA_FLOAT32] = {"float", 3, "uint", "float", false},
    [RA_FLOAT64] = {"double", 3, "ulong", "double", true},
    [RA_COMPLEX64] = {"float2", 4, "uint", "float", false},
    [RA_COMPLEX128] = {"double2", 4, "ulong", "double", true},
};

/* Process-wide count of successful builds, for the kernel-cache tests. */
static atomic_ulong total_builds;

unsigned long ra__cl_total_builds(void)
{
    return atomic_load(&total_builds);
}

static void program_destroy(ra_ctx *ctx, ra__cl_program *p)
{
    if (!p) return;
    for (cl_uint i = 0; i < p->nkernels; i++) {
        if (p->kernels && p->kernels[i]) clReleaseKernel(p->kernels[i]);
        if (p->names) ra__free(ctx, p->names[i]);
    }
    ra__free(ctx, p->kernels);
    ra__free(ctx, p->names);
    if (p->program) clReleaseProgram(p->program);
    ra__free(ctx, p);
}

void ra__cl_programs_release(ra__cl_device *dev)
{
    for (int f = 0; f < RA_CL_FAMILY_MAX; f++)
        for (int i = 0; i <= RA_DTYPE_COUNT; i++)
            for (int o = 0; o <= RA_DTYPE_COUNT; o++) {
                program_destroy(dev->ctx, dev->programs[f][i][o]);
                dev->programs[f][i][o] = NULL;
            }
}

/* Records a build failure with the first part of the device's build log. */
static int build_failed(ra__cl_device *dev, cl_program program, cl_int err, const char *options)
{
    char log[512] = "";
    size_t len = 0;
    if (clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
                              &len) != CL_SUCCESS)
        log[0] = '\0';
    log[sizeof log - 1] = '\0';
    return ra__ctx_error(dev->ctx, err == CL_OUT_OF_HOST_MEMORY ? RA_E_NOMEM : RA_E_BACKEND,
                         "OpenCL device '%s': building kernels (%s) failed with %s: %s", dev->name,
                         options, ra__cl_error_name(err), log);
}

static int program_build(ra__cl_device *dev, ra__cl_family family, ra_dtype in, ra_dtype out,
                         ra__cl_program **result)
{
    const cl_type *ti = &cl_types[in], *to = &cl_types[out];
    char options[512];
    cl_int err;
    ra__cl_program *p = NULL;
    cl_program program = NULL;
    const char *source = ra__opencl_source;

    if ((ti->fp64 || to->fp64) && !dev->has_fp64)
        return ra__ctx_error(dev->ctx, RA_E_DTYPE_DEVICE,
                             "dtype %s is not supported on OpenCL device '%s': it has no "
                             "cl_khr_fp64 (double precision)",
                             ra_dtype_name(ti->fp64 ? in : out), dev->name);
    /* complex64 division is computed in double where the device has it (see cdiv); a binary
     * program holds the casts to float64 and complex128 where the device has them. */
    bool fp64 =
        ti->fp64 || to->fp64 || ((in == RA_COMPLEX64 || family == RA_CL_BINARY) && dev->has_fp64);
    snprintf(options, sizeof options,
             "-D RA_FAMILY=%d -D RA_TI=%s -D RA_KI=%d -D RA_UI=%s -D RA_RI=%s -D RA_TO=%s "
             "-D RA_KO=%d -D RA_UO=%s -D RA_FP64=%d -D RA_C64=%d -D RA_CL_MAXDIM=%d%s",
             (int)family, ti->type, ti->kind, ti->utype, ti->rtype, to->type, to->kind, to->utype,
             fp64 ? 1 : 0, in == RA_COMPLEX64 ? 1 : 0, RA_CL_MAXDIM,
             dev->fp32_correct_div_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");

    program = clCreateProgramWithSource(dev->context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS) return ra__cl_fail(dev->ctx, err, "clCreateProgramWithSource", dev);
    err = clBuildProgram(program, 1, &dev->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        int status = build_failed(dev, program, err, options);
        clReleaseProgram(program);
        return status;
    }
    atomic_fetch_add(&total_builds, 1);

    p = ra__calloc(dev->ctx, 1, sizeof *p);
    if (!p) {
        clReleaseProgram(program);
        return ra__ctx_error(dev->ctx, RA_E_NOMEM, "out of memory caching an OpenCL program");
    }
    p->program = program;
    cl_uint n = 0;
    err = clCreateKernelsInProgram(program, 0, NULL, &n);
    if (err != CL_SUCCESS) {
        int status = ra__cl_fail(dev->ctx, err, "clCreateKernelsInProgram", dev);
        program_destroy(dev->ctx, p);
        return status;
    }
    p->kernels = ra__calloc(dev->ctx, n ? n : 1, sizeof *p->kernels);
    p->names = ra__calloc(dev->ctx, n ? n : 1, sizeof *p->names);
    if (!p->kernels || !p->names) {
        program_destroy(dev->ctx, p);
        return ra__ctx_error(dev->ctx, RA_E_NOMEM, "out of memory caching OpenCL kernels");
    }
    err = clCreateKernelsInProgram(program, n, p->kernels, NULL);
    if (err != CL_SUCCESS) {
        int status = ra__cl_fail(dev->ctx, err, "clCreateKernelsInProgram", dev);
        program_destroy(dev->ctx, p);
        return status;
    }
    p->nkernels = n;
    for (cl_uint i = 0; i < n; i++) {
        char name[64];
        size_t len = 0;
        err = clGetKernelInfo(p->kernels[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name, &len);
        if (err != CL_SUCCESS) {
            int status = ra__cl_fail(dev->ctx, err, "clGetKernelInfo", dev);
            program_destroy(dev->ctx, p);
            return status;
        }
        name[sizeof name - 1] = '\0';
        p->names[i] = ra__alloc(dev->ctx, strlen(name) + 1);
        if (!p->names[i]) {
            program_destroy(dev->ctx, p);
            return ra__ctx_error(dev->ctx, RA_E_NOMEM, "out of memory caching OpenCL kernels");
        }
        memcpy(p->names[i], name, strlen(name) + 1);
    }
    *result = p;
    return RA_OK;
}

int ra__cl_kernel(ra__cl_device *dev, ra__cl_family family, ra_dtype in, ra_dtype out,
                  const char *name, cl_kernel *kernel)
{
    /* float16 never reaches a kernel: its conversions and arithmetic are the core's. */
    if (in < RA_BOOL || in > RA_COMPLEX128 || out < RA_BOOL || out > RA_COMPLEX128)
        return ra__ctx_error(dev->ctx, RA_E_ARG, "OpenCL backend: invalid dtype value %d/%d",
                             (int)in, (int)out);
    char cast_name[32];
    if (family == RA_CL_CAST) {
        /* The binary program of the input dtype holds the casts to every output (kernels.cl). */
        if (cl_types[out].fp64 && !dev->has_fp64)
            return ra__ctx_error(dev->ctx, RA_E_DTYPE_DEVICE,
                                 "dtype %s is not supported on OpenCL device '%s': it has no "
                                 "cl_khr_fp64 (double precision)",
                                 ra_dtype_name(out), dev->name);
        snprintf(cast_name, sizeof cast_name, "%s_%s", name, ra_dtype_name(out));
        name = cast_name;
        family = RA_CL_BINARY;
        out = in;
    }
    ra__cl_program **slot = &dev->programs[family][in][out];
    if (!*slot) {
        int status = program_build(dev, family, in, out, slot);
        if (status != RA_OK) return status;
    }
    for (cl_uint i = 0; i < (*slot)->nkernels; i++) {
        if (strcmp((*slot)->names[i], name) == 0) {
            *kernel = (*slot)->kernels[i];
            return RA_OK;
        }
    }
    return ra__ctx_error(dev->ctx, RA_E_NOT_IMPLEMENTED,
                         "OpenCL backend has no kernel %s for dtype %s", name, ra_dtype_name(in));
}

size_t ra__cl_global_size(ra__cl_device *dev, cl_kernel kernel, size_t n, size_t *local)
{
    size_t wg = 0;
    if (clGetKernelWorkGroupInfo(kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                 NULL) != CL_SUCCESS ||
        wg == 0)
        wg = 1;
    /* One fixed local size per kernel: a driver that compiles per local size (PoCL does)
     * then compiles each kernel once. Large work-groups matter on CPU devices, where each
     * group is a unit of scheduling (1024 halves PoCL's time against 256); GPUs run them
     * well too, and the kernel's own limit (CL_KERNEL_WORK_GROUP_SIZE) is respected. */
    size_t l = wg < 1024 ? wg : 1024;
    /* One work-item per element; the kernels' grid-stride loops take over only beyond
     * 2^20 work-groups. */
    size_t cap = l << 20;
    size_t global = (n + l - 1) / l * l;
    if (global > cap) global = cap;
    *local = l;
    return global;
}

int ra__cl_launch(ra__cl_device *dev, cl_kernel kernel, size_t n)
{
    size_t local = 1;
    size_t global = ra__cl_global_size(dev, kernel, n, &local);
    cl_int err =
        clEnqueueNDRangeKernel(dev->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS) return ra__cl_fail(dev->ctx, err, "clEnqueueNDRangeKernel", dev);
    return RA_OK;
}
