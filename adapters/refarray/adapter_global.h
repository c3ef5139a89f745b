/* adapter_global.h: the refarray adapter's global-array ops (global.c), built with MPI. */
#ifndef DEVSPEC_ADAPTER_GLOBAL_H
#define DEVSPEC_ADAPTER_GLOBAL_H

#include "devspec_shim.h"
#include "refarray.h"

/* Whether MPI runs in this process (the adapter is served by devspec-adapter-mpi-host). */
bool rga_ready(void);
/* Frees the global context (at the adapter's close). */
void rga_close(void);
int rga_placement_describe(ra_ctx *ctx, const ds_placement_arg *a, bool all, bool env_spelling,
                           ds_placement_info *out);
int rga_placement_equal(ra_ctx *ctx, const ds_placement_arg *a, const ds_placement_arg *b,
                        bool *out);
int rga_sbp_describe(ds_sbp_arg s, char *out, size_t cap);
int rga_global_make(ra_ctx *ctx, const ds_buffer *pieces, size_t npieces, bool from_local,
                    const ds_placement_arg *p, const ds_sbp_arg *sbp, size_t nsbp,
                    const ds_sbp_arg *to, size_t nto, ds_global_info *out);
int rga_global_binary(ra_ctx *ctx, ds_binary_fn fn, const ds_global_arg *x1,
                      const ds_global_arg *x2, ds_global_info *out);
int rga_global_sum(ra_ctx *ctx, const ds_global_arg *x, const int64_t *axis, ds_global_info *out);

#endif
