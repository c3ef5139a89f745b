/*
 * ops_array.c: the array ops (array.*, stream.default).
 */
#include "ops.h"

#include "devspec_dlpack.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int create_fill(const ds__req *r, ds_fill_fn fn, ds_dtype dtype, ds_device dev, ds_array *x)
{
    int64_t shape[DS_MAX_NDIM];
    int ndim = 0;
    if (ds__arg_shape(r, "shape", shape, &ndim) < 0) return -1;
    return CALL(r, fill, fn, shape, ndim, dtype, dev, x);
}

static int create_like(const ds__req *r, ds_fill_fn fn, ds_dtype dtype, ds_device dev, ds_array *x)
{
    ds_array src;
    if (ds__arg_array(r, "x", &src) < 0) return -1;
    return CALL(r, fill_like, fn, src, dtype, dev, x);
}

/* array.create's functions and the arguments each takes (spec/ops.json). */
static const struct {
    const char *fn;
    const char *const *args;
} create_fns[] = {
#define X(fn, args) {fn, args},
    DS__ARRAY_CREATE_FUNCTIONS(X)
#undef X
};

/* The arguments array.create's function FN takes, or NULL for an unknown function. */
static const char *const *create_args(const char *fn)
{
    for (size_t i = 0; i < sizeof create_fns / sizeof create_fns[0]; i++)
        if (strcmp(create_fns[i].fn, fn) == 0) return create_fns[i].args;
    return NULL;
}

int ds__op_array_create(const ds__req *r, cJSON **result)
{
    const char *fn;
    ds_dtype dtype;
    ds_device dev;
    ds_array x = NULL;
    int rc;
    if (ds__arg_string(r, "fn", &fn) < 0 || ds__arg_dtype(r, "dtype", false, &dtype) < 0 ||
        ds__arg_device(r, "device", false, &dev) < 0)
        return -1;
    /* Each function takes only its own arguments (spec/ops.json): fill_value is an error
     * for zeros, not ignored. */
    const char *const *allowed = create_args(fn);
    if (allowed != NULL && ds__args_check(r, allowed) < 0) return -1;
    if (strcmp(fn, "zeros") == 0) {
        rc = create_fill(r, DS_ZEROS, dtype, dev, &x);
    } else if (strcmp(fn, "ones") == 0) {
        rc = create_fill(r, DS_ONES, dtype, dev, &x);
    } else if (strcmp(fn, "empty") == 0) {
        rc = create_fill(r, DS_EMPTY, dtype, dev, &x);
    } else if (strcmp(fn, "full") == 0) {
        int64_t shape[DS_MAX_NDIM];
        int ndim = 0;
        ds_scalar fill;
        rc = ds__arg_shape(r, "shape", shape, &ndim) < 0 ||
                     ds__arg_scalar(r, "fill_value", true, &fill, NULL) < 0
                 ? -1
                 : CALL(r, full, shape, ndim, fill, dtype, dev, &x);
    } else if (strcmp(fn, "arange") == 0) {
        ds_scalar start, stop, step;
        bool has_stop, has_step;
        rc = ds__arg_scalar(r, "start", true, &start, NULL) < 0 ||
                     ds__arg_scalar(r, "stop", false, &stop, &has_stop) < 0 ||
                     ds__arg_scalar(r, "step", false, &step, &has_step) < 0
                 ? -1
                 : CALL(r, arange, start, has_stop ? &stop : NULL, has_step ? &step : NULL, dtype,
                        dev, &x);
    } else if (strcmp(fn, "linspace") == 0) {
        ds_scalar start, stop;
        int64_t num;
        bool endpoint;
        rc = ds__arg_scalar(r, "start", true, &start, NULL) < 0 ||
                     ds__arg_scalar(r, "stop", true, &stop, NULL) < 0 ||
                     ds__arg_int(r, "num", true, 0, &num) < 0 ||
                     ds__arg_bool(r, "endpoint", false, true, &endpoint) < 0
                 ? -1
                 : CALL(r, linspace, start, stop, num, endpoint, dtype, dev, &x);
    } else if (strcmp(fn, "eye") == 0) {
        int64_t n_rows, n_cols, k;
        const cJSON *nc = ds__arg(r, "n_cols");
        bool has_cols = nc != NULL && !cJSON_IsNull(nc);
        rc = ds__arg_int(r, "n_rows", true, 0, &n_rows) < 0 ||
                     ds__arg_int(r, "n_cols", false, 0, &n_cols) < 0 ||
                     ds__arg_int(r, "k", false, 0, &k) < 0
                 ? -1
                 : CALL(r, eye, n_rows, has_cols ? &n_cols : NULL, k, dtype, dev, &x);
    } else if (strcmp(fn, "zeros_like") == 0) {
        rc = create_like(r, DS_ZEROS, dtype, dev, &x);
    } else if (strcmp(fn, "ones_like") == 0) {
        rc = create_like(r, DS_ONES, dtype, dev, &x);
    } else if (strcmp(fn, "empty_like") == 0) {
        rc = create_like(r, DS_EMPTY, dtype, dev, &x);
    } else if (strcmp(fn, "full_like") == 0) {
        ds_array src;
        ds_scalar fill;
        rc = ds__arg_array(r, "x", &src) < 0 ||
                     ds__arg_scalar(r, "fill_value", true, &fill, NULL) < 0
                 ? -1
                 : CALL(r, full_like, src, fill, dtype, dev, &x);
    } else if (strcmp(fn, "fftfreq") == 0 || strcmp(fn, "rfftfreq") == 0) {
        int64_t n;
        ds_scalar d = {.kind = DS_SCALAR_FLOAT, .f = 1.0};
        rc = ds__arg_int(r, "n", true, 0, &n) < 0 || ds__arg_scalar(r, "d", false, &d, NULL) < 0
                 ? -1
             : d.kind == DS_SCALAR_COMPLEX
                 ? ds__fail(r->e, PROTO, "TypeError", "%s: the spacing d must be real", r->op)
                 : CALL(r, fftfreq, fn[0] == 'r', n,
                        d.kind == DS_SCALAR_FLOAT ? d.f
                        : d.kind == DS_SCALAR_INT ? (d.u ? (double)(uint64_t)d.i : (double)d.i)
                                                  : d.b,
                        dtype, dev, &x);
    } else {
        return ds__fail(r->e, PROTO, "ValueError", "%s: unknown creation function \"%.40s\"", r->op,
                        fn);
    }
    if (rc < 0) return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_asarray(const ds__req *r, cJSON **result)
{
    const cJSON *obj = ds__arg(r, "obj");
    ds_dtype dtype;
    ds_device dev;
    ds_copy copy;
    ds_array x = NULL;
    int rc;
    if (ds__arg_dtype(r, "dtype", false, &dtype) < 0 ||
        ds__arg_device(r, "device", false, &dev) < 0 || ds__arg_copy(r, "copy", &copy) < 0)
        return -1;
    if (obj == NULL) return ds__arg_missing(r, "obj");
    if (cJSON_IsString(obj)) {
        ds_array src;
        rc = ds__arg_handle(r, obj, "obj", DS__H_ARRAY, &src) < 0
                 ? -1
                 : CALL(r, asarray_array, src, dtype, dev, copy, &x);
    } else if (ds__is_scalar(obj)) {
        ds_scalar sc;
        rc = ds__arg_scalar(r, "obj", true, &sc, NULL) < 0
                 ? -1
                 : CALL(r, asarray_scalar, sc, dtype, dev, copy, &x);
    } else if (cJSON_IsObject(obj)) {
        ds_buffer buf;
        if (ds__buffer_decode(obj, "obj", &buf, r->e) < 0) return -1;
        rc = CALL(r, asarray_buffer, &buf, dtype, dev, copy, &x);
        ds__buffer_clear(&buf);
    } else {
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'obj' must be a typed array, a scalar or an array handle",
                        r->op);
    }
    if (rc < 0) return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_astype(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_dtype dtype;
    bool copy;
    ds_device dev;
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_dtype(r, "dtype", true, &dtype) < 0 ||
        ds__arg_bool(r, "copy", false, true, &copy) < 0 ||
        ds__arg_device(r, "device", false, &dev) < 0 ||
        CALL(r, astype, src, dtype, copy, dev, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

static int describe_array(const ds__req *r, ds_array x, ds_array_info *info)
{
    memset(info, 0, sizeof *info);
    if (CALL(r, describe, x, info) < 0) return -1;
    if (info->ndim < 0 || info->ndim > DS_MAX_NDIM || ds_dtype_name(info->dtype) == NULL ||
        ds__shape_count(info->shape, info->ndim) < 0) {
        ds__release_obj(r, DS__H_DEVICE, info->device);
        info->device = NULL;
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: the describe callback returned an invalid dtype or shape", r->op);
    }
    return 0;
}

int ds__op_array_describe(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_array_info info;
    cJSON *dev = NULL;
    if (ds__arg_array(r, "array", &x) < 0 || describe_array(r, x, &info) < 0 ||
        ds__device_result(r, info.device, &dev) < 0)
        return -1;
    cJSON *o = cJSON_CreateObject(), *shape = NULL;
    bool ok = o != NULL && ds__put(o, "device", dev) &&
              ds__put(o, "dtype", cJSON_CreateString(ds_dtype_name(info.dtype))) &&
              ds__put(o, "shape", (shape = cJSON_CreateArray()));
    if (o == NULL) cJSON_Delete(dev);
    for (int k = 0; ok && k < info.ndim; k++)
        ok = ds__push(shape, dsj_create_int64(info.shape[k])); /* exact beyond 2^53 */
    if (!ok) {
        cJSON_Delete(o);
        return ds__oom(r);
    }
    *result = o;
    return 0;
}

/* The longest text one element of DTYPE takes in a typed array, with its comma:
 * "-9223372036854775808", "\"18446744073709551615\"", "-2.2250738585072014e-308", a complex
 * pair of two of those in brackets. */
static unsigned element_text_max(ds_dtype dtype)
{
    switch (dtype) {
    case DS_BOOL:
        return 6;
    case DS_COMPLEX64:
    case DS_COMPLEX128:
        return 2 * 26 + 3;
    default:
        return 26;
    }
}

int ds__op_array_read(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_array_info info;
    ds_buffer buf = {0};
    if (ds__arg_array(r, "array", &x) < 0 || describe_array(r, x, &info) < 0) return -1;
    /* describe's device is not needed here. */
    ds__release_obj(r, DS__H_DEVICE, info.device);
    buf.dtype = info.dtype;
    buf.ndim = info.ndim;
    memcpy(buf.shape, info.shape, sizeof buf.shape);
    int64_t count = ds__shape_count(info.shape, info.ndim);
    /* A reply of more elements would be hundreds of megabytes of JSON: refused, by name. */
    if (count > DS_MAX_READ_ELEMENTS)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError",
                        "%s: the array has %" PRId64 " elements, more than the %d a reply carries",
                        r->op, count, DS_MAX_READ_ELEMENTS);
    /* Refused before anything is allocated when the longest text its elements could take
     * passes the reply limit: memory stays bounded by the limit, whatever the values. */
    if (count > 0 &&
        (uint64_t)count > (uint64_t)DS_PROTOCOL_MAX_REPLY / element_text_max(info.dtype))
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "MemoryError",
                        "%s: %" PRId64 " elements of %s may take more than the %d bytes a reply "
                        "line may hold",
                        r->op, count, ds_dtype_name(info.dtype), DS_PROTOCOL_MAX_REPLY);
    buf.nbytes = (size_t)count * ds_dtype_size(info.dtype);
    if (buf.nbytes > 0 && (buf.data = ds__malloc(buf.nbytes)) == NULL) return ds__oom(r);
    int rc = CALL(r, read, x, buf.data, buf.nbytes);
    if (rc == 0) rc = ds__buffer_encode(&buf, DS_PROTOCOL_MAX_REPLY, result, r->e);
    ds__buffer_clear(&buf);
    return rc;
}

int ds__op_array_to_device(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device dev;
    ds_stream stream;
    if (ds__arg_array(r, "array", &src) < 0 || ds__arg_device(r, "device", true, &dev) < 0 ||
        ds__arg_stream(r, "stream", &stream) < 0 || CALL(r, to_device, src, dev, stream, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_same(const ds__req *r, cJSON **result)
{
    ds_array a, b;
    if (ds__arg_array(r, "a", &a) < 0 || ds__arg_array(r, "b", &b) < 0) return -1;
    *result = cJSON_CreateBool(a == b);
    return 0;
}

int ds__op_array_binary(const ds__req *r, cJSON **result)
{
    ds_operand x1, x2;
    ds_array x = NULL;
    static const ds__fn_name fns[] = {DS__FNS_ARRAY_BINARY(DS__FN_ROW){NULL, 0}};
    int which;
    if (ds__arg_fn(r, fns, &which) < 0) return -1;
    if (ds__arg_operand(r, "x1", &x1) < 0 || ds__arg_operand(r, "x2", &x2) < 0 ||
        CALL(r, binary, (ds_binary_fn)which, x1, x2, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_unary(const ds__req *r, cJSON **result)
{
    static const ds__fn_name fns[] = {DS__FNS_ARRAY_UNARY(DS__FN_ROW){NULL, 0}};
    ds_array src, x = NULL;
    int which;
    if (ds__arg_fn(r, fns, &which) < 0) return -1;
    if (ds__arg_array(r, "x", &src) < 0 || CALL(r, unary, (ds_unary_fn)which, src, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_reduce(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    int64_t axis;
    const cJSON *jaxis = ds__arg(r, "axis");
    bool has_axis = jaxis != NULL && !cJSON_IsNull(jaxis);
    static const ds__fn_name fns[] = {DS__FNS_ARRAY_REDUCE(DS__FN_ROW){NULL, 0}};
    int which;
    if (ds__arg_fn(r, fns, &which) < 0) return -1;
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_int(r, "axis", false, 0, &axis) < 0 ||
        CALL(r, reduce, (ds_reduce_fn)which, src, has_axis ? &axis : NULL, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_matmul(const ds__req *r, cJSON **result)
{
    ds_array a, b, x = NULL;
    if (ds__arg_array(r, "x1", &a) < 0 || ds__arg_array(r, "x2", &b) < 0 ||
        CALL(r, matmul, a, b, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_stack(const ds__req *r, cJSON **result)
{
    const cJSON *list = ds__arg(r, "arrays");
    int64_t axis;
    ds_array x = NULL;
    if (ds__arg_int(r, "axis", false, 0, &axis) < 0) return -1;
    if (list == NULL) return ds__arg_missing(r, "arrays");
    if (!cJSON_IsArray(list))
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'arrays' must be a list of array handles", r->op);
    int n = cJSON_GetArraySize(list);
    ds_array *xs = ds__calloc(n > 0 ? (size_t)n : 1, sizeof *xs);
    if (xs == NULL) return ds__oom(r);
    int i = 0, rc = 0;
    for (const cJSON *h = list->child; h && rc == 0; h = h->next, i++) {
        char name[32];
        snprintf(name, sizeof name, "arrays[%d]", i);
        rc = ds__arg_handle(r, h, name, DS__H_ARRAY, &xs[i]);
    }
    if (rc == 0) rc = CALL(r, stack, xs, (size_t)n, axis, &x);
    ds__free(xs);
    if (rc < 0) return -1;
    return ds__array_result(r, x, result);
}

static int shard_common(const ds__req *r, bool inplace, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device devs[DS_MAX_SHARDS];
    size_t n = 0;
    int64_t axis;
    const cJSON *jaxis = ds__arg(r, "axis");
    bool has_axis = jaxis != NULL && !cJSON_IsNull(jaxis);
    if (ds__arg_array(r, "x", &src) < 0 ||
        ds__arg_devices(r, "devices", devs, DS_MAX_SHARDS, &n) < 0 ||
        ds__arg_int(r, "axis", false, 0, &axis) < 0 ||
        CALL(r, shard, src, devs, n, has_axis ? &axis : NULL, inplace, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_shard(const ds__req *r, cJSON **result)
{
    return shard_common(r, false, result);
}

int ds__op_array_shard_inplace(const ds__req *r, cJSON **result)
{
    return shard_common(r, true, result);
}

int ds__op_array_shard_describe(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_devobj devices[DS_MAX_SHARDS] = {0};
    int64_t bounds[2 * DS_MAX_SHARDS];
    ds_shard_layout l = {.devices = devices, .bounds = bounds};
    if (ds__arg_array(r, "array", &x) < 0) return -1;
    int rc = CALL(r, shard_describe, x, &l);
    /* Every device object the callback made is the session's, also on failure. */
    size_t made = l.n <= DS_MAX_SHARDS ? l.n : DS_MAX_SHARDS;
    if (rc == 0 && (l.n < 1 || l.n > DS_MAX_SHARDS || (l.split && l.axis < 0)))
        rc = ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                      "%s: the shard_describe callback returned %zu pieces or a negative axis",
                      r->op, l.n);
    cJSON *o = rc == 0 ? cJSON_CreateObject() : NULL, *devs = NULL, *jb = NULL;
    bool ok =
        o != NULL && ds__put(o, "sharded", cJSON_CreateBool(l.sharded)) &&
        ds__put(o, "devices", (devs = cJSON_CreateArray())) &&
        ds__put(o, "axis", l.split ? cJSON_CreateNumber((double)l.axis) : cJSON_CreateNull()) &&
        ds__put(o, "bounds", l.split ? (jb = cJSON_CreateArray()) : cJSON_CreateNull());
    for (size_t i = 0; i < made; i++) {
        cJSON *h = NULL;
        if (!ok || rc != 0) {
            ds__release_obj(r, DS__H_DEVICE, devices[i]);
            continue;
        }
        if (ds__device_result(r, devices[i], &h) < 0) {
            rc = -1;
            continue;
        }
        ok = ds__push(devs, h);
        if (ok && l.split) {
            cJSON *pair = cJSON_CreateArray();
            ok = ds__push(jb, pair) && ds__push(pair, cJSON_CreateNumber((double)bounds[2 * i])) &&
                 ds__push(pair, cJSON_CreateNumber((double)bounds[2 * i + 1]));
        }
    }
    if (rc != 0 || !ok) {
        cJSON_Delete(o);
        return rc != 0 ? -1 : ds__oom(r);
    }
    *result = o;
    return 0;
}

int ds__op_array_shard_piece(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    int64_t index;
    if (ds__arg_array(r, "array", &src) < 0 || ds__arg_int(r, "index", true, 0, &index) < 0)
        return -1;
    if (index < 0)
        return ds__fail(r->e, PROTO, "ValueError", "%s: index must be >= 0, got %" PRId64, r->op,
                        index);
    if (CALL(r, shard_piece, src, (size_t)index, &x) < 0) return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_to_devices(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device devs[DS_MAX_SHARDS];
    size_t n = 0;
    if (ds__arg_array(r, "array", &src) < 0 ||
        ds__arg_devices(r, "devices", devs, DS_MAX_SHARDS, &n) < 0 ||
        CALL(r, to_devices, src, devs, n, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_dlpack_device(const ds__req *r, cJSON **result)
{
    ds_array x;
    int32_t type = 0, id = 0;
    if (ds__arg_array(r, "array", &x) < 0 || CALL(r, dlpack_device, x, &type, &id) < 0) return -1;
    cJSON *pair = cJSON_CreateArray();
    if (pair == NULL || !ds__push(pair, cJSON_CreateNumber(type)) ||
        !ds__push(pair, cJSON_CreateNumber(id))) {
        cJSON_Delete(pair);
        return ds__oom(r);
    }
    *result = pair;
    return 0;
}

/* array.dlpack's dl_device: null/absent, or [device_type, device_id] (two int32). */
static int arg_dl_device(const ds__req *r, int32_t dev[2], bool *given)
{
    const cJSON *v = ds__arg(r, "dl_device");
    *given = false;
    if (v == NULL || cJSON_IsNull(v)) return 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 || !ds__is_int(v->child) ||
        !ds__is_int(v->child->next) || v->child->valuedouble < INT32_MIN ||
        v->child->valuedouble > INT32_MAX || v->child->next->valuedouble < INT32_MIN ||
        v->child->next->valuedouble > INT32_MAX)
        return ds__fail(r->e, PROTO, "TypeError",
                        "%s: argument 'dl_device' must be null or [device_type, device_id], two "
                        "int32",
                        r->op);
    dev[0] = (int32_t)v->child->valuedouble;
    dev[1] = (int32_t)v->child->next->valuedouble;
    *given = true;
    return 0;
}

/* __dlpack__'s stream: null/absent (*given false), an integer, or a stream handle of this
 * session, passed as the address of the library's stream object: the number by which a C
 * library that shares a convention with its consumers names its queues (DEV-DLP-3; refarray's
 * OpenCL queues, DEV-DLP-11). */
static int arg_dlpack_stream(const ds__req *r, int64_t *stream, bool *given)
{
    const cJSON *v = ds__arg(r, "stream");
    ds_stream obj = NULL;
    *given = v != NULL && !cJSON_IsNull(v);
    if (!cJSON_IsString(v)) return ds__arg_int(r, "stream", false, 0, stream);
    if (ds__arg_stream(r, "stream", &obj) < 0) return -1;
    *stream = (int64_t)(intptr_t)obj;
    return 0;
}

/* Calls dlpack_export and checks what it gave: a tensor of DLPack major version 1. */
static int export_tensor(const ds__req *r, ds_array x, const int32_t *dl_device, ds_copy copy,
                         const int64_t *stream, DLManagedTensorVersioned **t)
{
    *t = NULL;
    if (CALL(r, dlpack_export, x, dl_device, copy, stream, t) < 0) return -1;
    if (*t == NULL)
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: dlpack_export succeeded but returned no tensor", r->op);
    if ((*t)->version.major != DLPACK_MAJOR_VERSION) {
        unsigned major = (*t)->version.major;
        if ((*t)->deleter) (*t)->deleter(*t);
        *t = NULL;
        return ds__fail(r->e, DS__ORIGIN_ADAPTER, "RuntimeError",
                        "%s: dlpack_export gave a tensor of DLPack %u.x, not %d.x", r->op, major,
                        DLPACK_MAJOR_VERSION);
    }
    return 0;
}

static void delete_tensor(DLManagedTensorVersioned *t)
{
    if (t && t->deleter) t->deleter(t);
}

/* array.dlpack through the version 7 slot dlpack_export: the tensor's device, its IS_COPIED
 * flag and whether its data is what a plain export (no dl_device, copy null) shares. */
int ds__op_array_dlpack(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_copy copy;
    int32_t dev[2];
    bool has_dev;
    int64_t stream = 0;
    bool has_stream;
    if (ds__arg_array(r, "array", &x) < 0 || arg_dl_device(r, dev, &has_dev) < 0 ||
        ds__arg_copy(r, "copy", &copy) < 0 || arg_dlpack_stream(r, &stream, &has_stream) < 0)
        return -1;
    if (DS__SLOT(r->v, dlpack_export) == NULL) return ds__no_slot(r);
    DLManagedTensorVersioned *t = NULL, *plain = NULL;
    if (export_tensor(r, x, has_dev ? dev : NULL, copy, has_stream ? &stream : NULL, &t) < 0)
        return -1;
    if (export_tensor(r, x, NULL, DS_COPY_IF_NEEDED, NULL, &plain) < 0) {
        delete_tensor(t);
        return -1;
    }
    const DLTensor *a = &t->dl_tensor, *b = &plain->dl_tensor;
    bool shares = a->data != NULL && a->data == b->data && a->byte_offset == b->byte_offset &&
                  a->device.device_type == b->device.device_type &&
                  a->device.device_id == b->device.device_id;
    cJSON *res = cJSON_CreateObject(), *jdev = NULL;
    bool ok =
        res != NULL && ds__put(res, "device", (jdev = cJSON_CreateArray())) &&
        ds__push(jdev, cJSON_CreateNumber(a->device.device_type)) &&
        ds__push(jdev, cJSON_CreateNumber(a->device.device_id)) &&
        ds__put(res, "copied", cJSON_CreateBool((t->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0)) &&
        ds__put(res, "shares_memory", cJSON_CreateBool(shares));
    delete_tensor(t);
    delete_tensor(plain);
    if (!ok) {
        cJSON_Delete(res);
        return ds__oom(r);
    }
    *result = res;
    return 0;
}

/* The two address ops pass DLPack tensors between the library and a peer in the same
 * process (an in-process host such as the Python adapter's `array.exchange`), through the
 * protocol: only for a session whose hello asked for them, since an address is trusted. */
static int addresses_allowed(const ds__req *r)
{
    if (r->s->dlpack_addresses) return 0;
    return ds__fail(r->e, PROTO, "ValueError",
                    "%s: this session's hello did not ask for dlpack_addresses (only a caller in "
                    "the adapter's process may pass tensor addresses)",
                    r->op);
}

/* array.dlpack_export_address: dlpack_export's tensor, handed over by its address. */
int ds__op_array_dlpack_export_address(const ds__req *r, cJSON **result)
{
    ds_array x;
    ds_copy copy;
    int32_t dev[2];
    bool has_dev;
    int64_t stream = 0;
    bool has_stream;
    if (addresses_allowed(r) < 0 || ds__arg_array(r, "array", &x) < 0 ||
        arg_dl_device(r, dev, &has_dev) < 0 || ds__arg_copy(r, "copy", &copy) < 0 ||
        arg_dlpack_stream(r, &stream, &has_stream) < 0)
        return -1;
    if (DS__SLOT(r->v, dlpack_export) == NULL) return ds__no_slot(r);
    DLManagedTensorVersioned *t = NULL;
    if (export_tensor(r, x, has_dev ? dev : NULL, copy, has_stream ? &stream : NULL, &t) < 0)
        return -1;
    char text[32];
    snprintf(text, sizeof text, "%" PRIuPTR, (uintptr_t)t);
    cJSON *res = cJSON_CreateObject();
    if (res == NULL || !ds__put(res, "address", cJSON_CreateString(text))) {
        cJSON_Delete(res);
        delete_tensor(t);
        return ds__oom(r);
    }
    *result = res;
    return 0;
}

/* array.dlpack_import_address: the import slot takes a tensor any producer of this process
 * made (it calls the deleter once, also on failure). */
int ds__op_array_dlpack_import_address(const ds__req *r, cJSON **result)
{
    const char *text;
    ds_device dev;
    ds_copy copy;
    ds_array x = NULL;
    if (addresses_allowed(r) < 0 || ds__arg_string(r, "address", &text) < 0 ||
        ds__arg_device(r, "device", false, &dev) < 0 || ds__arg_copy(r, "copy", &copy) < 0)
        return -1;
    uint64_t address = 0;
    if (!dsj_parse_uint64(text, &address) || address == 0 || address > UINTPTR_MAX)
        return ds__fail(r->e, PROTO, "ValueError",
                        "%s: argument 'address' must be a non-zero address in decimal, not "
                        "\"%.40s\"",
                        r->op, text);
    if (DS__SLOT(r->v, dlpack_import) == NULL) return ds__no_slot(r);
    if (CALL(r, dlpack_import, (DLManagedTensorVersioned *)(uintptr_t)address, dev, copy, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

/* from_dlpack: the table's own slot, or else the library's export handed to its import (the
 * version 7 slots), as a consumer takes a producer's tensor. */
int ds__op_array_from_dlpack(const ds__req *r, cJSON **result)
{
    ds_array src, x = NULL;
    ds_device dev;
    ds_copy copy;
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_device(r, "device", false, &dev) < 0 ||
        ds__arg_copy(r, "copy", &copy) < 0)
        return -1;
    if (DS__SLOT(r->v, from_dlpack) == NULL && DS__SLOT(r->v, dlpack_export) != NULL &&
        DS__SLOT(r->v, dlpack_import) != NULL) {
        DLManagedTensorVersioned *t = NULL;
        if (export_tensor(r, src, NULL, copy, NULL, &t) < 0) return -1;
        /* The import slot takes the tensor, also when it fails. */
        if (CALL(r, dlpack_import, t, dev, copy, &x) < 0) return -1;
        return ds__array_result(r, x, result);
    }
    if (CALL(r, from_dlpack, src, dev, copy, &x) < 0) return -1;
    return ds__array_result(r, x, result);
}

/* DLPack 1.3's C exchange API hangs on a Python array type (DEV-DLP-23); a C library has
 * none, so the table is absent. */
int ds__op_array_dlpack_c_exchange_api(const ds__req *r, cJSON **result)
{
    ds_array x;
    if (ds__arg_array(r, "array", &x) < 0) return -1;
    cJSON *res = cJSON_CreateObject();
    if (res == NULL || !ds__put(res, "present", cJSON_CreateFalse())) {
        cJSON_Delete(res);
        return ds__oom(r);
    }
    *result = res;
    return 0;
}

/* A C library reaches no peer library of its own: array.exchange answers NotImplementedError
 * until the table has a slot for it. */
int ds__op_array_exchange(const ds__req *r, cJSON **result)
{
    ds_array x;
    (void)result;
    if (ds__arg_array(r, "array", &x) < 0) return -1;
    return ds__no_slot(r);
}

int ds__op_stream_default(const ds__req *r, cJSON **result)
{
    ds_device dev;
    ds_stream st = NULL;
    if (ds__arg_device(r, "device", true, &dev) < 0 || CALL(r, stream_default, dev, &st) < 0)
        return -1;
    return ds__handle_result(r, DS__H_STREAM, st, false, result);
}

static int tri(const ds__req *r, bool upper, cJSON **result)
{
    ds_array src, x = NULL;
    int64_t k;
    if (ds__arg_array(r, "x", &src) < 0 || ds__arg_int(r, "k", false, 0, &k) < 0 ||
        CALL(r, tri, upper, src, k, &x) < 0)
        return -1;
    return ds__array_result(r, x, result);
}

int ds__op_array_tril(const ds__req *r, cJSON **result)
{
    return tri(r, false, result);
}

int ds__op_array_triu(const ds__req *r, cJSON **result)
{
    return tri(r, true, result);
}

int ds__op_array_binary_into(const ds__req *r, cJSON **result)
{
    ds_operand x1, x2;
    ds_array out;
    static const ds__fn_name fns[] = {DS__FNS_ARRAY_BINARY_INTO(DS__FN_ROW){NULL, 0}};
    int which;
    if (ds__arg_fn(r, fns, &which) < 0) return -1;
    if (ds__arg_operand(r, "x1", &x1) < 0 || ds__arg_operand(r, "x2", &x2) < 0 ||
        ds__arg_array(r, "out", &out) < 0 ||
        CALL(r, binary_into, (ds_binary_fn)which, x1, x2, out) < 0)
        return -1;
    *result = cJSON_CreateNull();
    return *result ? 0 : ds__oom(r);
}

int ds__op_array_get_device(const ds__req *r, cJSON **result)
{
    ds_array x;
    int64_t ordinal = 0;
    if (ds__arg_array(r, "array", &x) < 0 || CALL(r, array_get_device, x, &ordinal) < 0) return -1;
    *result = cJSON_CreateNumber((double)ordinal);
    return *result ? 0 : ds__oom(r);
}
