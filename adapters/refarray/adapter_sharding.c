/*
 * adapter_sharding.c: refarray's adapter for sharded arrays (shard, their layout, their
 * pieces, moving to a device tuple).
 */
#include "adapter_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- sharding ---- */

/* The n device arguments of a tuple as refarray devices (at most DS_MAX_SHARDS). */
static int device_tuple(adapter *a, const ds_device *devices, size_t n, const char *what,
                        ra_device *out)
{
    if (n > DS_MAX_SHARDS) {
        ds_error("ValueError", "%s: %zu devices; the adapter handles at most %d", what, n,
                 DS_MAX_SHARDS);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int st = refarray_device_value(a, devices[i], what, &out[i]);
        if (st != 0) return st;
    }
    return 0;
}

int refarray_shard(void *lib, ds_array x, const ds_device *devices, size_t n, const int64_t *axis,
                   bool inplace, ds_array *out)
{
    adapter *a = lib;
    ra_device devs[DS_MAX_SHARDS];
    int st = device_tuple(a, devices, n, inplace ? "shard_inplace" : "shard", devs);
    if (st != 0) return st;
    int ax = 0;
    if (axis != NULL) {
        if (*axis < INT_MIN || *axis > INT_MAX) {
            ds_error("IndexError", "shard: axis %lld is out of range", (long long)*axis);
            return -1;
        }
        ax = (int)*axis;
    }
    ra_shard_opts opts = {.size = sizeof opts, .uneven = a->shard_uneven};
    if (!inplace) return ra_shard(a->ctx, x, devs, n, axis ? &ax : NULL, &opts, (ra_array **)out);
    st = ra_shard_inplace(a->ctx, x, devs, n, axis ? &ax : NULL, &opts);
    if (st != RA_OK) return st;
    /* shard_ returns the array itself: a new reference, since each handle releases once. */
    *out = ra_array_retain(x);
    return 0;
}

int refarray_shard_describe(void *lib, ds_array x, ds_shard_layout *out)
{
    size_t n = ra_shard_count(x);
    out->sharded = n > 0;
    if (n == 0) {
        out->n = 1;
        out->split = false;
        return refarray_new_device(ra_array_device(x), &out->devices[0]);
    }
    if (n > DS_MAX_SHARDS) {
        ds_error("ValueError", "the array has %zu pieces; the adapter reports at most %d", n,
                 DS_MAX_SHARDS);
        return -1;
    }
    int axis = ra_shard_axis(x);
    out->split = axis != RA_SHARD_REPLICATED;
    out->axis = axis;
    for (size_t i = 0; i < n; i++) {
        if (out->split) {
            int st = ra_shard_bounds(x, i, &out->bounds[2 * i], &out->bounds[2 * i + 1]);
            if (st != RA_OK) return st;
        }
        /* The shim owns the objects made so far, even on a later failure. */
        out->n = i + 1;
        if (refarray_new_device(ra_shard_device(x, i), &out->devices[i]) < 0) return -1;
    }
    return 0;
}

int refarray_shard_piece(void *lib, ds_array x, size_t index, ds_array *out)
{
    const ra_array *p = ra_shard_piece(x, index);
    if (p == NULL) {
        if (ra_shard_count(x) == 0)
            ds_error("ValueError", "shard_piece: the array is not sharded");
        else
            ds_error("IndexError", "shard_piece: piece %zu of %zu", index, ra_shard_count(x));
        return -1;
    }
    /* A piece is borrowed from its sharded array; the handle holds its own reference. */
    *out = ra_array_retain(p);
    return 0;
}

int refarray_to_devices(void *lib, ds_array x, const ds_device *devices, size_t n, ds_array *out)
{
    adapter *a = lib;
    ra_device devs[DS_MAX_SHARDS];
    int st = device_tuple(a, devices, n, "to_devices", devs);
    return st != 0 ? st : ra_shard_to(a->ctx, x, devs, n, (ra_array **)out);
}
