/*
 * functions/fft.c: the fft extension's transforms (refarray_fn_linalg.h) on the staged path:
 * x is read to host memory as double complex, each axis' transform is the discrete Fourier
 * transform computed from its definition (a direct O(n^2) sum per line, the twiddle factors
 * from libm's cos and sin with quarter turns exact), and the result is written to a new array on
 * x's device, rounded once to its dtype. fftshift and ifftshift move elements.
 */
#include "refarray_fn_linalg.h"

#include "linalg_core.h"
#include "staged.h"

#include <math.h>
#include <string.h>

static const char *const names[] = {
    [RA_FFT_FFT] = "fft.fft",     [RA_FFT_IFFT] = "fft.ifft", [RA_FFT_RFFT] = "fft.rfft",
    [RA_FFT_IRFFT] = "fft.irfft", [RA_FFT_HFFT] = "fft.hfft", [RA_FFT_IHFFT] = "fft.ihfft",
};

static const char *const nnames[] = {
    [RA_FFT_FFT] = "fft.fftn",
    [RA_FFT_IFFT] = "fft.ifftn",
    [RA_FFT_RFFT] = "fft.rfftn",
    [RA_FFT_IRFFT] = "fft.irfftn",
};

const char *ra_fft_name(ra_fft_fn fn)
{
    if ((int)fn < RA_FFT_FFT || fn > RA_FFT_IHFFT) return NULL;
    return names[fn] + 4; /* without "fft." */
}

/* One axis' transform: the sign of the exponent (-1 forward, +1 inverse), whether the input
 * is the first n/2 + 1 values of a Hermitian sequence (irfft, hfft) and whether only the
 * first n/2 + 1 outputs are kept (rfft, ihfft); the length n and the scale. */
typedef struct axis_op {
    size_t axis;
    int64_t n;
    int sign;
    bool herm_in, half_out;
    double scale;
} axis_op;

static bool is_inverse(ra_fft_fn fn)
{
    return fn == RA_FFT_IFFT || fn == RA_FFT_IRFFT || fn == RA_FFT_IHFFT;
}

static axis_op make_op(ra_fft_fn fn, size_t axis, int64_t n, ra_fft_norm norm)
{
    axis_op op = {axis,
                  n,
                  is_inverse(fn) ? 1 : -1,
                  fn == RA_FFT_IRFFT || fn == RA_FFT_HFFT,
                  fn == RA_FFT_RFFT || fn == RA_FFT_IHFFT,
                  1.0};
    bool scaled = is_inverse(fn) ? norm == RA_FFT_BACKWARD : norm == RA_FFT_FORWARD;
    if (norm == RA_FFT_ORTHO)
        op.scale = 1 / sqrt((double)n);
    else if (scaled)
        op.scale = 1 / (double)n;
    return op;
}

/* exp(sign 2 pi i m / n), 0 <= m < n: the angle is q quarter turns and a remainder t in
 * [0, pi/2), the remainder's cos and sin from libm, the quarter turns exact (a swap and signs),
 * so that 1, i, -1 and -i are exact and the rest accurate to libm's cos and sin. */
static ra__cplx twiddle(size_t m, size_t n, int sign)
{
    uint64_t four = 4 * (uint64_t)m, q = four / n, rem = four - q * n;
    double t = 1.57079632679489661923 * ((double)rem / (double)n);
    double c = cos(t), s = sin(t), re, im;
    switch (q & 3) {
    case 0:
        re = c, im = s;
        break;
    case 1:
        re = -s, im = c;
        break;
    case 2:
        re = -c, im = -s;
        break;
    default:
        re = s, im = -c;
        break;
    }
    return CMPLX(re, sign * im);
}

/* Applies op along its axis to *buf (nd axes of shape; replaced by the result, shape
 * updated). */
static int apply(ra_ctx *ctx, const char *fn, ra__cplx **buf, size_t nd, int64_t *shape,
                 const axis_op *op)
{
    size_t ax = op->axis, n = (size_t)op->n, outer = 1, inner = 1, len = (size_t)shape[ax];
    for (size_t i = 0; i < ax; i++)
        outer *= (size_t)shape[i];
    for (size_t i = ax + 1; i < nd; i++)
        inner *= (size_t)shape[i];
    size_t need = op->herm_in ? n / 2 + 1 : n, nout = op->half_out ? n / 2 + 1 : n;
    if (outer && inner && nout > SIZE_MAX / sizeof(ra__cplx) / outer / inner)
        return ra__ctx_error(ctx, RA_E_TOO_LARGE, "%s: the result is too large", fn);
    ra__cplx *dst = ra__alloc(ctx, (outer * inner * nout + 1) * sizeof *dst);
    ra__cplx *w = ra__alloc(ctx, n * sizeof *w), *line = ra__alloc(ctx, n * sizeof *line);
    if (!dst || !w || !line) {
        ra__free(ctx, dst);
        ra__free(ctx, w);
        ra__free(ctx, line);
        return ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    }
    for (size_t m = 0; m < n; m++)
        w[m] = twiddle(m, n, op->sign);
    const ra__cplx *src = *buf;
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++) {
            for (size_t t = 0; t < need; t++)
                line[t] = t < len ? src[(o * len + t) * inner + i] : 0;
            for (size_t k = need; k < n; k++) /* the Hermitian sequence's other half */
                line[k] = conj(line[n - k]);
            for (size_t k = 0; k < nout; k++) {
                ra__cplx sum = 0;
                size_t m = 0; /* k t mod n, without overflow */
                for (size_t t = 0; t < n; t++) {
                    sum += line[t] * w[m];
                    m += k;
                    if (m >= n) m -= n;
                }
                dst[(o * nout + k) * inner + i] = sum * op->scale;
            }
        }
    ra__free(ctx, w);
    ra__free(ctx, line);
    ra__free(ctx, *buf);
    *buf = dst;
    shape[ax] = (int64_t)nout;
    return RA_OK;
}

static bool real_input(ra_fft_fn fn)
{
    return fn == RA_FFT_RFFT || fn == RA_FFT_IHFFT;
}

static bool real_output(ra_fft_fn fn)
{
    return fn == RA_FFT_IRFFT || fn == RA_FFT_HFFT;
}

/* The checks of both entry points. */
static int check(ra_ctx *ctx, const char *fn, ra_fft_fn kind, const ra_array *x, ra_fft_norm norm,
                 ra_array **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    if ((int)norm < RA_FFT_BACKWARD || norm > RA_FFT_FORWARD)
        return ra__ctx_error(ctx, RA_E_ARG, "%s: unknown norm %d", fn, (int)norm);
    bool ok = real_input(kind) ? ra__dtype_is_float(x->dtype)
                               : ra__dtype_is_float(x->dtype) || ra__dtype_is_complex(x->dtype);
    if (!ok)
        return ra__ctx_error(ctx, RA_E_DTYPE, "%s: x is %s; a %s floating dtype is needed", fn,
                             ra_dtype_name(x->dtype),
                             real_input(kind) ? "real" : "real or complex");
    return RA_OK;
}

/* The transforms ops[0..nops) applied in order to x. */
static int run(ra_ctx *ctx, const char *fn, ra_fft_fn kind, const ra_array *x, const axis_op *ops,
               size_t nops, ra_array **out)
{
    for (size_t k = 0; k < nops; k++) {
        int64_t n = ops[k].n;
        if (n < 1 || (ops[k].half_out && n / 2 + 1 < 1))
            return ra__ctx_error(ctx, RA_E_ARG, "%s: n is %lld along axis %zu; it must be >= 1", fn,
                                 (long long)n, ops[k].axis);
    }
    ra__host h, y = RA__HOST_INIT;
    ra__dev *dev;
    int st = ra__staged_read(ctx, fn, &x, 1, &dev, &h);
    if (st != RA_OK) return st;
    int64_t shape[RA_MAX_NDIM];
    memcpy(shape, h.shape, h.ndim * sizeof *shape);
    ra__cplx *buf = ra__alloc(ctx, (h.size ? h.size : 1) * sizeof *buf);
    if (!buf) st = ra__ctx_error(ctx, RA_E_NOMEM, "%s: out of memory", fn);
    for (size_t i = 0; st == RA_OK && i < h.size; i++)
        buf[i] = ra__hgetc(&h, i);
    for (size_t k = 0; st == RA_OK && k < nops; k++)
        st = apply(ctx, fn, &buf, h.ndim, shape, &ops[k]);
    ra_dtype c = h.dtype == RA_FLOAT64 || h.dtype == RA_COMPLEX128 ? RA_COMPLEX128 : RA_COMPLEX64;
    ra_dtype dt = real_output(kind) ? (c == RA_COMPLEX128 ? RA_FLOAT64 : RA_FLOAT32) : c;
    if (st == RA_OK) st = ra__host_new(ctx, fn, dt, h.ndim, shape, &y);
    for (size_t i = 0; st == RA_OK && i < y.size; i++)
        ra__hsetc(&y, i, buf[i]); /* a real result keeps the real part */
    ra__free(ctx, buf);
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, st, dev, &y, out);
}

/* The default length along an axis of extent m. */
static int64_t default_n(ra_fft_fn fn, int64_t m)
{
    return real_output(fn) ? 2 * (m - 1) : m;
}

int ra_fft(ra_ctx *ctx, ra_fft_fn fn, const ra_array *x, int64_t n, int64_t axis, ra_fft_norm norm,
           ra_array **out)
{
    if ((int)fn < RA_FFT_FFT || fn > RA_FFT_IHFFT)
        return ra__ctx_error(ctx, RA_E_ARG, "ra_fft: unknown transform %d", (int)fn);
    const char *name = names[fn];
    int st = check(ctx, name, fn, x, norm, out);
    if (st != RA_OK) return st;
    if (x->ndim == 0) return ra__ctx_error(ctx, RA_E_AXIS, "%s: x is 0-d", name);
    size_t ax;
    st = ra__axis(ctx, name, axis, x->ndim, &ax);
    if (st != RA_OK) return st;
    axis_op op = make_op(fn, ax, n < 0 ? default_n(fn, x->shape[ax]) : n, norm);
    return run(ctx, name, fn, x, &op, 1, out);
}

int ra_fftn(ra_ctx *ctx, ra_fft_fn fn, const ra_array *x, size_t naxes, const int64_t *s,
            const int64_t *axes, ra_fft_norm norm, ra_array **out)
{
    if ((int)fn < RA_FFT_FFT || fn > RA_FFT_IRFFT)
        return ra__ctx_error(ctx, RA_E_ARG, "ra_fftn: transform %d has no n-dimensional form",
                             (int)fn);
    const char *name = nnames[fn];
    int st = check(ctx, name, fn, x, norm, out);
    if (st != RA_OK) return st;
    if (!s && !axes) naxes = x->ndim;
    if (naxes > x->ndim)
        return ra__ctx_error(ctx, RA_E_AXIS, "%s: %zu axes for %zu", name, naxes, x->ndim);
    if (naxes == 0) return ra__ctx_error(ctx, RA_E_ARG, "%s: no axis to transform", name);
    size_t ax[RA_MAX_NDIM];
    bool seen[RA_MAX_NDIM] = {false};
    for (size_t k = 0; k < naxes; k++) {
        if (!axes)
            ax[k] = x->ndim - naxes + k;
        else if ((st = ra__axis(ctx, name, axes[k], x->ndim, &ax[k])) != RA_OK)
            return st;
        if (seen[ax[k]])
            return ra__ctx_error(ctx, RA_E_AXIS, "%s: axis %zu is repeated", name, ax[k]);
        seen[ax[k]] = true;
    }
    /* the real transform along the last axis: first for rfftn, last for irfftn */
    axis_op ops[RA_MAX_NDIM];
    size_t last = naxes - 1;
    for (size_t k = 0; k < naxes; k++) {
        int64_t n = s ? s[k] : default_n(k == last ? fn : RA_FFT_FFT, x->shape[ax[k]]);
        ra_fft_fn one = k == last ? fn : is_inverse(fn) ? RA_FFT_IFFT : RA_FFT_FFT;
        size_t at = fn == RA_FFT_RFFT ? (k == last ? 0 : k + 1) : k;
        ops[at] = make_op(one, ax[k], n, norm);
    }
    return run(ctx, name, fn, x, ops, naxes, out);
}

int ra_fft_shift(ra_ctx *ctx, const ra_array *x, size_t naxes, const int64_t *axes, bool inverse,
                 ra_array **out)
{
    const char *fn = inverse ? "fft.ifftshift" : "fft.fftshift";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    *out = NULL;
    if (!x) return ra__ctx_error(ctx, RA_E_NULL, "%s: x is NULL", fn);
    bool moved[RA_MAX_NDIM] = {false};
    if (axes && naxes > x->ndim)
        return ra__ctx_error(ctx, RA_E_AXIS, "%s: %zu axes for %zu", fn, naxes, x->ndim);
    for (size_t k = 0; axes && k < naxes; k++) {
        size_t a;
        int st = ra__axis(ctx, fn, axes[k], x->ndim, &a);
        if (st != RA_OK) return st;
        moved[a] = true; /* a repeated axis rolls once here */
    }
    for (size_t i = 0; !axes && i < x->ndim; i++)
        moved[i] = true;
    ra__host h, y = RA__HOST_INIT;
    ra__dev *dev;
    int st = ra__staged_read(ctx, fn, &x, 1, &dev, &h);
    if (st != RA_OK) return st;
    st = ra__host_new(ctx, fn, h.dtype, h.ndim, h.shape, &y);
    size_t item = ra_dtype_size(h.dtype);
    for (size_t i = 0; st == RA_OK && i < h.size; i++) {
        size_t rest = i, src = 0, scale = 1;
        for (size_t k = h.ndim; k-- > 0;) { /* out[j] = in[(j - shift) mod len] */
            size_t len = (size_t)h.shape[k], j = rest % len;
            rest /= len;
            size_t shift = moved[k] ? (inverse ? len - len / 2 : len / 2) : 0;
            src += ((j + len - shift) % len) * scale;
            scale *= len;
        }
        memcpy((char *)y.data + i * item, (const char *)h.data + src * item, item);
    }
    ra__host_free(ctx, &h);
    return ra__host_finish(ctx, st, dev, &y, out);
}
