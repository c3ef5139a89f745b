/* CLBlast never checks which device a buffer belongs to: CLBlastSaxpy on device 0's queue
 * with y in device 1's context (two devices, a context and a queue each, as with
 * POCL_DEVICES="pthread pthread") is not refused with an error status.
 * Build: cc two_devices.c -lclblast -lOpenCL. Prints the status it returns, if it returns. */
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#include <stdio.h>

int main(void)
{
    cl_platform_id p;
    cl_device_id d[2];
    cl_uint n = 0;
    clGetPlatformIDs(1, &p, NULL);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 2, d, &n);
    if (n < 2) {
        printf("needs two OpenCL devices (POCL_DEVICES=\"pthread pthread\")\n");
        return 2;
    }
    cl_context c0 = clCreateContext(NULL, 1, &d[0], NULL, NULL, NULL);
    cl_context c1 = clCreateContext(NULL, 1, &d[1], NULL, NULL, NULL);
    cl_command_queue q0 = clCreateCommandQueue(c0, d[0], 0, NULL);
    float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
    cl_mem bx = clCreateBuffer(c0, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, NULL);
    cl_mem by = clCreateBuffer(c1, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y, y, NULL);
    printf("calling CLBlastSaxpy with y on the other device\n");
    fflush(stdout);
    CLBlastStatusCode st = CLBlastSaxpy(4, 1.0f, bx, 0, 1, by, 0, 1, &q0, NULL);
    clFinish(q0);
    printf("CLBlastSaxpy status %d\n", (int)st);
    return st == CLBlastSuccess ? 1 : 0;
}
