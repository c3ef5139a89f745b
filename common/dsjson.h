/* dsjson: exact numbers and strings over cJSON, for every C part of devspec that reads or
 * writes protocol messages, case files or reports (the runner and the adapter shim compile
 * dsjson.c; neither includes the other).
 *
 * cJSON keeps the structure; this module keeps the values exact, which cJSON alone does not:
 * - cJSON holds a number only as a double, so an integer beyond 2^53 is rounded on reading;
 *   and it prints a double with 15 significant digits, so 1.0000000000000002 goes out as 1
 *   and DBL_MAX as a text that reads back as infinity.
 * - cJSON decodes "\u0000" into a C string that ends there, so "gpu\u00000" becomes "gpu".
 *
 * What dsjson does instead:
 * - dsj_parse keeps the source text of every number in the number's `valuestring` (cJSON
 *   frees and copies a number's valuestring like a string's), so an integer of any width
 *   reads exactly (dsj_get_int64, dsj_get_uint64, dsj_get_float32) and prints back as it was
 *   written.
 * - A string's NUL characters are held inside cJSON as the two bytes 0xC0 0x80 (an overlong
 *   form that valid UTF-8 never contains; dsj_parse refuses input with 0xC0 or 0xC1 bytes),
 *   so C strings, strcmp and cJSON_Duplicate keep working and nothing is cut. dsj_print
 *   writes the pair as "\u0000"; dsj_string_has_nul tells a C consumer that a string holds a
 *   NUL it could not pass on.
 * - dsj_print writes numbers through the formatters below: a parsed number as its source
 *   text; a number made in C either as an integer (integral, |x| <= 2^53) or as the shortest
 *   decimal that reads back to the same double. Non-finite numbers, which JSON cannot hold,
 *   print as null (the protocol writes them as strings: "nan", "inf", "-inf").
 *
 * Memory comes from cJSON's hooks (cJSON_malloc and cJSON_free), so whoever sets them (the
 * shim's allocation-failure tests) sees these allocations too. Every function that allocates
 * returns NULL when memory runs out. The formatters and parsers use the C locale's decimal
 * point, as strtod and snprintf do when no program calls setlocale (none of devspec does). */
#ifndef DSJSON_H
#define DSJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Room for any text the formatters write, with its NUL ("-2.2250738585072014e-308"). */
#define DSJ_NUMBER_MAX 32

/* ---- formatting ---------------------------------------------------------------------- */

/* The decimal of the fewest significant digits whose correctly rounded form strtod reads
 * back as exactly D, always in a float's form (it has a '.' or an exponent: "1.0",
 * "0.30000000000000004", "5e-324", "1.7976931348623157e+308", "-0.0"), so a reader that
 * tells integers from floats reads a float. At a few powers of two a decimal one digit
 * shorter, not D correctly rounded, also reads back, and Python's repr writes that one
 * (2^-24: "5.9604644775390625e-08" here, "5.960464477539063e-08" there; the same double).
 * NaN and infinities give "nan", "inf" and "-inf", which are not JSON numbers. Returns the
 * length. */
size_t dsj_format_double(double d, char out[DSJ_NUMBER_MAX]);
/* The same for a float32, read back by strtof ("0.1", "3.4028235e+38", "1e-45"). */
size_t dsj_format_float32(float f, char out[DSJ_NUMBER_MAX]);
size_t dsj_format_int64(int64_t v, char out[DSJ_NUMBER_MAX]);
size_t dsj_format_uint64(uint64_t v, char out[DSJ_NUMBER_MAX]);

/* ---- parsing text ------------------------------------------------------------------ */

/* A whole decimal integer: an optional '-' and ASCII digits, nothing else. False when TEXT
 * has another form or the value is outside the type's range (*OUT is then unchanged). */
bool dsj_parse_int64(const char *text, int64_t *out);
bool dsj_parse_uint64(const char *text, uint64_t *out);
/* Whether TEXT is a decimal integer in form (an optional '-' and ASCII digits). */
bool dsj_is_integer_text(const char *text);

/* dsj_parse_float32's results. */
enum { DSJ_FLOAT_OK = 0, DSJ_FLOAT_SYNTAX = -1, DSJ_FLOAT_RANGE = -2 };
/* Reads the whole TEXT (any decimal or hexadecimal float strtof accepts, "nan", "inf",
 * "-inf") rounded once, directly to float32. A finite decimal that rounds to a finite float
 * is in range, however close to the limit ("3.4028235e+38" and "3.4028235677973365e+38" are
 * FLT_MAX); one that rounds to infinity is DSJ_FLOAT_RANGE. Tiny values round to a subnormal
 * or to zero, which is in range. */
int dsj_parse_float32(const char *text, float *out);
/* Reads the whole TEXT as a double (what strtod accepts); false on any other form. */
bool dsj_parse_double(const char *text, double *out);

/* ---- reading and writing cJSON trees --------------------------------------------------- */

/* Parses LEN bytes of TEXT (no NUL needed) as one JSON value, which may be followed only by
 * whitespace. Numbers must follow JSON's grammar (no "01", "1.", "+1"). Returns the tree
 * (free with cJSON_Delete), or NULL with *ERROR_AT (may be NULL) set to the offset in TEXT
 * where reading failed (LEN when the text ends too early). NUL bytes, and the bytes 0xC0 and
 * 0xC1, never part of UTF-8, are refused. */
cJSON *dsj_parse(const char *text, size_t len, size_t *error_at);

/* ---- packed arrays: large data without a node per element ---------------------------- */

/* A reader of untrusted replies (the runner) must not spend a cJSON node (about 64 bytes
 * and a copy of its text) on each element of a typed array: a 64 MiB reply of "0,0,..."
 * would take gigabytes. dsj_parse_with can hold the "data" of typed arrays as a packed
 * array instead: one node of type cJSON_Raw with the DSJ_PACKED flag, whose valuestring is
 * the array's compact JSON text ("[1,2.5,\"nan\",[0.0,1.0]]": no blanks, every token as
 * written) and whose valuedouble is its number of elements. An array is packed when it is
 * the value of a key "data" and each of its elements is a packable scalar (a JSON number,
 * true, false, null, or a string of printable ASCII without '"' and '\\', each token at
 * most DSJ_PACKED_TOKEN_MAX bytes) or a pair of them ("[re, im]"); any other array is read
 * as cJSON reads it. A packed node prints as the text it holds (dsj_print), duplicates and
 * deletes as any node; its elements are read one at a time with a dsj_iter, which also
 * walks a plain cJSON array, so a reader handles both alike. */
#define DSJ_PACKED 0x1000
#define DSJ_PACKED_TOKEN_MAX 63

typedef struct dsj_parse_options {
    bool pack_data;          /* hold packable "data" arrays as packed nodes */
    size_t max_values;       /* refuse a text with more values and keys than this outside packed
                              * arrays (0: no limit) */
    bool terminated;         /* TEXT[LEN] is a NUL: a text with nothing to rewrite (no packed
                              * array, no escaped NUL) is read in place, not copied first (a reply
                              * of one 64 MiB string then costs the string once, not twice) */
    struct dsj_arena *arena; /* the tree's nodes and texts come from ARENA (see below): free
                              * the arena, never the tree; not with pack_data */
} dsj_parse_options;

/* An arena: a tree read into a few large blocks instead of one malloc per node, key, string
 * and number text. A large document of small values (a case file: one value for about 11
 * bytes of compact text) then costs the nodes and texts themselves, without the allocator's
 * header and rounding on each (a 3-byte key takes 8 bytes, not 32): the runner's peak for a
 * compact 175 MB case file went from 12.7 times the file to 9.1 (the text itself included);
 * what remains is cJSON's 64-byte node per value. A tree read into an arena is read-only: nothing
 * in it may be freed, detached or replaced (cJSON_Duplicate copies out of it); dsj_arena_free frees
 * it whole. While it reads into an arena, dsj_parse_with installs cJSON hooks of its own (the
 * arena's on the calling thread, malloc and free on any other) and then restores cJSON's default
 * allocator, so a caller with hooks of its own (cJSON_InitHooks) must not use one; the
 * arena's blocks come from malloc. When a block cannot be had, the parse fails with *WHY
 * "out of memory". */
typedef struct dsj_arena dsj_arena;
/* A new, empty arena; NULL when memory runs out. */
dsj_arena *dsj_arena_new(void);
/* Frees A's blocks and every tree read into it (A may be NULL). */
void dsj_arena_free(dsj_arena *a);
/* The bytes of A's blocks. */
size_t dsj_arena_size(const dsj_arena *a);

/* dsj_parse with OPTIONS (may be NULL: dsj_parse itself). On failure *WHY (may be NULL)
 * gets a reason when the text is valid JSON refused by an option or memory ran out
 * ("too many values outside the data of typed arrays"), else NULL. Memory: a packed array
 * takes its compact text once, at most the bytes it had in TEXT; with MAX_VALUES the rest
 * of the tree is bounded; while parsing, a copy of TEXT without the packed arrays. */
cJSON *dsj_parse_with(const char *text, size_t len, const dsj_parse_options *options,
                      size_t *error_at, const char **why);
bool dsj_is_packed(const cJSON *item);
/* A cJSON array or a packed array. */
bool dsj_is_array(const cJSON *item);
/* The number of elements of a cJSON array or a packed array; 0 for anything else. */
size_t dsj_array_length(const cJSON *item);

/* Walks the elements of a cJSON array or a packed array. A packed array's element is a node
 * inside the iterator (a scalar, or an array of two scalars), valid until the next call; it
 * must not be freed or kept (cJSON_Duplicate copies it). */
typedef struct dsj_iter {
    const cJSON *tree; /* the next element of a cJSON array */
    const char *p;     /* the next element in a packed array's text */
    cJSON node, part[2];
    char text[3][DSJ_PACKED_TOKEN_MAX + 1];
} dsj_iter;
void dsj_iter_init(dsj_iter *it, const cJSON *array);
/* The next element, or NULL after the last (at once for what is not an array). */
const cJSON *dsj_iter_next(dsj_iter *it);
/* A plain cJSON copy of ITEM, a packed array read into nodes (for small values only: it
 * costs what the packing saves). NULL when memory runs out. */
cJSON *dsj_unpack(const cJSON *item);

/* The deepest nesting of arrays and objects dsj_parse reads (cJSON's limit). */
#define DSJ_MAX_DEPTH CJSON_NESTING_LIMIT
/* Whether LEN bytes of TEXT nest arrays and objects deeper than DSJ_MAX_DEPTH (brackets
 * inside strings do not count); *AT (may be NULL) then gets the offset of the bracket that
 * goes too deep. A reader whose dsj_parse failed asks this to say why. Linear time. */
bool dsj_too_deep(const char *text, size_t len, size_t *at);

/* Prints ITEM as JSON: compact, or FORMATTED as cJSON_Print lays it out. Numbers and strings
 * as the header comment says. Free the result with cJSON_free; *LEN (may be NULL) gets its
 * length. NULL when memory runs out or ITEM holds an invalid node. */
char *dsj_print(const cJSON *item, bool formatted, size_t *len);
/* The bytes dsj_print escapes in a string (true): the two JSON requires escaped, the control
 * characters, and 0xC0 (the start of the overlong NUL that stands for U+0000 inside a C
 * string). A string with none of them prints as its bytes between quotes. */
extern const bool dsj_string_escaped[256];

/* The exact source text of a number node, or NULL when it has none (made in C) or when its
 * value was changed after reading (the text no longer reads back to it). */
const char *dsj_number_text(const cJSON *item);
/* Exact integer values of a number node: from its text when it is an integer in form, else
 * from its double when that is integral and within +-2^53. False when not an integer, out
 * of the type's range, or not a number. */
bool dsj_get_int64(const cJSON *item, int64_t *out);
bool dsj_get_uint64(const cJSON *item, uint64_t *out);
/* A number node as a float32, rounded once from its text (see dsj_parse_float32). A node
 * made in C is rounded from its double. Returns a DSJ_FLOAT_ value. */
int dsj_get_float32(const cJSON *item, float *out);

/* Number nodes that print exactly: an integer of any width, a double or a float32 in its
 * shortest float form. NULL when memory runs out. */
cJSON *dsj_create_int64(int64_t v);
cJSON *dsj_create_uint64(uint64_t v);
cJSON *dsj_create_double(double d);
cJSON *dsj_create_float32(float f);
/* Sets a number node's value; drops its source text so that it prints the new value. */
void dsj_set_number(cJSON *item, double d);

/* A string node holding LEN bytes of S, NULs included. NULL when memory runs out. */
cJSON *dsj_create_string_len(const char *s, size_t len);
/* Whether the string S (a cJSON valuestring or key) holds an encoded NUL character. */
bool dsj_string_has_nul(const char *s);
/* Decodes S into OUT (room for strlen(S) + 1 bytes): the real bytes, NULs included, then a
 * NUL. Returns the number of bytes before that final NUL. OUT may be S itself. */
size_t dsj_string_decode(const char *s, char *out);

/* IEEE 754 binary16 (float16) elements. From a double: rounded to nearest, ties to even,
 * subnormals kept, beyond the range infinity (a decimal text read as a double first can round
 * twice only within 2^-53 of a halfway point, which no case uses); a NaN becomes the quiet NaN
 * with its sign. To a double: exact. */
uint16_t dsj_float16_from_double(double d);
double dsj_float16_to_double(uint16_t h);

#endif
