/* test_dlpack.c: DLPack 1.x both ways (ra_to_dlpack, ra_from_dlpack_tensor) on every device:
 * the tensor's fields, flags and data, dl_device and copy, BufferError where DLPack says, a
 * foreign producer's strided tensor, the deleter run exactly once in every path, and every
 * refusal of a tensor that a consumer can tell is unreadable (NULL data with elements,
 * negative extents, ndim, dtype codes and lanes, devices, offsets beyond the address
 * space), beside what DLPack allows (NULL data without elements, negative and zero strides,
 * a NULL deleter). */
#include "devspec_dlpack.h"
#include "ra_test.h"

#include <stdlib.h>
#include <string.h>

static ra_array *iota_f64(ra_ctx *ctx, ra_device dev, int64_t rows, int64_t cols)
{
    double v[64];
    for (int64_t i = 0; i < rows * cols; i++)
        v[i] = (double)i * 1.5;
    int64_t shape[2] = {rows, cols};
    ra_array *x = NULL;
    char dev_s[RA_DEVICE_STR_MAX];
    dev_str(dev, dev_s);
    ASSERT_STATUS(ctx,
                  ra_asarray_buffer(ctx, v, RA_FLOAT64, shape, 2, RA_OPTS(.device = dev_s), &x),
                  RA_OK, "asarray on %s", dev_s);
    return x;
}

static void export_on(ra_ctx *ctx, ra_device dev)
{
    char name[RA_DEVICE_STR_MAX];
    dev_str(dev, name);
    ra_array *x = iota_f64(ctx, dev, 2, 3);
    DLManagedTensorVersioned *t = NULL;
    ASSERT_STATUS(ctx, ra_to_dlpack(ctx, x, NULL, RA_COPY_IF_NEEDED, &t), RA_OK, "export on %s",
                  name);
    if (t == NULL) return;
    DLTensor *d = &t->dl_tensor;
    int32_t want_type = dev.type == RA_DEVICE_CPU ? kDLCPU : kDLOpenCL;
    ASSERT_MSG(t->version.major == 1 && t->version.minor == DLPACK_MINOR_VERSION,
               "version 1.%d on %s", DLPACK_MINOR_VERSION, name);
    ASSERT_INT(d->device.device_type, want_type, "device type on %s", name);
    ASSERT_INT(d->device.device_id, dev.type == RA_DEVICE_CPU ? 0 : dev.index, "device id on %s",
               name);
    ASSERT_MSG(d->ndim == 2 && d->shape[0] == 2 && d->shape[1] == 3 && d->strides[0] == 3 &&
                   d->strides[1] == 1 && d->byte_offset == 0,
               "shape (2, 3), strides (3, 1) on %s", name);
    ASSERT_MSG(d->dtype.code == kDLFloat && d->dtype.bits == 64 && d->dtype.lanes == 1,
               "float64 on %s", name);
    ASSERT_MSG(t->flags == DLPACK_FLAG_BITMASK_READ_ONLY, "shared and read-only on %s", name);
    ASSERT_MSG(d->data != NULL, "data on %s", name);
    if (dev.type == RA_DEVICE_CPU)
        ASSERT_MSG(d->data == ra_array_host_data(x) && ((double *)d->data)[5] == 7.5,
                   "cpu data is the array's own memory");
    t->deleter(t);

    /* copy=True on the same device, and dl_device=(kDLCPU, 0) from any device. */
    ASSERT_STATUS(ctx, ra_to_dlpack(ctx, x, NULL, RA_COPY_ALWAYS, &t), RA_OK, "copy on %s", name);
    ASSERT_MSG(t && t->flags == DLPACK_FLAG_BITMASK_IS_COPIED, "a copy is IS_COPIED on %s", name);
    if (t) t->deleter(t);
    int32_t cpu[2] = {kDLCPU, 0};
    ASSERT_STATUS(ctx, ra_to_dlpack(ctx, x, cpu, RA_COPY_IF_NEEDED, &t), RA_OK,
                  "dl_device cpu from %s", name);
    if (t) {
        ASSERT_MSG(t->dl_tensor.device.device_type == kDLCPU &&
                       ((double *)t->dl_tensor.data)[4] == 6.0,
                   "dl_device=(kDLCPU, 0) from %s gives host values", name);
        ASSERT_MSG((t->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0 || dev.type == RA_DEVICE_CPU,
                   "a copy across devices is IS_COPIED (%s)", name);
        t->deleter(t);
    }
    if (dev.type != RA_DEVICE_CPU)
        ASSERT_STATUS(ctx, ra_to_dlpack(ctx, x, cpu, RA_COPY_NEVER, &t), RA_E_BUFFER,
                      "copy=False to cpu from %s is BufferError", name);
    int32_t hexagon[2] = {kDLHexagon, 0};
    ASSERT_STATUS(ctx, ra_to_dlpack(ctx, x, hexagon, RA_COPY_IF_NEEDED, &t), RA_E_BUFFER,
                  "a device type refarray has not is BufferError (%s)", name);
    ASSERT_MSG(t == NULL, "no tensor after a refusal");
    /* The tensor outlives the array it came from: the deleter keeps it. */
    ASSERT_STATUS(ctx, ra_to_dlpack(ctx, x, NULL, RA_COPY_IF_NEEDED, &t), RA_OK, "again");
    ra_array_release(x);
    if (t) {
        ra_array *y = NULL;
        if (dev.type == RA_DEVICE_CPU) {
            ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, NULL, &y), RA_OK,
                          "refarray imports its own tensor");
            ASSERT_VALUES(ctx, y, "round trip", 0, 1.5, 3, 4.5, 6, 7.5);
            ra_array_release(y);
        } else {
            ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, NULL, &y), RA_E_BUFFER,
                          "an OpenCL tensor is refused on import (%s)", name);
        }
    }
}

DT_TEST(export_every_device)
{
    on_each_device(export_on);
}

/* A foreign producer: a Fortran-order int32 tensor in malloc'd memory with an offset. */
static int deletes;
static void foreign_deleter(DLManagedTensorVersioned *self)
{
    deletes++;
    free(self->manager_ctx);
    free(self);
}

static DLManagedTensorVersioned *foreign(uint32_t major, DLDataType dtype, int32_t dev_type)
{
    DLManagedTensorVersioned *t = calloc(1, sizeof *t);
    /* manager_ctx: 4 bytes of padding, then a 2x3 int32 in column-major order, then shape
     * and strides. */
    char *mem = calloc(1, 32 + 4 * 8);
    int32_t vals[6] = {0, 3, 1, 4, 2, 5}; /* x[i][j] = 3i + j, column-major */
    memcpy(mem + 4, vals, sizeof vals);
    int64_t *shape = (int64_t *)(mem + 28 + 4), *strides = shape + 2;
    shape[0] = 2;
    shape[1] = 3;
    strides[0] = 1;
    strides[1] = 2;
    t->version = (DLPackVersion){major, 0};
    t->manager_ctx = mem;
    t->deleter = foreign_deleter;
    t->dl_tensor = (DLTensor){mem, {(DLDeviceType)dev_type, 0}, 2, dtype, shape, strides, 4};
    return t;
}

DT_TEST(import_foreign)
{
    ra_ctx *ctx = open_ctx();
    DLDataType i32 = {kDLInt, 32, 1};
    ra_array *y = NULL;
    deletes = 0;
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, foreign(1, i32, kDLCPU), NULL, &y), RA_OK,
                  "a strided foreign int32 tensor imports");
    ASSERT_INT(deletes, 1, "its deleter ran once");
    ASSERT_VALUES(ctx, y, "strides and byte_offset are read", 0, 1, 2, 3, 4, 5);
    ra_array_release(y);
    ra_device devs[16];
    size_t n = list_devices(ctx, devs);
    for (size_t i = 0; i < n; i++) {
        char name[RA_DEVICE_STR_MAX];
        dev_str(devs[i], name);
        ASSERT_STATUS(
            ctx, ra_from_dlpack_tensor(ctx, foreign(1, i32, kDLCPU), RA_OPTS(.device = name), &y),
            RA_OK, "imports onto %s", name);
        ASSERT_MSG(y && ra_array_device(y).type == devs[i].type, "lands on %s", name);
        ASSERT_VALUES(ctx, y, "values on the device", 0, 1, 2, 3, 4, 5);
        ra_array_release(y);
    }
    deletes = 0;
    struct {
        uint32_t major;
        DLDataType dtype;
        int32_t dev;
        ra_copy copy;
        const char *what;
    } bad[] = {
        {2, i32, kDLCPU, RA_COPY_DEFAULT, "major version 2"},
        {1, {kDLBfloat, 16, 1}, kDLCPU, RA_COPY_DEFAULT, "bfloat16"},
        {1, {kDLInt, 32, 4}, kDLCPU, RA_COPY_DEFAULT, "4 lanes"},
        {1, i32, kDLCUDA, RA_COPY_DEFAULT, "a CUDA tensor"},
        {1, i32, kDLCPU, RA_COPY_NEVER, "copy=False"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ASSERT_STATUS(ctx,
                      ra_from_dlpack_tensor(ctx, foreign(bad[i].major, bad[i].dtype, bad[i].dev),
                                            RA_OPTS(.copy = bad[i].copy), &y),
                      RA_E_BUFFER, "%s is BufferError", bad[i].what);
        ASSERT_MSG(y == NULL, "no array for %s", bad[i].what);
    }
    ASSERT_INT(deletes, (int)(sizeof bad / sizeof bad[0]), "every refused tensor is deleted once");
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, NULL, NULL, &y), RA_E_NULL, "NULL tensor");
    ra_ctx_destroy(ctx);
}

/* ---- a hostile or careless producer: every field a consumer can check (refarray.h) ---- */

/* Imports T, which the call must refuse with WANT and a message containing SUB, without an
 * array and with T's deleter run once. */
static void refused(ra_ctx *ctx, DLManagedTensorVersioned *t, int want, const char *sub,
                    const char *what)
{
    ra_array *y = NULL;
    deletes = 0;
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, NULL, &y), want, "%s is refused", what);
    ASSERT_MESSAGE(ctx, sub, "%s: the message names the field and why", what);
    ASSERT_MSG(y == NULL, "%s: no array", what);
    ASSERT_INT(deletes, 1, "%s: the deleter ran once", what);
}

DT_TEST(import_refuses_what_it_cannot_read)
{
    ra_ctx *ctx = open_ctx();
    DLDataType i32 = {kDLInt, 32, 1};
    DLManagedTensorVersioned *t;

    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.data = NULL;
    refused(ctx, t, RA_E_BUFFER, "data is NULL, but the tensor has 6 elements",
            "NULL data with elements");

    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.shape[1] = -3;
    refused(ctx, t, RA_E_BUFFER, "shape[1] is -3", "a negative extent");
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.ndim = -1;
    refused(ctx, t, RA_E_BUFFER, "ndim is -1", "a negative ndim");
    /* shape and strides hold 2 values: refused before any of the 33 is read (ASan). */
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.ndim = RA_MAX_NDIM + 1;
    refused(ctx, t, RA_E_BUFFER, "ndim is 33; refarray's arrays have at most 32", "ndim 33");
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.shape = NULL;
    refused(ctx, t, RA_E_BUFFER, "shape is NULL with ndim 2", "a NULL shape");

    struct {
        DLDataType dtype;
        const char *sub;
    } types[] = {
        {{kDLFloat4_e2m1fn + 1, 32, 1}, "dtype.code 18 is no DLPack type code"},
        {{255, 8, 1}, "dtype.code 255 is no DLPack type code"},
        {{kDLInt, 32, 0}, "dtype.lanes is 0"},
        {{kDLInt, 32, 4}, "dtype.lanes is 4"},
        {{kDLInt, 7, 1}, "dtype (kDLInt, bits 7) is no refarray dtype"},
        {{kDLBfloat, 16, 1}, "dtype (kDLBfloat, bits 16) is no refarray dtype"},
        {{kDLBool, 1, 1}, "dtype (kDLBool, bits 1) is no refarray dtype"},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        refused(ctx, foreign(1, types[i].dtype, kDLCPU), RA_E_BUFFER, types[i].sub, types[i].sub);

    struct {
        int32_t type, id;
        const char *sub;
    } devs[] = {
        {5, 0, "device.device_type 5 is no DLPack device type"},
        {-1, 0, "device.device_type -1 is no DLPack device type"},
        {kDLTrn + 1, 0, "device.device_type 19 is no DLPack device type"},
        {kDLCPU, 1, "device (kDLCPU, 1): DLPack's host memory is device 0"},
        {kDLCUDAHost, -1, "device (kDLCUDAHost, -1): device_id is negative"},
        {kDLCUDA, 0, "device (kDLCUDA, 0) is no device refarray can read"},
        {kDLOpenCL, 99, "device (kDLOpenCL, 99) is no device refarray can read"},
    };
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        t = foreign(1, i32, kDLCPU);
        t->dl_tensor.device = (DLDevice){(DLDeviceType)devs[i].type, devs[i].id};
        refused(ctx, t, RA_E_BUFFER, devs[i].sub, devs[i].sub);
    }
    ra_device gpu0 = {RA_DEVICE_GPU, 0};
    if (ra_device_check(ctx, gpu0) == RA_OK) {
        t = foreign(1, i32, kDLCPU);
        t->dl_tensor.device = (DLDevice){kDLOpenCL, 0};
        refused(ctx, t, RA_E_BUFFER, "(kDLOpenCL, 0) is refarray's gpu:0, but a producer's cl_mem",
                "another producer's cl_mem on refarray's own gpu:0");
    } else {
        skip_part("no OpenCL device", "a foreign cl_mem on refarray's gpu:0 is refused");
    }

    /* Offsets: the address of some element leaves the address space. The data is never read. */
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.byte_offset = UINT64_MAX;
    refused(ctx, t, RA_E_BUFFER, "byte_offset 18446744073709551615", "byte_offset 2^64 - 1");
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.byte_offset = (uint64_t)(UINTPTR_MAX - (uintptr_t)t->dl_tensor.data - 8);
    refused(ctx, t, RA_E_BUFFER, "outside the address space",
            "a byte_offset that leaves 8 bytes of address space for 24");
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.data = (void *)(uintptr_t)4096;
    t->dl_tensor.byte_offset = 0;
    t->dl_tensor.strides[0] = -((int64_t)1 << 40);
    refused(ctx, t, RA_E_BUFFER, "outside the address space", "strides reaching below address 0");
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.strides[0] = INT64_MAX;
    refused(ctx, t, RA_E_BUFFER, "strides[0] is 9223372036854775807 with shape[0] 2",
            "strides summing past int64");
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.shape[0] = 3;
    t->dl_tensor.strides[0] = (int64_t)1 << 62;
    refused(ctx, t, RA_E_BUFFER, "the offset of an element overflows int64",
            "a stride times an extent past int64");

    /* Sizes: the element count, or its bytes, beyond the address space. */
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.shape[0] = (int64_t)1 << 62;
    t->dl_tensor.shape[1] = 4;
    refused(ctx, t, RA_E_TOO_LARGE, "exceed the address space", "2^64 elements");
    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.shape[0] = (int64_t)1 << 40;
    t->dl_tensor.shape[1] = (int64_t)1 << 22;
    refused(ctx, t, RA_E_TOO_LARGE, "elements of 4 bytes exceed the address space",
            "2^62 elements of 4 bytes");
    ra_ctx_destroy(ctx);
}

/* What DLPack allows is taken: no elements with NULL data, negative and zero strides, pinned
 * host memory, and a NULL deleter (a producer without a destructor keeps the tensor). */
DT_TEST(import_takes_what_dlpack_allows)
{
    ra_ctx *ctx = open_ctx();
    DLDataType i32 = {kDLInt, 32, 1};
    ra_array *y = NULL;
    DLManagedTensorVersioned *t = foreign(1, i32, kDLCPU);
    t->dl_tensor.data = NULL;
    t->dl_tensor.shape[0] = 0;
    t->dl_tensor.strides[0] = INT64_MIN; /* never used: nothing is read */
    t->dl_tensor.byte_offset = UINT64_MAX;
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, NULL, &y), RA_OK,
                  "no elements: NULL data, any strides and byte_offset");
    ASSERT_MSG(y && ra_array_size(y) == 0 && ra_array_ndim(y) == 2, "an empty (0, 3) array");
    ra_array_release(y);

    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.strides[0] = -1; /* rows reversed: element (i, j) at 1 - i + 2j */
    t->dl_tensor.byte_offset = 8;
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, NULL, &y), RA_OK, "a negative stride");
    ASSERT_VALUES(ctx, y, "a negative stride reads backwards", 3, 4, 5, 0, 1, 2);
    ra_array_release(y);

    t = foreign(1, i32, kDLCPU);
    t->dl_tensor.strides[0] = 0; /* a broadcast row */
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, NULL, &y), RA_OK, "a zero stride");
    ASSERT_VALUES(ctx, y, "a zero stride repeats the row", 0, 1, 2, 0, 1, 2);
    ra_array_release(y);

    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, foreign(1, i32, kDLCUDAHost), NULL, &y), RA_OK,
                  "pinned host memory (kDLCUDAHost)");
    ASSERT_VALUES(ctx, y, "kDLCUDAHost's values", 0, 1, 2, 3, 4, 5);
    ra_array_release(y);

    deletes = 0;
    t = foreign(1, i32, kDLCPU);
    t->deleter = NULL;
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, NULL, &y), RA_OK, "a NULL deleter");
    ASSERT_VALUES(ctx, y, "a tensor without deleter is read", 0, 1, 2, 3, 4, 5);
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_from_dlpack_tensor(ctx, t, RA_OPTS(.copy = RA_COPY_NEVER), &y),
                  RA_E_BUFFER, "a NULL deleter on a refusal");
    ASSERT_INT(deletes, 0, "no deleter was called");
    foreign_deleter(t); /* the producer's own */
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(export_every_device), DT_ENTRY(import_foreign),
        DT_ENTRY(import_refuses_what_it_cannot_read), DT_ENTRY(import_takes_what_dlpack_allows))
