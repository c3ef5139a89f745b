/*
 * toylib: a deliberately tiny array library that stands in for YOUR library in this
 * template. It has two "devices" (toy:0 and toy:1, both plain host memory), reference-counted
 * arrays with a dtype code, a shape and a device, arrays over memory it borrows (what a DLPack
 * import needs), and a handful of functions. Replace it with your own
 * library; the adapter in adapter.c shows how each protocol op maps onto library calls.
 */
#ifndef TOYLIB_H
#define TOYLIB_H

#include <stddef.h>
#include <stdint.h>

#define TOY_NUM_DEVICES 2
#define TOY_MAX_NDIM 8
/* The most bytes one array may hold: like any real library, the toy refuses an array larger
 * than it can hold (TOY_E_NOMEM) rather than trying, and a shape whose size overflows. */
#define TOY_MAX_BYTES ((size_t)1 << 28)

/* Status codes: 0 is success, errors are negative. */
enum { TOY_OK = 0, TOY_E_ARG = -1, TOY_E_DEVICE = -2, TOY_E_NOMEM = -3, TOY_E_MISMATCH = -4 };

/* Element types: the toy stores any element size the caller names. */
typedef struct toy_array {
    int device; /* 0 .. TOY_NUM_DEVICES-1 */
    int dtype;  /* the caller's dtype code */
    size_t itemsize;
    int ndim;
    int64_t shape[TOY_MAX_NDIM];
    size_t nbytes;
    unsigned char *data;
    long refs; /* references: toy_retain adds one, toy_free drops one (one thread at a time) */
    /* Borrowed data (toy_wrap): release_data(owner) is called once, when the last reference
     * goes, instead of freeing data. NULL for data the toy allocated. */
    void (*release_data)(void *owner);
    void *owner;
} toy_array;

/* The element types toy_add knows (the toy stores bytes; addition needs to know more). */
typedef enum toy_element { TOY_F32 = 1, TOY_F64, TOY_I32, TOY_I64 } toy_element;

/* The number of arrays made and not yet freed. */
long toy_live_arrays(void);
/* The message of the last error, for the adapter to report. */
const char *toy_last_error(void);
/* Parses "toy", "toy:0" or "toy:1" into a device index. */
int toy_device_parse(const char *text, int *device);
/* A zero-filled array. */
int toy_zeros(const int64_t *shape, int ndim, int dtype, size_t itemsize, int device,
              toy_array **out);
/* An array holding a copy of `data`. */
int toy_from_host(const void *data, const int64_t *shape, int ndim, int dtype, size_t itemsize,
                  int device, toy_array **out);
/* An array over `data`, which the toy does not copy (C order, `itemsize` bytes an element):
 * release_data(owner) runs exactly once, when the array's last reference goes, also when
 * toy_wrap itself fails. */
int toy_wrap(void *data, const int64_t *shape, int ndim, int dtype, size_t itemsize, int device,
             void (*release_data)(void *owner), void *owner, toy_array **out);
/* A copy of x on another device. */
int toy_to_device(const toy_array *x, int device, toy_array **out);
/* x1 + x2 elementwise, of elements `element`: same shape, dtype and device
 * (TOY_E_MISMATCH otherwise, TOY_E_DEVICE for two devices). */
int toy_add(const toy_array *x1, const toy_array *x2, toy_element element, toy_array **out);
/* A new reference to x (toy_free drops one; the array goes with the last). */
toy_array *toy_retain(toy_array *x);
void toy_free(toy_array *x);

#endif
