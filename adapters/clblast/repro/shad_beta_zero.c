/* CLBlastShad with beta = 0 still reads its output buffer: z = 1 * x .* y + 0 * z with z
 * holding NaN gives NaN, where BLAS's convention (beta = 0: z is not read) gives 6.
 * Build: cc shad_beta_zero.c -lclblast -lOpenCL. Prints z[0]; exits 1 when it is not 6. */
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#include <math.h>
#include <stdio.h>

int main(void)
{
    cl_platform_id p;
    cl_device_id d;
    clGetPlatformIDs(1, &p, NULL);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, NULL);
    cl_command_queue q = clCreateCommandQueue(ctx, d, 0, NULL);
    float x = 2, y = 3, z = NAN;
    cl_mem bx = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &x, NULL);
    cl_mem by = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &y, NULL);
    cl_mem bz = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &z, NULL);
    CLBlastStatusCode st = CLBlastShad(1, 1.0f, bx, 0, 1, by, 0, 1, 0.0f, bz, 0, 1, &q, NULL);
    clEnqueueReadBuffer(q, bz, CL_TRUE, 0, 4, &z, 0, NULL, NULL);
    printf("CLBlastShad status %d, z[0] = %g (BLAS: 6)\n", (int)st, z);
    return z == 6 ? 0 : 1;
}
