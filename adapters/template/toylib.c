/* toylib: the stand-in library of the template (see toylib.h). */
#include "toylib.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_error[256];
static _Atomic long live; /* arrays made and not yet freed */

long toy_live_arrays(void)
{
    return live;
}

static int fail(int status, const char *message, const char *detail)
{
    snprintf(last_error, sizeof last_error, "%s%s", message, detail ? detail : "");
    return status;
}

const char *toy_last_error(void)
{
    return last_error;
}

int toy_device_parse(const char *text, int *device)
{
    if (strcmp(text, "toy") == 0 || strcmp(text, "toy:0") == 0)
        *device = 0;
    else if (strcmp(text, "toy:1") == 0)
        *device = 1;
    else
        return fail(TOY_E_DEVICE, "unknown device: ", text);
    return TOY_OK;
}

static int make(const int64_t *shape, int ndim, int dtype, size_t itemsize, int device, bool borrow,
                toy_array **out)
{
    size_t count = 1;
    bool too_big = false;
    if (ndim < 0 || ndim > TOY_MAX_NDIM || itemsize == 0)
        return fail(TOY_E_ARG, "bad rank or element size", NULL);
    if (device < 0 || device >= TOY_NUM_DEVICES) return fail(TOY_E_DEVICE, "no such device", NULL);
    bool empty = false;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] < 0) return fail(TOY_E_ARG, "negative dimension", NULL);
        if (shape[k] == 0)
            empty = true; /* empty, however large the other dimensions */
        else if (too_big || count > TOY_MAX_BYTES / itemsize / (size_t)shape[k])
            too_big = true; /* the product is never formed, so it cannot wrap */
        else
            count *= (size_t)shape[k];
    }
    if (empty)
        count = 0;
    else if (too_big)
        return fail(TOY_E_NOMEM, "array larger than the toy library's limit of 256 MiB", NULL);
    toy_array *x = calloc(1, sizeof *x);
    if (x == NULL || (count > 0 && !borrow && (x->data = calloc(count, itemsize)) == NULL)) {
        free(x);
        return fail(TOY_E_NOMEM, "out of memory", NULL);
    }
    x->device = device;
    x->dtype = dtype;
    x->itemsize = itemsize;
    x->ndim = ndim;
    memcpy(x->shape, shape, (size_t)ndim * sizeof *shape);
    x->nbytes = count * itemsize;
    x->refs = 1;
    live++;
    *out = x;
    return TOY_OK;
}

int toy_zeros(const int64_t *shape, int ndim, int dtype, size_t itemsize, int device,
              toy_array **out)
{
    return make(shape, ndim, dtype, itemsize, device, false, out);
}

int toy_from_host(const void *data, const int64_t *shape, int ndim, int dtype, size_t itemsize,
                  int device, toy_array **out)
{
    int st = make(shape, ndim, dtype, itemsize, device, false, out);
    if (st == TOY_OK && (*out)->nbytes > 0) memcpy((*out)->data, data, (*out)->nbytes);
    return st;
}

int toy_to_device(const toy_array *x, int device, toy_array **out)
{
    return toy_from_host(x->data, x->shape, x->ndim, x->dtype, x->itemsize, device, out);
}

int toy_wrap(void *data, const int64_t *shape, int ndim, int dtype, size_t itemsize, int device,
             void (*release_data)(void *owner), void *owner, toy_array **out)
{
    int st = make(shape, ndim, dtype, itemsize, device, true, out);
    if (st != TOY_OK) {
        if (release_data) release_data(owner);
        return st;
    }
    (*out)->data = data;
    (*out)->release_data = release_data;
    (*out)->owner = owner;
    return TOY_OK;
}

int toy_add(const toy_array *x1, const toy_array *x2, toy_element element, toy_array **out)
{
    static const size_t sizes[] = {0, 4, 8, 4, 8};
    if (x1->device != x2->device) return fail(TOY_E_DEVICE, "add: arrays on two devices", NULL);
    if (x1->dtype != x2->dtype || x1->ndim != x2->ndim ||
        memcmp(x1->shape, x2->shape, (size_t)x1->ndim * sizeof *x1->shape) != 0)
        return fail(TOY_E_MISMATCH, "add: the arrays differ in dtype or shape", NULL);
    if (element < TOY_F32 || element > TOY_I64 || sizes[element] != x1->itemsize)
        return fail(TOY_E_ARG, "add: an element type the toy cannot add", NULL);
    int st = make(x1->shape, x1->ndim, x1->dtype, x1->itemsize, x1->device, false, out);
    size_t n = st == TOY_OK ? x1->nbytes / x1->itemsize : 0;
    for (size_t i = 0; i < n; i++) {
        void *r = (*out)->data + i * x1->itemsize;
        const void *a = x1->data + i * x1->itemsize, *b = x2->data + i * x1->itemsize;
        if (element == TOY_F32)
            *(float *)r = *(const float *)a + *(const float *)b;
        else if (element == TOY_F64)
            *(double *)r = *(const double *)a + *(const double *)b;
        else if (element == TOY_I32) /* wraps, as the standard's int32 does */
            *(int32_t *)r =
                (int32_t)((uint32_t) * (const int32_t *)a + (uint32_t) * (const int32_t *)b);
        else
            *(int64_t *)r =
                (int64_t)((uint64_t) * (const int64_t *)a + (uint64_t) * (const int64_t *)b);
    }
    return st;
}

toy_array *toy_retain(toy_array *x)
{
    if (x) x->refs++;
    return x;
}

void toy_free(toy_array *x)
{
    if (x == NULL || --x->refs > 0) return;
    live--;
    if (x->release_data)
        x->release_data(x->owner);
    else
        free(x->data);
    free(x);
}
