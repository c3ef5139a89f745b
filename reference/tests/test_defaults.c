/* Tests of default devices, scoped defaults, soft device mode, the inference order, the
 * inspection functions and the device utilities. Where a second device is needed, the
 * tests use the context's gpu devices and skip with the reason when there are none. */
#include "ra_test.h"

static ra_device devs[16];
static size_t ndevs;

static ra_device dev_at(size_t i)
{
    return devs[i];
}

static void global_default_(ra_ctx *ctx)
{
    ra_device gpu0 = {RA_DEVICE_GPU, 0};
    ra_device builtin = ra_device_is_available(ctx, gpu0) ? gpu0 : RA_CPU;
    ASSERT_DEV(ra_default_global(ctx), builtin,
               "DRAFT-STR-10 the built-in default is gpu:0 when available, else cpu");
    ASSERT_DEV(ra_default_device(ctx), builtin, "DRAFT-STR-10 default_device without a scope");
    ra_array *x = NULL;
    ASSERT_STATUS(ctx, ra_zeros(ctx, NULL, 0, NULL, &x), RA_OK, "zeros() with no device");
    ASSERT_DEV(ra_array_device(x), builtin, "DEV-DS-13 zeros(device=None) uses the default");
    ra_array_release(x);
    int64_t s1[1] = {1};
    ra_scalar one = ra_scalar_int(1);
    ra_array *all[8] = {0};
    ra_empty(ctx, s1, 1, NULL, &all[0]);
    ra_ones(ctx, s1, 1, NULL, &all[1]);
    ra_full(ctx, s1, 1, one, NULL, &all[2]);
    ra_arange(ctx, one, NULL, NULL, NULL, &all[3]);
    ra_linspace(ctx, one, one, 1, true, NULL, &all[4]);
    ra_eye(ctx, 1, -1, 0, NULL, &all[5]);
    double v = 1;
    ra_asarray_buffer(ctx, &v, RA_FLOAT64, s1, 1, NULL, &all[6]);
    ra_asarray_scalar(ctx, one, NULL, &all[7]);
    bool same = true;
    for (int i = 0; i < 8; i++) {
        same = same && all[i] && ra_device_eq(ra_array_device(all[i]), builtin);
        ra_array_release(all[i]);
    }
    CHECK(same, "DEV-DS-13 every creation function uses the same default");

    /* set and unset. */
    ra_device tpu = {RA_DEVICE_TPU, 0};
    ASSERT_STATUS(ctx, ra_default_set(ctx, tpu), RA_E_DEVICE_UNAVAILABLE,
                  "setting tpu as default is a ValueError kind");
    ASSERT_DEV(ra_default_global(ctx), builtin, "a failed set changes nothing");
    ra_device other = ndevs > 1 ? dev_at(ndevs - 1) : RA_CPU;
    if (ra_device_eq(other, builtin)) other = RA_CPU;
    ASSERT_STATUS(ctx, ra_default_set(ctx, other), RA_OK, "IVY-INFER-2 set the global default");
    ASSERT_DEV(ra_default_global(ctx), other, "the global default is the new device");
    ra_zeros(ctx, NULL, 0, NULL, &x);
    ASSERT_DEV(ra_array_device(x), other, "DEV-DS-14b (4) creation follows the global default");
    ra_array_release(x);
    ra_default_set(ctx, other);
    ASSERT_STATUS(ctx, ra_default_unset(ctx), RA_OK, "unset");
    ASSERT_DEV(ra_default_global(ctx), builtin,
               "unset returns to the built-in default, however often it was set");
    ASSERT_STATUS(ctx, ra_default_unset(ctx), RA_OK, "unset twice is harmless");
    ASSERT_STATUS(NULL, ra_default_set(NULL, RA_CPU), RA_E_NULL, "set with NULL ctx");
    ASSERT_STATUS(NULL, ra_default_unset(NULL), RA_E_NULL, "unset with NULL ctx");
    ASSERT_DEV(ra_default_global(NULL), RA_NO_DEVICE, "NULL ctx: no global default device");
    ASSERT_DEV(ra_default_device(NULL), RA_NO_DEVICE, "NULL ctx: no default device");
}

static void scopes_(ra_ctx *ctx)
{
    ra_device outer = RA_CPU;
    ra_device inner = ndevs > 1 ? dev_at(1) : RA_CPU;
    ra_device global = ra_default_global(ctx);
    ASSERT_INT(ra_default_depth(ctx), 0, "no scope to begin with");
    ASSERT_STATUS(ctx, ra_default_pop(ctx), RA_E_SCOPE_EMPTY, "pop without push");
    ASSERT_STR(ra_status_kind(RA_E_SCOPE_EMPTY), "RuntimeError", "pop without push kind");
    ASSERT_MESSAGE(ctx, "no scoped default", "the message says there is no scope");
    CHECK(!ra_soft_get(ctx), "soft mode is off to begin with");
    ASSERT_STATUS(ctx, ra_default_push(ctx, outer), RA_OK, "push cpu");
    ASSERT_DEV(ra_default_device(ctx), outer, "IVY-CTX-1 the scope's device is the default");
    ASSERT_DEV(ra_default_global(ctx), global, "the global default is unchanged by a scope");
    CHECK(ra_soft_get(ctx), "IVY-CTX-1 a scope turns soft mode on");
    ra_array *x = NULL;
    ra_zeros(ctx, NULL, 0, NULL, &x);
    ASSERT_DEV(ra_array_device(x), outer, "DEV-DS-14b (3) creation inside the scope");
    ra_array_release(x);
    ASSERT_STATUS(ctx, ra_default_push(ctx, inner), RA_OK, "push a nested scope");
    ASSERT_INT(ra_default_depth(ctx), 2, "two scopes");
    ASSERT_DEV(ra_default_device(ctx), inner, "the innermost scope wins");
    ra_soft_set(ctx, false);
    CHECK(!ra_soft_get(ctx), "soft mode can be switched off inside a scope");
    ASSERT_STATUS(ctx, ra_default_pop(ctx), RA_OK, "pop the inner scope");
    ASSERT_DEV(ra_default_device(ctx), outer, "IVY-CTX-3 the outer scope is back");
    CHECK(ra_soft_get(ctx), "IVY-CTX-2 the soft mode of before the inner push is back");
    ASSERT_STATUS(ctx, ra_default_pop(ctx), RA_OK, "pop the outer scope");
    ASSERT_DEV(ra_default_device(ctx), global, "IVY-CTX-2 the global default is back");
    CHECK(!ra_soft_get(ctx), "IVY-CTX-2 soft mode is off again");
    ASSERT_INT(ra_default_depth(ctx), 0, "no scope left");
    ASSERT_STATUS(ctx, ra_default_pop(ctx), RA_E_SCOPE_EMPTY, "one pop too many");
    ra_device tpu = {RA_DEVICE_TPU, 0};
    ASSERT_STATUS(ctx, ra_default_push(ctx, tpu), RA_E_DEVICE_UNAVAILABLE, "push tpu");
    ASSERT_INT(ra_default_depth(ctx), 0, "a failed push opens no scope");
    CHECK(!ra_soft_get(ctx), "a failed push leaves soft mode alone");
    ASSERT_STATUS(NULL, ra_default_push(NULL, RA_CPU), RA_E_NULL, "push NULL ctx");
    ASSERT_STATUS(NULL, ra_default_pop(NULL), RA_E_NULL, "pop NULL ctx");
    ASSERT_INT(ra_default_depth(NULL), 0, "depth of NULL ctx");
    /* Deep nesting grows the stacks. */
    bool ok = true;
    for (int i = 0; i < 100; i++)
        ok = ok && ra_default_push(ctx, i % 2 ? inner : outer) == RA_OK;
    for (int i = 99; i >= 0; i--) {
        ok = ok && ra_device_eq(ra_default_device(ctx), i % 2 ? inner : outer);
        ok = ok && ra_default_pop(ctx) == RA_OK;
    }
    CHECK(ok && ra_default_depth(ctx) == 0 && !ra_soft_get(ctx), "100 nested scopes unwind");
}

static void soft_mode_(ra_ctx *ctx)
{
    CHECK(!ra_soft_get(ctx), "IVY-SOFT-6 soft mode is off by default");
    ASSERT_STATUS(ctx, ra_soft_set(ctx, true), RA_OK, "IVY-SOFT-6 set soft mode");
    CHECK(ra_soft_get(ctx), "soft mode is on");
    ra_soft_set(ctx, false);
    CHECK(!ra_soft_get(ctx), "set(false) on top");
    ASSERT_STATUS(ctx, ra_soft_unset(ctx), RA_OK, "unset");
    CHECK(ra_soft_get(ctx), "IVY-SOFT-6 unset returns to the previous value (on)");
    ra_soft_unset(ctx);
    CHECK(!ra_soft_get(ctx), "and to the initial value (off)");
    ASSERT_STATUS(ctx, ra_soft_unset(ctx), RA_OK, "unset on an empty stack is a no-op");
    CHECK(!ra_soft_get(ctx), "still off");
    /* Inside a scope, unset cannot pop the scope's own entry. */
    ra_default_push(ctx, RA_CPU);
    ra_soft_unset(ctx);
    CHECK(ra_soft_get(ctx), "unset inside a scope keeps the scope's soft mode");
    ra_soft_set(ctx, true);
    ra_soft_set(ctx, true);
    ra_default_pop(ctx);
    CHECK(!ra_soft_get(ctx), "pop drops what was set inside the scope");
    ASSERT_STATUS(NULL, ra_soft_set(NULL, true), RA_E_NULL, "soft set NULL ctx");
    ASSERT_STATUS(NULL, ra_soft_unset(NULL), RA_E_NULL, "soft unset NULL ctx");
    CHECK(!ra_soft_get(NULL), "soft get NULL ctx is off");

    if (ndevs < 2) {
        skip_part("only one device (cpu): no OpenCL device here",
                  "IVY-SOFT-1/3 soft mode moving arrays between devices");
        return;
    }
    ra_device d1 = dev_at(1);
    int64_t s2[1] = {2};
    ra_array *x = NULL, *y = NULL, *z = NULL;
    ra_ones(ctx, s2, 1, &(ra_opts){.dtype = RA_FLOAT32, .device = "cpu"}, &x);
    ra_full(ctx, s2, 1, ra_scalar_float(2), &(ra_opts){.dtype = RA_FLOAT32, .device_value = &d1},
            &y);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(x), ra_operand_array(y), &z),
                  RA_E_DEVICE_MISMATCH, "IVY-SOFT-3 soft mode off: mixed devices raise");
    ra_default_set(ctx, RA_CPU);
    ra_soft_set(ctx, true);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(x), ra_operand_array(y), &z), RA_OK,
                  "IVY-SOFT-1 soft mode on: mixed devices are moved");
    ASSERT_DEV(ra_array_device(z), RA_CPU, "IVY-SOFT-1 the result is on the default device");
    ASSERT_VALUES(ctx, z, "soft add values", 3, 3);
    ra_array_release(z);
    ASSERT_DEV(ra_array_device(y), d1, "IVY-UTIL-7 the input itself did not move");
    /* Inputs that share a device stay there under the move-mixed policy. */
    ra_ctx_set_soft_policy(ctx, RA_SOFT_MOVE_MIXED);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(y), ra_operand_array(y), &z), RA_OK,
                  "soft mode on, inputs on one device");
    ASSERT_DEV(ra_array_device(z), d1, "IVY-SOFT-2 shared-device inputs stay (move-mixed)");
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_ABS, y, &z), RA_OK, "abs in soft mode, move-mixed");
    ASSERT_DEV(ra_array_device(z), d1, "move-mixed: a single input stays on its device");
    ra_array_release(z);
    ra_ctx_set_soft_policy(ctx, RA_SOFT_MOVE_ALL);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(y), ra_operand_array(y), &z), RA_OK,
                  "soft mode on, move-all policy");
    ASSERT_DEV(ra_array_device(z), RA_CPU, "IVY-SOFT-1 move-all: every input goes to default");
    ra_array_release(z);
    ra_soft_unset(ctx);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_ADD, ra_operand_array(y), ra_operand_array(y), &z), RA_OK,
                  "soft mode off, move-all policy");
    ASSERT_DEV(ra_array_device(z), d1, "the policy matters only in soft mode");
    ra_array_release(z);
    /* Inside a scope (soft mode on) with move-all, operations run on the scoped device. */
    ra_default_push(ctx, d1);
    ASSERT_STATUS(ctx, ra_binary(ctx, RA_MULTIPLY, ra_operand_array(x), ra_operand_array(x), &z),
                  RA_OK, "multiply cpu arrays inside a gpu scope");
    ASSERT_DEV(ra_array_device(z), d1, "IVY-CTX-1 move-all: the op runs on the scoped device");
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_unary(ctx, RA_NEGATIVE, x, &z), RA_OK, "negative inside the scope");
    ASSERT_DEV(ra_array_device(z), d1, "IVY-SOFT-1 move-all: a unary op moves its input too");
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_reduce(ctx, RA_SUM, x, NULL, &z), RA_OK, "sum inside the scope");
    ASSERT_DEV(ra_array_device(z), d1, "IVY-SOFT-1 move-all: a reduction moves its input too");
    ASSERT_VALUES(ctx, z, "sum of the moved input", 2);
    ra_array_release(z);
    /* An explicit device still wins (IVY-CTX-4). */
    ASSERT_STATUS(ctx, ra_zeros_like(ctx, x, &(ra_opts){.device = "cpu"}, &z), RA_OK,
                  "zeros_like(device=cpu) inside a gpu scope");
    ASSERT_DEV(ra_array_device(z), RA_CPU, "IVY-CTX-4 an explicit device wins in a scope");
    ra_array_release(z);
    ASSERT_STATUS(ctx, ra_astype(ctx, y, RA_INT32, &(ra_opts){.device = "cpu"}, &z), RA_OK,
                  "astype(device=cpu) in soft mode");
    ASSERT_DEV(ra_array_device(z), RA_CPU, "IVY-CTX-4 astype's explicit device wins");
    ra_array_release(z);
    ra_default_pop(ctx);
    ra_default_unset(ctx);
    ra_array_release(x);
    ra_array_release(y);
}

static void inference_(ra_ctx *ctx)
{
    if (ndevs < 2) {
        skip_part("only one device (cpu): no OpenCL device here",
                  "DEV-DS-14a/b inference order with two devices");
        return;
    }
    ra_device d1 = dev_at(1);
    int64_t s2[1] = {2};
    ra_array *x = NULL, *y = NULL;
    ra_ones(ctx, s2, 1, &(ra_opts){.dtype = RA_FLOAT32, .device_value = &d1}, &x);
    ra_default_set(ctx, RA_CPU);
    ra_default_push(ctx, RA_CPU);
    /* The scope is Ivy's: soft mode is on, so a function given an array runs on the scope's
     * device, its array argument moved there (IVY-CTX-1, IVY-SOFT-1, IVY-SOFT-5). */
    ASSERT_STATUS(ctx, ra_zeros_like(ctx, x, NULL, &y), RA_OK, "zeros_like in a scope");
    ASSERT_DEV(ra_array_device(y), RA_CPU, "IVY-CTX-1 zeros_like(x on %s) runs on the scope's cpu",
               dev_str(d1, (char[RA_DEVICE_STR_MAX]){0}));
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_astype(ctx, x, RA_INT32, NULL, &y), RA_OK, "astype in a scope");
    ASSERT_DEV(ra_array_device(y), RA_CPU, "IVY-CTX-1 astype runs on the scope's device");
    ra_array_release(y);
    ASSERT_STATUS(ctx, ra_zeros_like(ctx, x, &(ra_opts){.device_value = &d1}, &y), RA_OK,
                  "zeros_like(device=) in a scope");
    ASSERT_DEV(ra_array_device(y), d1, "IVY-CTX-4 an explicit device wins inside a scope");
    ra_array_release(y);
    /* The array API's context manager is the scope with soft mode off (spec/decisions.md):
     * 2025.12: explicit > array argument > scope > global. */
    ra_soft_set(ctx, false);
    ra_zeros_like(ctx, x, NULL, &y);
    ASSERT_DEV(ra_array_device(y), d1, "DEV-DS-14b (2) zeros_like follows x over the scope");
    ra_array_release(y);
    ra_asarray(ctx, x, &(ra_opts){.dtype = RA_INT32}, &y);
    ASSERT_DEV(ra_array_device(y), d1, "DEV-DS-14b (2) asarray(x) follows x over the scope");
    ra_array_release(y);
    ra_astype(ctx, x, RA_INT32, NULL, &y);
    ASSERT_DEV(ra_array_device(y), d1, "DEV-DS-14b (2) astype follows x over the scope");
    ra_array_release(y);
    ra_full_like(ctx, x, ra_scalar_float(1), &(ra_opts){.device = "cpu"}, &y);
    ASSERT_DEV(ra_array_device(y), RA_CPU, "DEV-DS-14b (1) an explicit device wins");
    ra_array_release(y);
    ra_zeros(ctx, s2, 1, NULL, &y);
    ASSERT_DEV(ra_array_device(y), RA_CPU, "DEV-DS-14b (3) no array: the scope");
    ra_array_release(y);
    /* Legacy (2021.12-2024.12 read literally): the scope beats the array. */
    ra_ctx_set_inference(ctx, RA_INFER_LEGACY);
    ra_zeros_like(ctx, x, NULL, &y);
    ASSERT_DEV(ra_array_device(y), RA_CPU, "DEV-DS-14a (2) legacy: the scope beats x");
    ra_array_release(y);
    ra_full_like(ctx, x, ra_scalar_float(1), &(ra_opts){.device_value = &d1}, &y);
    ASSERT_DEV(ra_array_device(y), d1, "DEV-DS-14a (1) legacy: an explicit device wins");
    ra_array_release(y);
    ra_default_pop(ctx);
    ra_zeros_like(ctx, x, NULL, &y);
    ASSERT_DEV(ra_array_device(y), d1, "legacy without a scope: x's device");
    ra_array_release(y);
    ra_ctx_set_inference(ctx, RA_INFER_2025);
    /* Without a scope, the global default does not beat an array argument. */
    ra_ones_like(ctx, x, NULL, &y);
    ASSERT_DEV(ra_array_device(y), d1, "IVY-INFER-1 the array's device beats the global default");
    ra_array_release(y);
    ra_default_unset(ctx);
    ra_array_release(x);
}

static void inspection_(ra_ctx *ctx)
{
    size_t n = 99;
    ASSERT_STATUS(ctx, ra_info_devices(ctx, NULL, 0, &n), RA_OK, "DEV-INFO-5 count devices");
    ASSERT_INT(n, ndevs, "the count matches the list");
    CHECK(ndevs >= 1 && ra_device_eq(devs[0], RA_CPU), "DEV-INFO-5 cpu is listed first");
    bool all_work = true;
    for (size_t i = 0; i < ndevs; i++) {
        ra_array *x = NULL;
        int64_t s1[1] = {1};
        all_work =
            all_work && ra_empty(ctx, s1, 1, &(ra_opts){.device_value = &devs[i]}, &x) == RA_OK;
        ra_array_release(x);
    }
    CHECK(all_work, "DEV-INFO-5 every listed device works with empty(device=d)");
    CHECK(ra_util_num_gpus(ctx) == (int)ndevs - 1, "IVY-UTIL-2 every device but cpu is a gpu");
    ra_device one[1];
    ASSERT_STATUS(ctx, ra_info_devices(ctx, one, 1, &n), RA_OK, "a short buffer");
    ASSERT_INT(n, ndevs, "still reports the total");
    ASSERT_STATUS(ctx, ra_info_devices(ctx, NULL, 2, &n), RA_E_NULL, "NULL out with cap");
    ASSERT_STATUS(ctx, ra_info_devices(ctx, one, 1, NULL), RA_E_NULL, "NULL count");
    ASSERT_STATUS(NULL, ra_info_devices(NULL, one, 1, &n), RA_E_NULL, "NULL ctx");

    ra_default_dtypes dd;
    ASSERT_STATUS(ctx, ra_info_default_dtypes(ctx, &devs[0], &dd), RA_OK,
                  "DEV-INFO-7 default dtypes of cpu");
    CHECK(dd.real_floating == RA_FLOAT64 && dd.complex_floating == RA_COMPLEX128 &&
              dd.integral == RA_INT64 && dd.indexing == RA_INT64,
          "DEV-INFO-7 cpu: float64, complex128, int64, int64");
    for (size_t i = 0; i < ndevs; i++) {
        char ds[RA_DEVICE_STR_MAX];
        ra_device_props p = RA_DEVICE_PROPS_INIT;
        ra_device_props_get(ctx, devs[i], &p);
        ra_info_default_dtypes(ctx, &devs[i], &dd);
        uint32_t set = 0;
        ASSERT_STATUS(ctx, ra_info_dtypes(ctx, &devs[i], 0, &set), RA_OK, "DEV-INFO-9 dtypes %s",
                      dev_str(devs[i], ds));
        bool f64 = set & (1u << RA_FLOAT64);
        CHECK(f64 == p.has_float64 && (bool)(set & (1u << RA_COMPLEX128)) == p.has_float64,
              "DEV-INFO-9 %s lists float64 and complex128 exactly when it has float64", ds);
        CHECK(dd.real_floating == (p.has_float64 ? RA_FLOAT64 : RA_FLOAT32),
              "DEV-INFO-7 %s's default float follows its float64 support", ds);
        uint32_t every = 0;
        for (int t = RA_BOOL; t <= RA_COMPLEX128; t++)
            every |= UINT32_C(1) << t;
        if (!p.has_float64)
            every &= ~((UINT32_C(1) << RA_FLOAT64) | (UINT32_C(1) << RA_COMPLEX128));
        ASSERT_INT(set, every, "DEV-INFO-9 %s lists every dtype it supports", ds);
    }
    uint32_t set = 0;
    ra_info_dtypes(ctx, &devs[0], RA_KIND_INTEGRAL, &set);
    ASSERT_INT(set,
               (1u << RA_INT8) | (1u << RA_INT16) | (1u << RA_INT32) | (1u << RA_INT64) |
                   (1u << RA_UINT8) | (1u << RA_UINT16) | (1u << RA_UINT32) | (1u << RA_UINT64),
               "DEV-INFO-9 kind integral");
    ra_info_dtypes(ctx, &devs[0], RA_KIND_BOOL | RA_KIND_REAL_FLOATING, &set);
    ASSERT_INT(set, (1u << RA_BOOL) | (1u << RA_FLOAT32) | (1u << RA_FLOAT64),
               "DEV-INFO-9 kinds bool and real floating");
    ASSERT_STATUS(ctx, ra_info_dtypes(ctx, &devs[0], 1u << 9, &set), RA_E_ARG, "unknown kind");
    ra_device tpu = {RA_DEVICE_TPU, 0};
    ASSERT_STATUS(ctx, ra_info_dtypes(ctx, &tpu, 0, &set), RA_E_DEVICE_UNAVAILABLE,
                  "dtypes of tpu");
    ASSERT_STATUS(ctx, ra_info_default_dtypes(ctx, &tpu, &dd), RA_E_DEVICE_UNAVAILABLE,
                  "default dtypes of tpu");
    ASSERT_STATUS(ctx, ra_info_dtypes(ctx, NULL, 0, NULL), RA_E_NULL, "dtypes NULL out");
    ASSERT_STATUS(ctx, ra_info_default_dtypes(ctx, NULL, NULL), RA_E_NULL, "defaults NULL out");
    ASSERT_STATUS(NULL, ra_info_dtypes(NULL, NULL, 0, &set), RA_E_NULL, "dtypes NULL ctx");
    ASSERT_STATUS(NULL, ra_info_default_dtypes(NULL, NULL, &dd), RA_E_NULL, "defaults NULL ctx");
    /* device NULL: the current device, i.e. the scope's (DEV-INFO-8). */
    ra_default_push(ctx, RA_CPU);
    ASSERT_STATUS(ctx, ra_info_default_dtypes(ctx, NULL, &dd), RA_OK, "DEV-INFO-8 device=None");
    ASSERT_INT(dd.real_floating, RA_FLOAT64, "DEV-INFO-8 answers for the current device (cpu)");
    ra_default_pop(ctx);
}

static void utilities_(ra_ctx *ctx)
{
    int cores = ra_util_num_cpu_cores();
    CHECK(cores >= 1, "IVY-UTIL-3 num_cpu_cores is %d", cores);
    ASSERT_INT(ra_util_num_gpus(NULL), 0, "num_gpus of NULL ctx");
    for (size_t i = 0; i < ndevs; i++) {
        char ds[RA_DEVICE_STR_MAX];
        dev_str(devs[i], ds);
        uint64_t total = 0, used0 = 0, used1 = 0;
        ASSERT_STATUS(ctx, ra_util_total_memory(ctx, devs[i], &total), RA_OK,
                      "IVY-UTIL-4 total memory of %s", ds);
        CHECK(total > 0, "IVY-UTIL-4 %s has %llu bytes", ds, (unsigned long long)total);
        ASSERT_STATUS(ctx, ra_util_used_memory(ctx, devs[i], &used0), RA_OK, "used on %s", ds);
        ra_array *x = NULL;
        int64_t shape[1] = {1000};
        ra_zeros(ctx, shape, 1, &(ra_opts){.dtype = RA_INT32, .device_value = &devs[i]}, &x);
        ra_util_used_memory(ctx, devs[i], &used1);
        ASSERT_INT(used1 - used0, 4000, "%s: a 1000-element int32 array adds 4000 bytes", ds);
        ra_array_release(x);
        double pct = -1;
        int status = ra_util_utilisation(ctx, devs[i], &pct);
        if (status == RA_OK)
            CHECK(pct >= 0 && pct <= 100, "IVY-UTIL-5 %s utilisation %.1f%% is in [0, 100]", ds,
                  pct);
        else
            CHECK(status == RA_E_NOT_MEASURABLE && pct == -1 &&
                      strcmp(ra_status_kind(status), "NotImplementedError") == 0,
                  "IVY-UTIL-5 %s: utilisation not measurable, reported as such: %s", ds,
                  ra_ctx_message(ctx));
    }
    ra_device tpu = {RA_DEVICE_TPU, 0};
    uint64_t u;
    double pct;
    ASSERT_STATUS(ctx, ra_util_total_memory(ctx, tpu, &u), RA_E_DEVICE_UNAVAILABLE, "tpu total");
    ASSERT_STATUS(ctx, ra_util_used_memory(ctx, tpu, &u), RA_E_DEVICE_UNAVAILABLE, "tpu used");
    ASSERT_STATUS(ctx, ra_util_utilisation(ctx, tpu, &pct), RA_E_DEVICE_UNAVAILABLE, "tpu util");
    ASSERT_STATUS(ctx, ra_util_total_memory(ctx, RA_CPU, NULL), RA_E_NULL, "total NULL out");
    ASSERT_STATUS(ctx, ra_util_used_memory(ctx, RA_CPU, NULL), RA_E_NULL, "used NULL out");
    ASSERT_STATUS(ctx, ra_util_utilisation(ctx, RA_CPU, NULL), RA_E_NULL, "util NULL out");
    ASSERT_STATUS(NULL, ra_util_total_memory(NULL, RA_CPU, &u), RA_E_NULL, "total NULL ctx");
    ASSERT_STATUS(NULL, ra_util_used_memory(NULL, RA_CPU, &u), RA_E_NULL, "used NULL ctx");
    ASSERT_STATUS(NULL, ra_util_utilisation(NULL, RA_CPU, &pct), RA_E_NULL, "util NULL ctx");
}

DT_TEST(global_default)
{
    ra_ctx *ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
    global_default_(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(scopes)
{
    ra_ctx *ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
    scopes_(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(soft_mode)
{
    ra_ctx *ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
    soft_mode_(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(inference)
{
    ra_ctx *ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
    inference_(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(inspection)
{
    ra_ctx *ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
    inspection_(ctx);
    ra_ctx_destroy(ctx);
}

DT_TEST(utilities)
{
    ra_ctx *ctx = open_ctx();
    ndevs = list_devices(ctx, devs);
    utilities_(ctx);
    ra_ctx_destroy(ctx);
}

DT_MAIN(DT_ENTRY(global_default), DT_ENTRY(scopes), DT_ENTRY(soft_mode), DT_ENTRY(inference),
        DT_ENTRY(inspection), DT_ENTRY(utilities))
