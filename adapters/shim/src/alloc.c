/*
 * alloc.c: the shim's one allocation hook (see shim_internal.h). Outside tests it is
 * malloc and friends with a counter; a test sets the allocation that fails.
 */
#include "shim_internal.h"

#include <stdlib.h>

/* Only tests change these, from one thread, between calls. */
static long count;
static long fail_at;

static bool fails(void)
{
    count++;
    return fail_at > 0 && count == fail_at;
}

void *ds__malloc(size_t size)
{
    return fails() ? NULL : malloc(size);
}

void *ds__calloc(size_t n, size_t size)
{
    return fails() ? NULL : calloc(n, size);
}

void *ds__realloc(void *ptr, size_t size)
{
    return fails() ? NULL : realloc(ptr, size);
}

void ds__free(void *ptr)
{
    free(ptr);
}

void ds__alloc_fail_at(long n)
{
    fail_at = n;
    count = 0;
}

long ds__alloc_count(void)
{
    return count;
}
