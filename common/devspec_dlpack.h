/*
 * devspec_dlpack.h: the DLPack 1.x ABI (https://dmlc.github.io/dlpack/latest/c_api.html), the
 * structs and constants of the standard's dlpack.h, version 1.3, declared here because
 * distributions ship older headers (Debian's libdlpack-dev 0.6 predates the versioned
 * struct). The layout is the standard's: the static checks at the end hold each size and
 * offset to it. The include guard is the standard header's own, so that a translation unit
 * that includes both gets one definition: whichever comes first.
 *
 * Ownership (the deleter contract): a producer hands out a DLManagedTensorVersioned it has
 * allocated; the consumer calls its deleter exactly once when it no longer needs the data
 * (also when it refuses the tensor, and whatever the version says), and reads no field but
 * `version` and `deleter` when the major version is not DLPACK_MAJOR_VERSION. The deleter
 * frees the struct itself. With DLPACK_FLAG_BITMASK_READ_ONLY the consumer must not write
 * the data; with DLPACK_FLAG_BITMASK_IS_COPIED the data is a copy the consumer alone sees.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

/* A changed major version means a changed layout of DLManagedTensorVersioned; a minor one
 * only adds enumeration values. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* Device types (DLDevice.device_type, an int32). */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4, /* data is a cl_mem; byte_offset says where the tensor starts in it */
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
    kDLTrn = 18,
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id; /* 0 for plain host memory */
} DLDevice;

/* DLDataType.code. */
typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U, /* bits covers both parts: complex64 is 64 */
    kDLBool = 6U,    /* one byte an element, bits 8 */
    kDLFloat8_e3m4 = 7U,
    kDLFloat8_e4m3 = 8U,
    kDLFloat8_e4m3b11fnuz = 9U,
    kDLFloat8_e4m3fn = 10U,
    kDLFloat8_e4m3fnuz = 11U,
    kDLFloat8_e5m2 = 12U,
    kDLFloat8_e5m2fnuz = 13U,
    kDLFloat8_e8m0fnu = 14U,
    kDLFloat6_e2m3fn = 15U,
    kDLFloat6_e3m2fn = 16U,
    kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/* An element type in native byte order: code (a DLDataTypeCode), bits, lanes (1 for a
 * scalar type). */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/* A tensor that owns nothing. Its bytes start at (char *)data + byte_offset (for OpenCL,
 * data is the cl_mem and byte_offset the offset inside it); data is NULL for zero elements.
 * strides count elements, not bytes; from DLPack 1.2 they are never NULL when ndim > 0 (a
 * consumer still accepts NULL, which older producers give for C order). shape and strides
 * may be NULL when ndim is 0. */
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

/* The unversioned managed tensor of DLPack before 1.0 (the "dltensor" capsule). */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* The managed tensor of DLPack 1.x (the "dltensor_versioned" capsule). Everything up to and
 * including flags keeps its place in every later version, so that the deleter can always
 * be found and called. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* ---- DLPack 1.3's C exchange API (`__dlpack_c_exchange_api__`, a capsule named
 * "dlpack_exchange_api" on an array type): a table of C functions a consumer may call
 * instead of __dlpack__. Each returns 0, or -1 (NULL for the allocator's tensor) with the
 * error set: through SetError for the allocator, as a Python exception for the others. */

/* A new tensor of the producer's with prototype's dtype, ndim, shape and device. */
typedef int (*DLPackManagedTensorAllocator)(DLTensor *prototype, DLManagedTensorVersioned **out,
                                            void *error_ctx,
                                            void (*SetError)(void *error_ctx, const char *kind,
                                                             const char *message));
/* The Python object py_object (of the type the table came from) as an owned tensor,
 * without stream synchronisation (BufferError where DLPack cannot describe it). */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object,
                                                     DLManagedTensorVersioned **out);
/* py_object described in *out, which the producer keeps owning: valid until control
 * returns. */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
/* The producer's current work stream on a device (NULL for kDLCPU). */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id,
                                       void **out_current_stream);
/* An owned tensor (ownership taken) as the producer's Python object. */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor,
                                                   void **out_py_object);

/* The part of the table that stays put across versions: a consumer checks version.major
 * and may walk prev_api (NULL: none) to an older table it knows. */
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;

/* The table, alive for the whole process. dltensor_from_py_object_no_sync may be NULL; the
 * other functions may not. */
typedef struct DLPackExchangeAPI {
    DLPackExchangeAPIHeader header;
    DLPackManagedTensorAllocator managed_tensor_allocator;
    DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
    DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
    DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
    DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

/* ---- the layout, checked: the sizes and offsets the standard's header gives on every
 * platform (4-byte enums, natural alignment), for 64-bit and 32-bit pointers. ---- */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define DS_DLPACK_CHECK(e, m) _Static_assert(e, "DLPack layout: " m)
#elif defined(__cplusplus) && __cplusplus >= 201103L
#define DS_DLPACK_CHECK(e, m) static_assert(e, "DLPack layout: " m)
#else
#define DS_DLPACK_CHECK(e, m)
#endif
DS_DLPACK_CHECK(sizeof(DLPackVersion) == 8, "DLPackVersion is 8 bytes");
DS_DLPACK_CHECK(sizeof(DLDeviceType) == 4, "DLDeviceType is an int32");
DS_DLPACK_CHECK(sizeof(DLDevice) == 8 && offsetof(DLDevice, device_id) == 4, "DLDevice");
DS_DLPACK_CHECK(sizeof(DLDataType) == 4 && offsetof(DLDataType, bits) == 1 &&
                    offsetof(DLDataType, lanes) == 2,
                "DLDataType");
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
DS_DLPACK_CHECK(offsetof(DLTensor, device) == 8 && offsetof(DLTensor, ndim) == 16 &&
                    offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 &&
                    offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, byte_offset) == 40 &&
                    sizeof(DLTensor) == 48,
                "DLTensor (64-bit)");
DS_DLPACK_CHECK(offsetof(DLManagedTensor, manager_ctx) == 48 &&
                    offsetof(DLManagedTensor, deleter) == 56 && sizeof(DLManagedTensor) == 64,
                "DLManagedTensor (64-bit)");
DS_DLPACK_CHECK(offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                    offsetof(DLManagedTensorVersioned, deleter) == 16 &&
                    offsetof(DLManagedTensorVersioned, flags) == 24 &&
                    offsetof(DLManagedTensorVersioned, dl_tensor) == 32 &&
                    sizeof(DLManagedTensorVersioned) == 80,
                "DLManagedTensorVersioned (64-bit)");
DS_DLPACK_CHECK(offsetof(DLPackExchangeAPI, managed_tensor_allocator) == 16 &&
                    sizeof(DLPackExchangeAPI) == 56,
                "DLPackExchangeAPI (64-bit)");
#elif UINTPTR_MAX == 0xFFFFFFFFu
DS_DLPACK_CHECK(offsetof(DLTensor, device) == 4 && offsetof(DLTensor, ndim) == 12 &&
                    offsetof(DLTensor, dtype) == 16 && offsetof(DLTensor, shape) == 20 &&
                    offsetof(DLTensor, strides) == 24,
                "DLTensor (32-bit; byte_offset's alignment is the ABI's)");
DS_DLPACK_CHECK(offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                    offsetof(DLManagedTensorVersioned, flags) == 16,
                "DLManagedTensorVersioned (32-bit)");
#endif
#undef DS_DLPACK_CHECK

#ifdef __cplusplus
}
#endif

#endif
