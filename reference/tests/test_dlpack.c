/* test_dlpack.c: DLPack 1.x both ways (ra_to_dlpack, ra_from_dlpack_tensor) on every device:
 * the tensor's fields, flags and data, dl_device and copy, BufferError where DLPack says, a
 * foreign producer's strided tensor, and the deleter run exactly once in every path. */
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

DT_MAIN(DT_ENTRY(export_every_device), DT_ENTRY(import_foreign))
