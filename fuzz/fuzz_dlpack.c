/* libFuzzer harness: refarray's DLPack import (ra_from_dlpack_tensor) of any producer's tensor.
 * The input describes a DLManagedTensorVersioned, or an unversioned DLManagedTensor taken as a
 * consumer before 1.0 takes one (wrapped in a versioned tensor without deleter), field by
 * field: version, dtype, device, ndim, shape, strides (or none), byte_offset, data (a buffer
 * holding the rest of the input, NULL, or any address), deleter (or none) and the import's
 * options. The harness works out, exactly (128-bit arithmetic), what the import must do:
 *  - refuse, with a message, a tensor that refarray.h says it refuses (its data is then never
 *    read: any address is safe);
 *  - take a well-formed tensor whose every element lies inside the buffer, and give back an
 *    array of its shape and dtype holding exactly the elements gathered by the strides.
 * A tensor that is neither (elements outside the buffer, which no consumer can check) is not
 * imported. Either way the deleter runs exactly once, or never when it is NULL; nothing may
 * crash, leak or read out of bounds. */
#include "devspec_dlpack.h"
#include "fuzz.h"
#include "refarray.h"

#include <string.h>

/* The most bytes of array data the context may hold: a large tensor is refused (RA_E_NOMEM),
 * not allocated. */
#define HOST_LIMIT ((size_t)1 << 14)
/* A well-formed tensor of at most this many bytes must be taken. */
#define TAKE_LIMIT ((size_t)1 << 12)
/* Shape and strides arrays hold at most this many values: with a larger ndim the import must
 * refuse before reading them, so a read past them is an out-of-bounds read ASan reports. */
#define MAX_LISTED 64

static ra_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (ra_ctx_create(RA_CTX_OPTIONS(.flags = RA_CTX_NO_OPENCL, .max_host_bytes = HOST_LIMIT),
                      &ctx) != RA_OK)
        abort();
    return 0;
}

/* ---- reading the input ------------------------------------------------------------------ */

typedef struct input {
    const uint8_t *p;
    size_t left;
} input;

/* The next n bytes as a little-endian unsigned number; zeros past the end. */
static uint64_t take(input *in, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = 0;
        if (in->left) {
            b = *in->p++;
            in->left--;
        }
        v |= b << (8 * i);
    }
    return v;
}

/* A byte that picks a likely value (below 200) or, above, says the raw value follows. */
static bool raw(input *in, uint8_t *pick)
{
    *pick = (uint8_t)take(in, 1);
    return *pick >= 200;
}

/* refarray's dtypes as DLPack types (lanes 1). */
static const DLDataType dtypes[] = {{kDLBool, 8, 1},     {kDLInt, 8, 1},      {kDLInt, 16, 1},
                                    {kDLInt, 32, 1},     {kDLInt, 64, 1},     {kDLUInt, 8, 1},
                                    {kDLUInt, 16, 1},    {kDLUInt, 32, 1},    {kDLUInt, 64, 1},
                                    {kDLFloat, 16, 1},   {kDLFloat, 32, 1},   {kDLFloat, 64, 1},
                                    {kDLComplex, 64, 1}, {kDLComplex, 128, 1}};

/* The bytes an element of T takes in refarray, or 0 when refarray has not the type. */
static size_t elem_size(DLDataType t)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].code == t.code && dtypes[i].bits == t.bits && dtypes[i].lanes == t.lanes)
            return t.bits / 8u;
    return 0;
}

/* What one input describes. */
typedef struct described {
    bool unversioned, no_deleter, no_strides;
    int opts; /* 0 none, 1 copy always, 2 copy never, 3 device "cpu", 4 a dtype given */
    DLPackVersion version;
    DLTensor t;
    int64_t *shape, *strides; /* MAX_LISTED values at most, or NULL */
    uint8_t *buf;             /* the data buffer, buf_len bytes (the input's rest) */
    size_t buf_len;
} described;

static void describe_data(input *in, described *d)
{
    uint8_t pick;
    /* data: the buffer, NULL, or any address (raw); byte_offset small or raw. */
    int mode = (int)take(in, 1) % 3;
    uint64_t wild = take(in, 8);
    d->t.byte_offset = raw(in, &pick) ? take(in, 8) : (uint64_t)(pick % 17);
    d->buf_len = in->left;
    d->buf = malloc(d->buf_len ? d->buf_len : 1);
    if (!d->buf) abort();
    if (d->buf_len) memcpy(d->buf, in->p, d->buf_len);
    d->t.data = mode == 0 ? (void *)d->buf : mode == 1 ? NULL : (void *)(uintptr_t)wild;
}

static void describe(input *in, described *d)
{
    uint8_t pick, flags = (uint8_t)take(in, 1);
    d->unversioned = flags & 1;
    d->no_deleter = flags & 2;
    d->no_strides = flags & 4;
    bool no_shape = flags & 8;
    d->opts = (flags >> 4) % 5;
    d->version.major = raw(in, &pick) ? (uint32_t)take(in, 4) : 1;
    d->version.minor = pick % 4;
    if (raw(in, &pick))
        d->t.dtype =
            (DLDataType){(uint8_t)take(in, 1), (uint8_t)take(in, 1), (uint16_t)take(in, 2)};
    else
        d->t.dtype = dtypes[pick % (sizeof dtypes / sizeof dtypes[0])];
    if (raw(in, &pick))
        d->t.device = (DLDevice){(DLDeviceType)(int32_t)take(in, 4), (int32_t)take(in, 4)};
    else
        d->t.device = (DLDevice){pick % 8 ? kDLCPU : kDLCUDAHost, 0};
    d->t.ndim = raw(in, &pick) ? (int32_t)take(in, 4) : pick % 5;
    size_t listed = d->t.ndim <= 0 ? 0 : d->t.ndim > MAX_LISTED ? MAX_LISTED : (size_t)d->t.ndim;
    if (listed) {
        d->shape = malloc(listed * sizeof *d->shape);
        d->strides = malloc(listed * sizeof *d->strides);
        if (!d->shape || !d->strides) abort();
    }
    for (size_t i = 0; i < listed; i++) {
        d->shape[i] = raw(in, &pick) ? (int64_t)take(in, 8) : pick % 5;
        d->strides[i] = raw(in, &pick) ? (int64_t)take(in, 8) : (int64_t)(pick % 9) - 4;
    }
    d->t.shape = no_shape ? NULL : d->shape;
    d->t.strides = d->no_strides ? NULL : d->strides;
    describe_data(in, d);
}

/* ---- what the import must do ------------------------------------------------------------ */

typedef enum { MUST_REFUSE, MUST_TAKE, OUTSIDE } verdict;

/* C-order strides (element counts) of d's shape, or its own strides. */
static __int128 stride_of(const described *d, int32_t k)
{
    if (!d->no_strides) return d->t.strides[k];
    __int128 s = 1;
    for (int32_t i = d->t.ndim; --i > k;)
        s *= d->t.shape[i];
    return s;
}

/* Whether the header's checks of dtype, device, ndim and shape refuse d. *size gets the
 * element count otherwise. */
static bool refused_form(const described *d, __int128 *size)
{
    const DLTensor *t = &d->t;
    if (d->version.major != DLPACK_MAJOR_VERSION || elem_size(t->dtype) == 0) return true;
    int32_t type = (int32_t)t->device.device_type, id = t->device.device_id;
    if (!((type == kDLCPU && id == 0) || ((type == kDLCUDAHost || type == kDLROCMHost) && id >= 0)))
        return true;
    if (t->ndim < 0 || t->ndim > RA_MAX_NDIM || (t->ndim > 0 && t->shape == NULL)) return true;
    __int128 n = 1;
    bool empty = false;
    for (int32_t k = 0; k < t->ndim; k++) {
        if (t->shape[k] < 0) return true;
        empty = empty || t->shape[k] == 0;
        if (!empty && n <= PTRDIFF_MAX) n *= t->shape[k];
    }
    *size = empty ? 0 : n;
    return !empty && n > (__int128)(PTRDIFF_MAX / elem_size(t->dtype));
}

static verdict judge(const described *d, __int128 *size)
{
    if (refused_form(d, size)) return MUST_REFUSE;
    if (*size == 0) return MUST_TAKE; /* nothing is read */
    const DLTensor *t = &d->t;
    if (t->data == NULL) return MUST_REFUSE;
    __int128 lo = 0, hi = 0, esize = (__int128)elem_size(t->dtype);
    for (int32_t k = 0; k < t->ndim; k++) {
        __int128 reach = stride_of(d, k) * (t->shape[k] - 1);
        *(reach < 0 ? &lo : &hi) += reach;
        if (lo < INT64_MIN || hi > INT64_MAX) return MUST_REFUSE; /* before 128 bits overflow */
    }
    __int128 base = (__int128)(uintptr_t)t->data + t->byte_offset;
    if (lo * esize < INT64_MIN || (hi + 1) * esize > INT64_MAX || base > (__int128)UINTPTR_MAX ||
        base + lo * esize < 0 || base + (hi + 1) * esize > (__int128)UINTPTR_MAX)
        return MUST_REFUSE;
    __int128 start = (__int128)(uintptr_t)d->buf, end = start + (__int128)d->buf_len;
    return base + lo * esize >= start && base + (hi + 1) * esize <= end ? MUST_TAKE : OUTSIDE;
}

/* ---- one import ------------------------------------------------------------------------- */

static int deletes;
static void count_versioned(DLManagedTensorVersioned *self)
{
    deletes++;
    free(self);
}
static void count_unversioned(DLManagedTensor *self)
{
    deletes++;
    free(self);
}

/* The elements of d (taken), gathered by the harness's own index walk, against y's. */
static void check_values(const described *d, const ra_array *y, size_t nbytes)
{
    if (nbytes == 0) return; /* data may be NULL or anything */
    size_t esize = elem_size(d->t.dtype);
    uint8_t *want = malloc(nbytes), *got = malloc(nbytes);
    if (!want || !got) abort();
    int64_t idx[RA_MAX_NDIM] = {0};
    const uint8_t *base = (const uint8_t *)d->t.data + d->t.byte_offset;
    for (size_t k = 0; k < nbytes / esize; k++) {
        __int128 off = 0;
        for (int32_t i = 0; i < d->t.ndim; i++)
            off += idx[i] * stride_of(d, i);
        memcpy(want + k * esize, base + (ptrdiff_t)(off * (__int128)esize), esize);
        for (int32_t i = d->t.ndim; i-- > 0;) {
            if (++idx[i] < d->t.shape[i]) break;
            idx[i] = 0;
        }
    }
    if (ra_array_read(ctx, y, got, nbytes) != RA_OK || memcmp(want, got, nbytes) != 0) abort();
    free(want);
    free(got);
}

/* The array taken from d: its dtype, shape and values. */
static void check_taken(const described *d, const ra_array *y, __int128 size)
{
    if (ra_array_ndim(y) != (size_t)d->t.ndim || ra_array_size(y) != (int64_t)size) abort();
    if (ra_array_dtype(y) == RA_DTYPE_DEFAULT ||
        ra_dtype_size(ra_array_dtype(y)) != elem_size(d->t.dtype))
        abort();
    for (int32_t k = 0; k < d->t.ndim; k++)
        if (ra_array_shape(y)[k] != d->t.shape[k]) abort();
    check_values(d, y, ra_array_nbytes(y));
}

static int import(const described *d, ra_array **y)
{
    static const char *const devices[] = {NULL, NULL, NULL, "cpu", NULL};
    ra_opts opts = {.size = sizeof opts,
                    .copy = d->opts == 1   ? RA_COPY_ALWAYS
                            : d->opts == 2 ? RA_COPY_NEVER
                                           : RA_COPY_DEFAULT,
                    .device = devices[d->opts],
                    .dtype = d->opts == 4 ? RA_INT8 : RA_DTYPE_DEFAULT};
    const ra_opts *o = d->opts ? &opts : NULL;
    if (d->unversioned) {
        /* As a consumer before 1.0 takes one: the versioned wrapper has no deleter of its
         * own; the unversioned tensor's runs after the call. */
        DLManagedTensor *u = malloc(sizeof *u);
        if (!u) abort();
        *u = (DLManagedTensor){d->t, NULL, d->no_deleter ? NULL : count_unversioned};
        DLManagedTensorVersioned v = {d->version, NULL, NULL, 0, u->dl_tensor};
        int status = ra_from_dlpack_tensor(ctx, &v, o, y);
        if (deletes != 0) abort(); /* the wrapper's NULL deleter was called */
        if (u->deleter)
            u->deleter(u);
        else
            free(u);
        return status;
    }
    DLManagedTensorVersioned *m = malloc(sizeof *m);
    if (!m) abort();
    *m = (DLManagedTensorVersioned){d->version, NULL, d->no_deleter ? NULL : count_versioned, 0,
                                    d->t};
    int status = ra_from_dlpack_tensor(ctx, m, o, y);
    if (d->no_deleter) {
        if (deletes != 0) abort();
        free(m);
    }
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    described d;
    memset(&d, 0, sizeof d);
    describe(&in, &d);
    __int128 count = 0;
    verdict v = judge(&d, &count);
    if (v != OUTSIDE) {
        ra_array *y = NULL;
        deletes = 0;
        int status = import(&d, &y);
        if (deletes != (d.no_deleter ? 0 : 1)) abort(); /* exactly once, or never */
        if (status != RA_OK && (y != NULL || ra_ctx_message(ctx)[0] == '\0')) abort();
        if (v == MUST_REFUSE && status == RA_OK) abort();
        bool plain = d.opts == 0 || d.opts == 1 || d.opts == 3;
        size_t nbytes = (size_t)count * (elem_size(d.t.dtype) ? elem_size(d.t.dtype) : 1);
        if (v == MUST_TAKE && plain && nbytes <= TAKE_LIMIT && status != RA_OK) abort();
        if (v == MUST_TAKE && !plain && status == RA_OK) abort(); /* copy=False, a dtype */
        if (status == RA_OK) check_taken(&d, y, count);
        ra_array_release(y);
    }
    free(d.shape);
    free(d.strides);
    free(d.buf);
    return 0;
}
