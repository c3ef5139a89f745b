/*
 * dsjson_internal.h: what the three parts of dsjson (dsjson.c: integers, nodes and strings;
 * dsjson_parse.c: the reader; dsjson_print.c: the printer and the number formatting it uses)
 * share, private to them.
 */
#ifndef DSJSON_INTERNAL_H
#define DSJSON_INTERNAL_H

#include "dsjson.h"

#include <stddef.h>

/* The encoded NUL: the overlong two-byte form of U+0000 (as in Java's modified UTF-8). */
#define NUL0 '\xC0'
#define NUL1 '\x80'

/* 2^53: integers up to this magnitude are exact in a double. */
#define EXACT_DOUBLE 9007199254740992.0

/* A NUL-terminated copy of n bytes of s from cJSON's allocator, or NULL. */
char *dsj__copy_text(const char *s, size_t n);

#endif /* DSJSON_INTERNAL_H */
