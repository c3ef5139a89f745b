/* The baseline of the elementwise benchmark: a plain C loop, built -O3 (see CMakeLists.txt),
 * in its own file so that the compiler cannot specialise it for the benchmark's data. */
#include <stddef.h>
#include <stdlib.h>

void bench_add_loop(const float *restrict a, const float *restrict b, float *restrict c, size_t n);

void bench_add_loop(const float *restrict a, const float *restrict b, float *restrict c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

/* The baseline of a 1-element add: what any library must do for a new result at least, a
 * malloc of the result, the loop and a free. SINK keeps the compiler from dropping them. */
volatile float bench_sink;
void bench_add_fresh(const float *restrict a, const float *restrict b, size_t n);

void bench_add_fresh(const float *restrict a, const float *restrict b, size_t n)
{
    float *c = malloc(n * sizeof *c);
    if (c == NULL) return;
    bench_add_loop(a, b, c, n);
    bench_sink = c[0];
    free(c);
}
