/*
 * opencl_status.c: the one place where OpenCL error codes become refarray statuses.
 *
 * The mapping, and why:
 *  - CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_RESOURCES, CL_MEM_OBJECT_ALLOCATION_FAILURE: the
 *    device (or the driver's host side) has no memory for the request -> RA_E_NOMEM
 *    (MemoryError). CL_OUT_OF_RESOURCES is what several drivers report when device memory
 *    runs out during an enqueue.
 *  - CL_INVALID_BUFFER_SIZE: refarray only creates buffers of 1 byte or more, so the driver
 *    refused the size itself (PoCL does so above about twice its maximum allocation) ->
 *    RA_E_NOMEM as well: to the caller it is "this array does not fit on the device".
 *  - CL_DEVICE_NOT_AVAILABLE, CL_DEVICE_NOT_FOUND: the device went away -> RA_E_DEVICE_UNAVAILABLE.
 *  - CL_INVALID_COMMAND_QUEUE, CL_INVALID_CONTEXT (from a caller's stream) -> RA_E_STREAM.
 *  - Everything else (build failures, invalid arguments that would be refarray's own bug,
 *    unknown codes) -> RA_E_BACKEND (RuntimeError), with the OpenCL name in the detail.
 */
#include "opencl.h"

#define RA_CL_ERRORS(X)                                                                            \
    X(CL_DEVICE_NOT_FOUND)                                                                         \
    X(CL_DEVICE_NOT_AVAILABLE)                                                                     \
    X(CL_COMPILER_NOT_AVAILABLE)                                                                   \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE)                                                            \
    X(CL_OUT_OF_RESOURCES)                                                                         \
    X(CL_OUT_OF_HOST_MEMORY)                                                                       \
    X(CL_PROFILING_INFO_NOT_AVAILABLE)                                                             \
    X(CL_MEM_COPY_OVERLAP)                                                                         \
    X(CL_IMAGE_FORMAT_MISMATCH)                                                                    \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED)                                                               \
    X(CL_BUILD_PROGRAM_FAILURE)                                                                    \
    X(CL_MAP_FAILURE)                                                                              \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET)                                                             \
    X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                                                \
    X(CL_COMPILE_PROGRAM_FAILURE)                                                                  \
    X(CL_LINKER_NOT_AVAILABLE)                                                                     \
    X(CL_LINK_PROGRAM_FAILURE)                                                                     \
    X(CL_DEVICE_PARTITION_FAILED)                                                                  \
    X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)                                                            \
    X(CL_INVALID_VALUE)                                                                            \
    X(CL_INVALID_DEVICE_TYPE)                                                                      \
    X(CL_INVALID_PLATFORM)                                                                         \
    X(CL_INVALID_DEVICE)                                                                           \
    X(CL_INVALID_CONTEXT)                                                                          \
    X(CL_INVALID_QUEUE_PROPERTIES)                                                                 \
    X(CL_INVALID_COMMAND_QUEUE)                                                                    \
    X(CL_INVALID_HOST_PTR)                                                                         \
    X(CL_INVALID_MEM_OBJECT)                                                                       \
    X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)                                                          \
    X(CL_INVALID_IMAGE_SIZE)                                                                       \
    X(CL_INVALID_SAMPLER)                                                                          \
    X(CL_INVALID_BINARY)                                                                           \
    X(CL_INVALID_BUILD_OPTIONS)                                                                    \
    X(CL_INVALID_PROGRAM)                                                                          \
    X(CL_INVALID_PROGRAM_EXECUTABLE)                                                               \
    X(CL_INVALID_KERNEL_NAME)                                                                      \
    X(CL_INVALID_KERNEL_DEFINITION)                                                                \
    X(CL_INVALID_KERNEL)                                                                           \
    X(CL_INVALID_ARG_INDEX)                                                                        \
    X(CL_INVALID_ARG_VALUE)                                                                        \
    X(CL_INVALID_ARG_SIZE)                                                                         \
    X(CL_INVALID_KERNEL_ARGS)                                                                      \
    X(CL_INVALID_WORK_DIMENSION)                                                                   \
    X(CL_INVALID_WORK_GROUP_SIZE)                                                                  \
    X(CL_INVALID_WORK_ITEM_SIZE)                                                                   \
    X(CL_INVALID_GLOBAL_OFFSET)                                                                    \
    X(CL_INVALID_EVENT_WAIT_LIST)                                                                  \
    X(CL_INVALID_EVENT)                                                                            \
    X(CL_INVALID_OPERATION)                                                                        \
    X(CL_INVALID_GL_OBJECT)                                                                        \
    X(CL_INVALID_BUFFER_SIZE)                                                                      \
    X(CL_INVALID_MIP_LEVEL)                                                                        \
    X(CL_INVALID_GLOBAL_WORK_SIZE)                                                                 \
    X(CL_INVALID_PROPERTY)                                                                         \
    X(CL_INVALID_IMAGE_DESCRIPTOR)                                                                 \
    X(CL_INVALID_COMPILER_OPTIONS)                                                                 \
    X(CL_INVALID_LINKER_OPTIONS)                                                                   \
    X(CL_INVALID_DEVICE_PARTITION_COUNT)

const char *ra__cl_error_name(cl_int err)
{
    switch (err) {
    case CL_SUCCESS:
        return "CL_SUCCESS";
#define RA_CL_NAME_(code)                                                                          \
    case code:                                                                                     \
        return #code;
        RA_CL_ERRORS(RA_CL_NAME_)
#undef RA_CL_NAME_
    /* Returned by the ICD loader when it found no platform at all (cl_khr_icd). */
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "CL_UNKNOWN_ERROR";
    }
}

int ra__cl_status(cl_int err)
{
    switch (err) {
    case CL_SUCCESS:
        return RA_OK;
    case CL_OUT_OF_HOST_MEMORY:
    case CL_OUT_OF_RESOURCES:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
        return RA_E_NOMEM;
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_DEVICE_NOT_FOUND:
        return RA_E_DEVICE_UNAVAILABLE;
    case CL_INVALID_COMMAND_QUEUE:
    case CL_INVALID_CONTEXT:
        return RA_E_STREAM;
    default:
        return RA_E_BACKEND;
    }
}

int ra__cl_fail(ra_ctx *ctx, cl_int err, const char *what, const ra__cl_device *dev)
{
    int status = ra__cl_status(err);
    if (dev)
        return ra__ctx_error(ctx, status, "OpenCL device '%s': %s failed with %s (%d)", dev->name,
                             what, ra__cl_error_name(err), (int)err);
    return ra__ctx_error(ctx, status, "OpenCL: %s failed with %s (%d)", what,
                         ra__cl_error_name(err), (int)err);
}
