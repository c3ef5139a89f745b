/* refarray-selfcheck: opens a context, lists its devices and runs a few operations on each,
 * printing what it did and whether the values came out as computed by hand. Exit status 0
 * when every check passed, 1 otherwise. */
#include "refarray.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void report(const char *what, ra_ctx *ctx, int status)
{
    if (status == RA_OK) return;
    failures++;
    printf("  FAIL %s: %s (%s): %s\n", what, ra_status_name(status), ra_status_kind(status),
           ra_ctx_message(ctx));
}

static void check_values(const char *what, const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            failures++;
            printf("  FAIL %s: element %zu is %g, expected %g\n", what, i, got[i], want[i]);
            return;
        }
    }
    printf("  ok   %s\n", what);
}

static void run_on(ra_ctx *ctx, ra_device dev)
{
    char name[RA_DEVICE_STR_MAX];
    ra_device_format(dev, name, sizeof name);
    ra_device_props props = RA_DEVICE_PROPS_INIT;
    int status = ra_device_props_get(ctx, dev, &props);
    report("props", ctx, status);
    if (status == RA_OK)
        printf("%s: %s backend, '%s', %llu bytes, float64 %s\n", name, props.backend, props.name,
               (unsigned long long)props.total_memory, props.has_float64 ? "yes" : "no");
    ra_dtype ft = props.has_float64 ? RA_FLOAT64 : RA_FLOAT32;
    ra_opts on = {.dtype = ft, .device_value = &dev};
    ra_array *a = NULL, *b = NULL, *c = NULL, *s = NULL, *m = NULL, *h = NULL, *back = NULL;
    int64_t shape[2] = {2, 3};
    ra_scalar start = ra_scalar_int(0), stop = ra_scalar_int(6);
    report("arange", ctx, status = ra_arange(ctx, start, &stop, NULL, &on, &a));
    if (status != RA_OK) goto done;
    /* b = ones(2, 3) * 2; c = a(2x3) + b */
    report("full", ctx, status = ra_full(ctx, shape, 2, ra_scalar_float(2.0), &on, &b));
    if (status != RA_OK) goto done;
    double host[6] = {0, 1, 2, 3, 4, 5};
    report("asarray", ctx, status = ra_asarray_buffer(ctx, host, RA_FLOAT64, shape, 2, &on, &h));
    if (status != RA_OK) goto done;
    report("add", ctx,
           status = ra_binary(ctx, RA_ADD, ra_operand_array(h), ra_operand_array(b), &c));
    if (status != RA_OK) goto done;
    report("sum", ctx, status = ra_reduce(ctx, RA_SUM, c, NULL, &s));
    if (status != RA_OK) goto done;
    ra_array *eye = NULL;
    report("eye", ctx, status = ra_eye(ctx, 3, -1, 0, &on, &eye));
    if (status != RA_OK) goto done;
    report("matmul", ctx, status = ra_matmul(ctx, c, eye, &m));
    ra_array_release(eye);
    if (status != RA_OK) goto done;
    report("to_device cpu", ctx, status = ra_to_device(ctx, m, RA_CPU, NULL, &back));
    if (status != RA_OK) goto done;
    printf("  arange(0, 6) on %s: dtype %s, device %s\n", name, ra_dtype_name(ra_array_dtype(a)),
           ra_device_eq(ra_array_device(a), dev) ? "as requested" : "WRONG");
    if (!ra_device_eq(ra_array_device(c), dev) || !ra_device_eq(ra_array_device(s), dev)) {
        failures++;
        printf("  FAIL outputs are not on %s\n", name);
    }
    double got[6], want[6] = {2, 3, 4, 5, 6, 7};
    if (ft == RA_FLOAT64) {
        report("read", ctx, ra_array_read(ctx, back, got, sizeof got));
        check_values("[[0,1,2],[3,4,5]] + 2, times eye(3), read back on cpu", got, want, 6);
        double total;
        report("read sum", ctx, ra_array_read(ctx, s, &total, sizeof total));
        double want_total = 27;
        check_values("sum of all = 27 (0-d, on the same device)", &total, &want_total, 1);
    } else {
        float f[6];
        report("read", ctx, ra_array_read(ctx, back, f, sizeof f));
        for (int i = 0; i < 6; i++)
            got[i] = f[i];
        check_values("[[0,1,2],[3,4,5]] + 2, times eye(3), read back on cpu", got, want, 6);
    }
done:
    ra_array_release(a);
    ra_array_release(b);
    ra_array_release(c);
    ra_array_release(s);
    ra_array_release(m);
    ra_array_release(h);
    ra_array_release(back);
}

int main(void)
{
    ra_ctx *ctx = NULL;
    int status = ra_ctx_create(NULL, &ctx);
    if (status != RA_OK) {
        printf("refarray-selfcheck: cannot create a context: %s: %s\n", ra_status_name(status),
               ra_ctx_message(NULL));
        return 1;
    }
    printf("refarray %s\n", ra_version());
    size_t n = 0;
    ra_info_devices(ctx, NULL, 0, &n);
    ra_device devs[64];
    ra_info_devices(ctx, devs, n < 64 ? n : 64, &n);
    char def[RA_DEVICE_STR_MAX];
    ra_device_format(ra_default_device(ctx), def, sizeof def);
    printf("devices: %zu; default device: %s\n", n, def);
    for (size_t i = 0; i < n && i < 64; i++)
        run_on(ctx, devs[i]);
    /* Mixed devices must be refused (DEV-DS-11) when there are two. */
    if (n >= 2) {
        ra_array *x = NULL, *y = NULL, *z = NULL;
        int64_t shape[1] = {2};
        ra_zeros(ctx, shape, 1, &(ra_opts){.dtype = RA_FLOAT32, .device_value = &devs[0]}, &x);
        ra_zeros(ctx, shape, 1, &(ra_opts){.dtype = RA_FLOAT32, .device_value = &devs[1]}, &y);
        status = ra_binary(ctx, RA_ADD, ra_operand_array(x), ra_operand_array(y), &z);
        if (status == RA_E_DEVICE_MISMATCH) {
            printf("mixed devices refused: %s: %s\n", ra_status_kind(status), ra_ctx_message(ctx));
        } else {
            failures++;
            printf("FAIL mixed devices gave %s\n", ra_status_name(status));
        }
        ra_array_release(x);
        ra_array_release(y);
        ra_array_release(z);
    }
    ra_ctx_destroy(ctx);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
