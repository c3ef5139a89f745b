/*
 * codec_test: the shim's value codec on its own: dtype names, shortest float decimals,
 * UTF-8 validation, scalar decoding (spec/protocol.md, "Values": scalars and typed arrays),
 * shape element counts.
 */
#include "shim_internal.h"
#include "dtest.h"

#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void float_text(double d, bool single, const char *want)
{
    char buf[DSJ_NUMBER_MAX];
    size_t n = ds__format_float(d, single, buf);
    ASSERT_MSG(n == strlen(buf), "the length returned is the text's (%zu)", n);
    ASSERT_MSG(strcmp(buf, want) == 0, "%s %.17g prints as %s (observed %s)",
               single ? "float32" : "float64", d, want, buf);
}

static void scalar(const char *json, ds_scalar_kind kind, double value)
{
    ds__err e = {0};
    ds_scalar s;
    cJSON *v = cJSON_Parse(json);
    int rc = ds__scalar_decode(v, "x", true, &s, &e);
    double got = s.kind == DS_SCALAR_INT ? (double)s.i : s.kind == DS_SCALAR_FLOAT ? s.f : s.b;
    ASSERT_MSG(rc == 0 && s.kind == kind && (got == value || (isnan(got) && isnan(value))) &&
                   signbit(got) == signbit(value),
               "scalar %s decodes to kind %d value %g (observed rc %d kind %d value %g)", json,
               kind, value, rc, s.kind, got);
    cJSON_Delete(v);
}

static void scalar_bad(const char *json, const char *kind)
{
    ds__err e = {0};
    ds_scalar s;
    cJSON *v = cJSON_Parse(json);
    int rc = ds__scalar_decode(v, "x", true, &s, &e);
    ASSERT_MSG(rc < 0 && strcmp(e.kind, kind) == 0 && e.origin == DS__ORIGIN_PROTOCOL &&
                   strstr(e.message, "'x'") != NULL,
               "scalar %s is refused with %s naming the argument (observed %s: %s)", json, kind,
               e.kind, e.message);
    cJSON_Delete(v);
}

/* `wide`: decoded for a version 9 table, whose range is [-2^63, 2^64); else int64's. */
static void scalar_overflow(const char *json, bool wide)
{
    ds__err e = {0};
    ds_scalar s;
    cJSON *v = cJSON_Parse(json);
    int rc = ds__scalar_decode(v, "x", wide, &s, &e);
    const char *range = wide ? "[-2^63, 2^64)" : "int64";
    ASSERT_MSG(rc < 0 && strcmp(e.kind, "OverflowError") == 0 && e.origin == DS__ORIGIN_LIBRARY &&
                   strstr(e.message, "'x'") != NULL && strstr(e.message, range) != NULL,
               "scalar %s is the library's OverflowError naming the argument and %s (observed "
               "%s, origin %s: %s)",
               json, range, e.kind, ds__origin_name(e.origin), e.message);
    cJSON_Delete(v);
}

/* An int in [2^63, 2^64): u set and (uint64_t)i the value. */
static void scalar_wide(const char *json, uint64_t value)
{
    ds__err e = {0};
    ds_scalar s;
    cJSON *v = cJSON_Parse(json);
    int rc = ds__scalar_decode(v, "x", true, &s, &e);
    ASSERT_MSG(rc == 0 && s.kind == DS_SCALAR_INT && s.u && (uint64_t)s.i == value,
               "scalar %s decodes to the int %llu, u set (observed rc %d kind %d u %d value %llu: "
               "%s)",
               json, (unsigned long long)value, rc, s.kind, s.u, (unsigned long long)(uint64_t)s.i,
               e.message);
    cJSON_Delete(v);
}

DT_TEST(dtype_names)
{
    for (int t = DS_BOOL; t < DS_DTYPE_COUNT; t++)
        ASSERT_MSG(ds_dtype_from_name(ds_dtype_name((ds_dtype)t)) == (ds_dtype)t,
                   "dtype %s round-trips through its name", ds_dtype_name((ds_dtype)t));
    ASSERT_MSG(ds_dtype_from_name("float128") == DS_DTYPE_NONE, "float128 is not a protocol dtype");
    ASSERT_MSG(ds_dtype_from_name("float16") == DS_FLOAT16 && ds_dtype_size(DS_FLOAT16) == 2,
               "float16 is a protocol dtype of 2 bytes");
    ASSERT_MSG(ds_dtype_name(DS_DTYPE_NONE) == NULL && ds_dtype_name(DS_DTYPE_COUNT) == NULL,
               "no name outside the dtypes");
    ASSERT_MSG(ds_dtype_size(DS_BOOL) == 1 && ds_dtype_size(DS_COMPLEX64) == 8 &&
                   ds_dtype_size(DS_COMPLEX128) == 16 && ds_dtype_size(DS_DTYPE_NONE) == 0,
               "element sizes");
}

DT_TEST(float_text)
{
    float_text(0.1, false, "0.1");
    float_text(0.1, true, "0.1");
    float_text((double)0.1f, false, "0.10000000149011612");
    float_text(1.0 / 3.0, false, "0.3333333333333333");
    float_text((double)(1.0f / 3.0f), true, "0.33333334");
    float_text(1e300, false, "1e+300");
    float_text(5e-324, false, "5e-324");
    float_text(100.0, false, "100");
    float_text(-0.5, false, "-0.5");
    float_text(1e20, false, "1e+20");
    float_text(123456789.0, false, "123456789");
}

DT_TEST(utf8)
{
    ASSERT_MSG(ds__utf8_invalid_at("plain", 5) == -1, "ASCII is UTF-8");
    ASSERT_MSG(ds__utf8_invalid_at("\xc3\xa9t\xc3\xa9", 6) == -1, "two-byte sequences are UTF-8");
    ASSERT_MSG(ds__utf8_invalid_at("\xf0\x9f\x98\x80", 4) == -1, "a four-byte sequence is UTF-8");
    ASSERT_MSG(ds__utf8_invalid_at("ab\xff", 3) == 2, "0xff is refused at its offset");
    ASSERT_MSG(ds__utf8_invalid_at("\xc3", 1) == 0, "a truncated sequence is refused");
    ASSERT_MSG(ds__utf8_invalid_at("\xe0\x80\xaf", 3) == 0, "an overlong form is refused");
    ASSERT_MSG(ds__utf8_invalid_at("\xf4\x90\x80\x80", 4) == 0, "past U+10FFFF is refused");
}

DT_TEST(scalars)
{
    scalar("true", DS_SCALAR_BOOL, 1);
    scalar("3", DS_SCALAR_INT, 3);
    scalar("-7", DS_SCALAR_INT, -7);
    scalar("2.5", DS_SCALAR_FLOAT, 2.5);
    scalar("1e300", DS_SCALAR_FLOAT, 1e300);
    scalar("{\"scalar\":\"nan\"}", DS_SCALAR_FLOAT, NAN);
    scalar("{\"scalar\":\"-inf\"}", DS_SCALAR_FLOAT, -INFINITY);
    scalar("{\"scalar\":\"-0.0\"}", DS_SCALAR_FLOAT, -0.0);
    scalar("{\"scalar\":\"1.0\"}", DS_SCALAR_FLOAT, 1.0);
    scalar("{\"scalar\":\"9007199254740993\"}", DS_SCALAR_INT, 9007199254740993.0);
    scalar_bad("\"3\"", "TypeError");
    scalar_bad("[1]", "TypeError");
    scalar_bad("{\"scalar\":\"x1\"}", "ValueError");
    scalar("{\"scalar\":\"9223372036854775807\"}", DS_SCALAR_INT, 9223372036854775807.0);
    scalar("{\"scalar\":\"-9223372036854775808\"}", DS_SCALAR_INT, -9223372036854775808.0);
    /* [2^63, 2^64): what uint64 holds beyond int64, for a version 9 table. */
    scalar_wide("{\"scalar\":\"9223372036854775808\"}", UINT64_C(1) << 63);
    scalar_wide("{\"scalar\":\"18446744073709551615\"}", UINT64_MAX);
    scalar_wide("{\"scalar\":\"+9223372036854775809\"}", (UINT64_C(1) << 63) + 1);
    /* Within int64, u stays clear. */
    {
        ds__err e = {0};
        ds_scalar s;
        cJSON *v = cJSON_Parse("{\"scalar\":\"9223372036854775807\"}");
        ASSERT_MSG(ds__scalar_decode(v, "x", true, &s, &e) == 0 && !s.u && s.i == INT64_MAX,
                   "2^63 - 1 is an int64, u clear (observed u %d)", s.u);
        cJSON_Delete(v);
    }
    /* An integer the protocol carries but a ds_scalar cannot: the library's OverflowError,
     * never a protocol error. Beyond 2^64 - 1 and below -2^63 for every table; from 2^63 on
     * for a table older than version 9, whose ints are int64. */
    scalar_overflow("{\"scalar\":\"18446744073709551616\"}", true);
    scalar_overflow("{\"scalar\":\"-9223372036854775809\"}", true);
    scalar_overflow("{\"scalar\":\"99999999999999999999\"}", true);
    scalar_overflow("{\"scalar\":\"9223372036854775808\"}", false);
    scalar_overflow("{\"scalar\":\"-9223372036854775809\"}", false);
    /* The flag sits in padding: the struct is the one versions 1 to 8 were built against. */
    ASSERT_MSG(offsetof(ds_scalar, i) == 8 && offsetof(ds_scalar, f) == 16 &&
                   offsetof(ds_scalar, im) == 24 && sizeof(ds_scalar) == 32,
               "ds_scalar keeps its size (32, observed %zu) and offsets", sizeof(ds_scalar));
}

DT_TEST(shape_count)
{
    int64_t shape[3] = {2, 3, 4};
    ASSERT_MSG(ds__shape_count(shape, 3) == 24, "2x3x4 holds 24 elements");
    ASSERT_MSG(ds__shape_count(shape, 0) == 1, "a 0-d shape holds one element");
    int64_t huge[2] = {INT64_MAX, 2};
    ASSERT_MSG(ds__shape_count(huge, 2) == -1, "an overflowing shape is refused");
    int64_t neg[1] = {-1};
    ASSERT_MSG(ds__shape_count(neg, 1) == -1, "a negative extent is refused");
}

/* A typed array whose shape holds a dimension beyond 2^53 (with a zero, so it is empty)
 * encodes that dimension exactly, so the reply decodes back (found by fuzz/fuzz_typed.c);
 * a shape whose element count overflows says so rather than "holds -1 elements". */
DT_TEST(typed_shapes)
{
    const char *in = "{\"dtype\":\"int8\",\"shape\":[0,933333333333333333],\"data\":[]}";
    cJSON *v = dsj_parse(in, strlen(in), NULL);
    ds_buffer b;
    ds__err e = {0};
    ASSERT_MSG(ds__buffer_decode(v, "obj", &b, &e) == 0,
               "an empty array of a huge shape decodes (%s)", e.message);
    cJSON *enc = NULL;
    ASSERT_MSG(ds__buffer_encode(&b, SIZE_MAX, &enc, &e) == 0, "it encodes (%s)", e.message);
    char *text = dsj_print(enc, false, NULL);
    ASSERT_MSG(text && strstr(text, "933333333333333333") != NULL,
               "the dimension is written exactly (observed %s)", text ? text : "NULL");
    cJSON_free(text);
    cJSON_Delete(enc);
    ds__buffer_clear(&b);
    cJSON_Delete(v);
    const char *over = "{\"dtype\":\"int8\",\"shape\":[4294967296,4294967296],\"data\":[]}";
    v = dsj_parse(over, strlen(over), NULL);
    memset(&e, 0, sizeof e);
    ASSERT_MSG(ds__buffer_decode(v, "obj", &b, &e) < 0 && strstr(e.message, "overflows") != NULL &&
                   strstr(e.message, "-1") == NULL,
               "[2^32, 2^32] is reported as an overflow (observed %s)", e.message);
    cJSON_Delete(v);
}

/* ---- typed arrays encoded to text (spec/protocol.md, "Values") ---- */

/* The reply text of a typed array of DT and SHAPE (NDIM dimensions) holding DATA, encoded
 * without a limit, must be WANT exactly. */
static void encodes_at(int line, ds_dtype dt, int ndim, const int64_t *shape, const void *data,
                       const char *want)
{
    ds_buffer b = {.dtype = dt, .ndim = ndim};
    memcpy(b.shape, shape, (size_t)ndim * sizeof *shape);
    b.nbytes = (size_t)ds__shape_count(shape, ndim) * ds_dtype_size(dt);
    b.data = (void *)(uintptr_t)data;
    ds__err e = {0};
    cJSON *enc = NULL;
    int rc = ds__buffer_encode(&b, SIZE_MAX, &enc, &e);
    char *text = rc == 0 ? dsj_print(enc, false, NULL) : NULL;
    ASSERT_MSG(text != NULL && strcmp(text, want) == 0,
               "line %d: %s encodes as %s (observed %s; %s)", line, ds_dtype_name(dt), want,
               text ? text : "NULL", e.message);
    /* What is written reads back to the same bytes: the encoding is the protocol's. */
    cJSON *back = text ? dsj_parse(text, strlen(text), NULL) : NULL;
    ds_buffer again;
    ds__err e2 = {0};
    ASSERT_MSG(back != NULL && ds__buffer_decode(back, "obj", &again, &e2) == 0 &&
                   again.nbytes == b.nbytes && again.dtype == dt && again.ndim == ndim,
               "line %d: the text decodes back (%s)", line, e2.message);
    ds__buffer_clear(&again);
    cJSON_Delete(back);
    cJSON_free(text);
    cJSON_Delete(enc);
}
#define ENCODES(dt, shape, data, want)                                                             \
    encodes_at(__LINE__, dt, (int)(sizeof shape / sizeof shape[0]), shape, data, want)

DT_TEST(encode_integers)
{
    int64_t two[] = {2}, four[] = {4}, six[] = {6}, three[] = {3};
    bool flags[] = {true, false};
    ENCODES(DS_BOOL, two, flags, "{\"dtype\":\"bool\",\"shape\":[2],\"data\":[true,false]}");
    int8_t i8[] = {-128, 127};
    ENCODES(DS_INT8, two, i8, "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[-128,127]}");
    int16_t i16[] = {-32768, 32767};
    ENCODES(DS_INT16, two, i16, "{\"dtype\":\"int16\",\"shape\":[2],\"data\":[-32768,32767]}");
    int32_t i32[] = {INT32_MIN, INT32_MAX, 0, -1};
    ENCODES(DS_INT32, four, i32,
            "{\"dtype\":\"int32\",\"shape\":[4],\"data\":[-2147483648,2147483647,0,-1]}");
    /* Integers beyond 2^53 in magnitude are decimal strings; 2^53 itself is a number. */
    int64_t i64[] = {9007199254740992LL,  9007199254740993LL, -9007199254740992LL,
                     -9007199254740993LL, INT64_MIN,          INT64_MAX};
    ENCODES(DS_INT64, six, i64,
            "{\"dtype\":\"int64\",\"shape\":[6],\"data\":[9007199254740992,\"9007199254740993\","
            "-9007199254740992,\"-9007199254740993\",\"-9223372036854775808\","
            "\"9223372036854775807\"]}");
    uint8_t u8[] = {0, 255};
    ENCODES(DS_UINT8, two, u8, "{\"dtype\":\"uint8\",\"shape\":[2],\"data\":[0,255]}");
    uint16_t u16[] = {0, 65535};
    ENCODES(DS_UINT16, two, u16, "{\"dtype\":\"uint16\",\"shape\":[2],\"data\":[0,65535]}");
    uint32_t u32[] = {0, UINT32_MAX};
    ENCODES(DS_UINT32, two, u32, "{\"dtype\":\"uint32\",\"shape\":[2],\"data\":[0,4294967295]}");
    uint64_t u64[] = {9007199254740992ULL, 9007199254740993ULL, UINT64_MAX};
    ENCODES(DS_UINT64, three, u64,
            "{\"dtype\":\"uint64\",\"shape\":[3],\"data\":[9007199254740992,\"9007199254740993\","
            "\"18446744073709551615\"]}");
}

DT_TEST(encode_floats)
{
    /* Shortest decimals that read back exactly (as float32 for float32), integral values
     * below 1e16 in full, and the strings "nan", "inf", "-inf", "-0.0". */
    int64_t n32[] = {10};
    float f32[] = {0.1f,    -0.0f,  NAN,         INFINITY, -INFINITY,
                   FLT_MAX, 1e-45f, 16777216.0f, 3.0f,     -0.5f};
    ENCODES(DS_FLOAT32, n32, f32,
            "{\"dtype\":\"float32\",\"shape\":[10],\"data\":[0.1,\"-0.0\",\"nan\",\"inf\","
            "\"-inf\",3.4028235e+38,1e-45,16777216,3,-0.5]}");
    int64_t n64[] = {12};
    double f64[] = {0.1,    -0.0,    NAN, INFINITY, -INFINITY, 1e16, 9999999999999998.0,
                    5e-324, DBL_MAX, 0.5, -2.5,     1.0 / 3.0};
    ENCODES(DS_FLOAT64, n64, f64,
            "{\"dtype\":\"float64\",\"shape\":[12],\"data\":[0.1,\"-0.0\",\"nan\",\"inf\","
            "\"-inf\",1e+16,9999999999999998,5e-324,1.7976931348623157e+308,0.5,-2.5,"
            "0.3333333333333333]}");
    /* float16 elements are written as float64 decimals of their exact value, with dsjson's
     * rule: the fewest digits whose correctly rounded decimal reads back. 2^-24 is
     * 5.9604644775390625e-08 exactly; rounded to 16 digits (a tie, to even) it is ...062e-08,
     * which reads back as another double, so all 17 digits are written. */
    int64_t n16[] = {9};
    uint16_t f16[] = {0x3C00, 0x3555, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xC100};
    ENCODES(DS_FLOAT16, n16, f16,
            "{\"dtype\":\"float16\",\"shape\":[9],\"data\":[1,0.333251953125,65504,"
            "5.9604644775390625e-08,\"-0.0\",\"inf\",\"-inf\",\"nan\",-2.5]}");
    int64_t n2[] = {2}, n1[] = {1};
    float c64[] = {1.5f, -0.0f, NAN, 0.1f};
    ENCODES(DS_COMPLEX64, n2, c64,
            "{\"dtype\":\"complex64\",\"shape\":[2],\"data\":[[1.5,\"-0.0\"],[\"nan\",0.1]]}");
    double c128[] = {0.1, -1e300};
    ENCODES(DS_COMPLEX128, n1, c128,
            "{\"dtype\":\"complex128\",\"shape\":[1],\"data\":[[0.1,-1e+300]]}");
}

DT_TEST(encode_shapes)
{
    double none[1] = {0};
    int64_t empty[] = {0}, empty3[] = {2, 0, 3};
    ENCODES(DS_FLOAT64, empty, none, "{\"dtype\":\"float64\",\"shape\":[0],\"data\":[]}");
    ENCODES(DS_COMPLEX64, empty3, none, "{\"dtype\":\"complex64\",\"shape\":[2,0,3],\"data\":[]}");
    /* A 0-d array holds one element; its shape is the empty list. */
    int32_t seven = 7;
    ds_buffer b = {.dtype = DS_INT32, .ndim = 0, .nbytes = 4, .data = &seven};
    ds__err e = {0};
    cJSON *enc = NULL;
    char *text =
        ds__buffer_encode(&b, SIZE_MAX, &enc, &e) == 0 ? dsj_print(enc, false, NULL) : NULL;
    ASSERT_MSG(text && strcmp(text, "{\"dtype\":\"int32\",\"shape\":[],\"data\":[7]}") == 0,
               "a 0-d int32 encodes with shape [] and one element (observed %s)",
               text ? text : e.message);
    cJSON_free(text);
    cJSON_Delete(enc);
    /* A buffer whose size disagrees with its shape is refused, not read past its end. */
    b.nbytes = 3;
    memset(&e, 0, sizeof e);
    ASSERT_MSG(ds__buffer_encode(&b, SIZE_MAX, &enc, &e) < 0 && enc == NULL &&
                   strcmp(e.kind, "ValueError") == 0,
               "a buffer of 3 bytes for one int32 is refused (observed %s)", e.kind);
}

/* cJSON's hooks for the limit and out-of-memory tests: the largest block asked for, and an
 * allocation that fails. */
static size_t largest_block;
static long block_count, fail_block;
static void *counted_malloc(size_t n)
{
    block_count++;
    if (fail_block > 0 && block_count == fail_block) return NULL;
    if (n > largest_block) largest_block = n;
    return malloc(n);
}

DT_TEST(encode_limit)
{
    /* 100000 elements "0.1": 4 bytes each with the comma, 400001 bytes of list. */
    enum { N = 100000 };
    double *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++)
        v[i] = 0.1;
    ds_buffer b = {
        .dtype = DS_FLOAT64, .ndim = 1, .shape = {N}, .nbytes = N * sizeof *v, .data = v};
    cJSON_Hooks hooks = {counted_malloc, free};
    cJSON_InitHooks(&hooks);
    ds__err e = {0};
    cJSON *enc = NULL;
    ASSERT_MSG(ds__buffer_encode(&b, 400001, &enc, &e) == 0,
               "a list of exactly the limit encodes (%s)", e.message);
    cJSON_Delete(enc);
    enc = NULL;
    largest_block = 0;
    ASSERT_MSG(
        ds__buffer_encode(&b, 400000, &enc, &e) < 0 && enc == NULL &&
            strcmp(e.kind, "MemoryError") == 0 && e.origin == DS__ORIGIN_ADAPTER &&
            strstr(e.message, "400000 bytes") != NULL,
        "a byte past the limit is a MemoryError of origin adapter naming it (observed %s: %s)",
        e.kind, e.message);
    /* Encoding stops at the limit: nothing much larger is built first. */
    memset(&e, 0, sizeof e);
    largest_block = 0;
    ASSERT_MSG(ds__buffer_encode(&b, 4096, &enc, &e) < 0 && largest_block <= 4096 + 65,
               "with a 4096-byte limit no block over 4161 bytes is taken (observed %zu)",
               largest_block);
    /* Out of memory at each allocation in turn: an error, nothing leaked (ASan checks). */
    for (fail_block = 1;; fail_block++) {
        block_count = 0;
        memset(&e, 0, sizeof e);
        int rc = ds__buffer_encode(&b, SIZE_MAX, &enc, &e);
        if (rc == 0) {
            cJSON_Delete(enc);
            break;
        }
        ASSERT_MSG(enc == NULL && strcmp(e.kind, "MemoryError") == 0,
                   "allocation %ld failing gives MemoryError (observed %s)", fail_block, e.kind);
    }
    ASSERT_MSG(fail_block > 3, "the encoding allocates (%ld allocations tried)", fail_block);
    fail_block = 0;
    cJSON_InitHooks(NULL);
    free(v);
}

DT_MAIN(DT_ENTRY(dtype_names), DT_ENTRY(float_text), DT_ENTRY(utf8), DT_ENTRY(scalars),
        DT_ENTRY(shape_count), DT_ENTRY(typed_shapes), DT_ENTRY(encode_integers),
        DT_ENTRY(encode_floats), DT_ENTRY(encode_shapes), DT_ENTRY(encode_limit))
