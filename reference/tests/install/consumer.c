/* Uses the installed header and library: a context, one array, its device. */
#include <refarray.h>

#include <stdio.h>

int main(void)
{
    ra_ctx *ctx = NULL;
    int status = ra_ctx_create(&(ra_ctx_options){.flags = RA_CTX_NO_OPENCL}, &ctx);
    if (status != RA_OK) {
        printf("ra_ctx_create: %s\n", ra_status_name(status));
        return 1;
    }
    int64_t shape[1] = {4};
    ra_array *x = NULL;
    status = ra_arange(ctx, ra_scalar_int(4), NULL, NULL, NULL, &x);
    char dev[RA_DEVICE_STR_MAX] = "";
    if (status == RA_OK) ra_device_format(ra_array_device(x), dev, sizeof dev);
    printf("refarray %s: arange(4) on %s, %lld elements\n", ra_version(), dev,
           (long long)ra_array_size(x));
    int ok = status == RA_OK && ra_array_size(x) == shape[0];
    ra_array_release(x);
    ra_ctx_destroy(ctx);
    return ok ? 0 : 1;
}
