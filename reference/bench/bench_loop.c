/* The baseline of the elementwise benchmark: a plain C loop, built -O3 (see CMakeLists.txt),
 * in its own file so that the compiler cannot specialise it for the benchmark's data. */
#include <stddef.h>

void bench_add_loop(const float *restrict a, const float *restrict b, float *restrict c, size_t n);

void bench_add_loop(const float *restrict a, const float *restrict b, float *restrict c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}
