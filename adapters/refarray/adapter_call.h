/*
 * adapter_call.h: the generic call of refarray's adapter (call.c), private to the adapter.
 */
#ifndef DEVSPEC_ADAPTER_CALL_H
#define DEVSPEC_ADAPTER_CALL_H

#include "adapter_internal.h"
#include "devspec_shim.h"
#include "refarray.h"

/* The table's `call` slot (spec/protocol.md, "call"): adapter.c's slot passes its vendor table
 * in as v, through which the names that another slot already answers are answered (stack,
 * to_device, arange, ...), so the call files name nothing of adapter.c. */
int refarray_call(const ds_vendor *v, void *lib, const char *name, const ds_value *args,
                  size_t nargs, const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                  ds_call_result *out);

/* One call's arguments as the slot received them. */
typedef struct refarray_args {
    const ds_vendor *vendor; /* the adapter's table, whose slots a handler may call */
    const char *name;        /* the standard's name, "where" or "Array.__getitem__" */
    const ds_value *args;
    size_t nargs;
    const char *const *kwnames;
    const ds_value *kwargs;
    size_t nkw;
} refarray_args;

/* The answer to one name: 0, or non-zero after ds_error/ds_lacks (the slot's contract). */
typedef int (*refarray_call_fn)(void *lib, const refarray_args *a, ds_call_result *out);

typedef struct refarray_call_entry {
    const char *name;
    refarray_call_fn fn;
} refarray_call_entry;

/* Each table's entries, REFARRAY_CALLS_OWN and the three below, generated from
 * spec/signatures.json: a row's refarray entry "call" names its handler, and the generator
 * finds the file that defines it. */
#include "call_tables_generated.h"

/* The names each family answers, each table ending with {NULL, NULL}: elementwise, creation,
 * data types, statistics and utility (call_elementwise.c); manipulation, indexing, searching,
 * sets and sorting (call_shape.c); linalg, linear algebra and fft (call_linalg.c). call.c
 * searches them after its own names. */
extern const refarray_call_entry refarray_calls_elementwise[];
extern const refarray_call_entry refarray_calls_shape[];
extern const refarray_call_entry refarray_calls_linalg[];

/* Argument checks (call_args.c). name is the function's name for messages. */
/* Every keyword must be one of allowed (NULL-terminated; NULL for none), else lacking. */
int call_keywords(const char *name, const char *const *kwnames, size_t nkw,
                  const char *const *allowed);
/* The value of keyword kw, or NULL when not given. */
const ds_value *call_keyword(const char *const *kwnames, const ds_value *kwargs, size_t nkw,
                             const char *kw);
/* An array or a Python scalar, else TypeError. */
int call_operand(const char *name, const ds_value *v, ds_operand *out);
/* An array, else TypeError. */
int call_array(const char *name, const ds_value *v, ds_array *out);
/* An int (v NULL: not given, *out unchanged; None accepted when none_ok, *none says so),
 * else TypeError; beyond int64 OverflowError. */
int call_int(const char *name, const ds_value *v, bool none_ok, bool *none, int64_t *out);
/* Exactly want positional arguments, else TypeError. */
int call_nargs(const char *name, size_t nargs, size_t want);
/* At least `least` and at most `most` positional arguments, else TypeError. */
int call_nargs_between(const char *name, size_t nargs, size_t least, size_t most);
/* An int or a tuple/list of ints into out[0..*n) (cap at most). v NULL or None: *none (when
 * none is NULL, None is a TypeError). */
int call_int_list(const char *name, const ds_value *v, int64_t *out, size_t cap, size_t *n,
                  bool *none);
/* The array *y as the slot's answer; st is the status of the function that made it (read
 * after that call: C leaves the order of arguments' evaluation open, so y is a pointer). */
int call_one_array(void *lib, ds_call_result *out, int st, ra_array *const *y);
/* An operand as refarray takes it: the array, or the Python scalar at its kind. */
ra_operand call_ra_operand(const ds_operand *o);
/* The arrays items[0..n) (each an array, else TypeError) in a new list the caller frees with
 * free() (NULL items and n 0 give an empty one); NULL after ds_error when one is not an array
 * or memory is short. */
const ra_array **call_arrays(const char *name, const ds_value *items, size_t n);
/* Room for n result arrays (at least one), zeroed, the caller frees it with free(); NULL after
 * ds_error (MemoryError) when memory is short. */
ra_array **call_room(const char *name, size_t n);
/* A tuple of the n arrays ys as the slot's answer, for any n (ds_call_result_reserve); st is
 * the status of the function that made them: not RA_OK, its error (ys holds nothing). When
 * memory is short the arrays are released. */
int call_tuple(void *lib, ds_call_result *out, int st, ra_array *const *ys, size_t n);
/* A refarray status as the slot's answer: RA_OK, or the library's error recorded for the
 * shim (ds_error with the status's kind and the context's message). */
int call_status(void *lib, int st);

/* ---- the generated handlers (call_generated.c) ----
 * A row of spec/signatures.json whose refarray entry is {"function": "ra_foo"} is answered by
 * a handler gen_refarray.py writes: it binds the call's arguments to the latest signature's
 * parameters with call_bind, by the table below, and calls ra_foo with them in order. */

/* How a parameter is passed: positional-only, positional-or-keyword, keyword-only. */
typedef enum call_pass { CALL_POSITIONAL, CALL_EITHER, CALL_KEYWORD } call_pass;

/* A parameter's types as the signature lists them, and the C argument each becomes:
 * array: const ra_array *; array, none: the same, NULL for None; an array or Python
 * scalars: ra_operand; int: int64_t; int, none: const int64_t *, NULL for None; bool: bool;
 * float (or int, float): double; ints (or int, ints): const int64_t *, size_t; with none: the
 * pointer NULL for None. */
typedef enum call_type {
    CALL_ARRAY,
    CALL_ARRAY_OR_NONE,
    CALL_OPERAND,
    CALL_INT,
    CALL_INT_OR_NONE,
    CALL_BOOL,
    CALL_FLOAT,
    CALL_INTS,
    CALL_INTS_OR_NONE
} call_type;

/* The most parameters a generated handler binds. */
#define CALL_MAX_PARAMS 16

/* One parameter: its name, how it is passed, its type, whether it is required, and its
 * default (i, f or b by type; None for the types that take it). */
typedef struct call_param {
    const char *name;
    call_pass pass;
    call_type type;
    bool required;
    int64_t i;
    double f;
    bool b;
} call_param;

/* One bound argument: the member of its type, and none where it was None (or defaulted to
 * it). */
typedef struct call_bound {
    const ra_array *array;
    ra_operand operand;
    int64_t i;
    double f;
    bool b;
    bool none;
    int64_t ints[RA_MAX_NDIM];
    size_t n;
} call_bound;

/* Binds a's arguments to params[0..n) into out[0..n) as Python binds them: a keyword that no
 * parameter takes by keyword is lacking (call_keywords); too few or too many positional
 * arguments, a missing required one, one given twice or of a wrong type is a TypeError. */
int call_bind(const refarray_args *a, const call_param *params, size_t n, call_bound *out);

/* The names the generated handlers answer (call_generated.c). */
extern const refarray_call_entry refarray_calls_generated[];

#endif
