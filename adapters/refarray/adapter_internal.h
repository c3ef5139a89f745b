/*
 * adapter_internal.h: what the files of refarray's adapter share (adapter.c: the session,
 * the features, creation and arrays, and the vendor table; adapter_devices.c: devices, info,
 * the default device and soft mode, utilities; adapter_sharding.c: sharded arrays), private
 * to them.
 */
#ifndef DEVSPEC_ADAPTER_INTERNAL_H
#define DEVSPEC_ADAPTER_INTERNAL_H

#include "devspec_shim.h"
#include "refarray.h"

/* The most features the adapter can claim (adapter.c checks its table against it). */
#define ADAPTER_MAX_FEATURES 96

/* ---- the adapter's state ---- */

typedef struct adapter {
    ra_ctx *ctx;
    int version; /* the loaded refarray's ra_version_number() */
    bool legacy;
    ra_promotion promotion;
    int soft_depth;               /* soft.set calls not yet undone by soft.unset */
    ra_shard_uneven shard_uneven; /* DEVSPEC_REFARRAY_SHARD_UNEVEN */
    const char *claimed[ADAPTER_MAX_FEATURES + 1];
    char message[1024];
} adapter;

/* refarray's context behind the adapter's `lib`. */
static inline ra_ctx *refarray_ctx(void *lib)
{
    return ((adapter *)lib)->ctx;
}

/* ---- adapter_devices.c ----
 * The functions named after a slot of the vendor table (devspec_shim.h) are that slot. */

int refarray_new_device(ra_device d, ds_devobj *out);
void refarray_release_device(void *lib, ds_devobj d);
/* A device value for functions that take one: a handle's device, or a parsed string. None
 * is not a device in refarray's API. */
int refarray_device_value(adapter *a, ds_device d, const char *what, ra_device *out);
/* The device option of a creation function: nothing, a value, or a string. */
ra_opts refarray_make_opts(ds_dtype dtype, ds_device d);
int refarray_device_parse(void *lib, const char *text, ds_devobj *out);
int refarray_device_describe(void *lib, ds_devobj obj, ds_device_info *out);
int refarray_device_equal(void *lib, ds_devobj x, ds_devobj y, bool *out);
int refarray_device_from_type_index(void *lib, const char *type, int64_t index, ds_devobj *out);
int refarray_device_from_ordinal(void *lib, int64_t ordinal, ds_devobj *out);
int refarray_device_parse_current(void *lib, const char *text, ds_devobj *out);
int refarray_device_set_current(void *lib, ds_devobj d);
int refarray_array_get_device(void *lib, ds_array x, int64_t *out);
int refarray_info_devices(void *lib, ds_devobj *out, size_t cap, size_t *n);
int refarray_info_default_device(void *lib, ds_devobj *out);
int refarray_info_default_dtypes(void *lib, ds_device device, ds_default_dtypes *out);
int refarray_info_dtypes(void *lib, ds_device device, uint32_t *out);
int refarray_default_get(void *lib, ds_devobj *out);
int refarray_default_set(void *lib, ds_device device);
int refarray_default_unset(void *lib);
int refarray_default_push(void *lib, ds_device device);
int refarray_default_pop(void *lib);
int refarray_soft_get(void *lib, bool *out);
int refarray_soft_set(void *lib, bool enabled);
int refarray_soft_unset(void *lib);
/* Between cases: leave every scope, undo every soft.set, restore the global default. */
int refarray_reset(void *lib);
int refarray_num_gpus(void *lib, int64_t *out);
int refarray_num_cpu_cores(void *lib, int64_t *out);
int refarray_total_memory(void *lib, ds_device device, int64_t *out);
int refarray_used_memory(void *lib, ds_device device, int64_t *out);
int refarray_utilisation(void *lib, ds_device device, double *out);

/* ---- adapter_sharding.c ---- */

int refarray_shard(void *lib, ds_array x, const ds_device *devices, size_t n, const int64_t *axis,
                   bool inplace, ds_array *out);
int refarray_shard_describe(void *lib, ds_array x, ds_shard_layout *out);
int refarray_shard_piece(void *lib, ds_array x, size_t index, ds_array *out);
int refarray_to_devices(void *lib, ds_array x, const ds_device *devices, size_t n, ds_array *out);

#endif /* DEVSPEC_ADAPTER_INTERNAL_H */
