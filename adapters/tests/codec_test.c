/*
 * codec_test: the shim's value codec on its own: dtype names, shortest float decimals,
 * UTF-8 validation, scalar decoding (spec/protocol.md, "Values": scalars and typed arrays),
 * shape element counts.
 */
#include "shim_internal.h"
#include "dtest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void float_text(double d, bool single, const char *want)
{
    char buf[40];
    ds__format_float(d, single, buf, sizeof buf);
    ASSERT_MSG(strcmp(buf, want) == 0, "%s %.17g prints as %s (observed %s)",
               single ? "float32" : "float64", d, want, buf);
}

static void scalar(const char *json, ds_scalar_kind kind, double value)
{
    ds__err e = {0};
    ds_scalar s;
    cJSON *v = cJSON_Parse(json);
    int rc = ds__scalar_decode(v, "x", &s, &e);
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
    int rc = ds__scalar_decode(v, "x", &s, &e);
    ASSERT_MSG(rc < 0 && strcmp(e.kind, kind) == 0 && e.origin == DS__ORIGIN_PROTOCOL &&
                   strstr(e.message, "'x'") != NULL,
               "scalar %s is refused with %s naming the argument (observed %s: %s)", json, kind,
               e.kind, e.message);
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
    scalar_bad("{\"scalar\":\"99999999999999999999\"}", "ValueError");
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
    ASSERT_MSG(ds__buffer_decode(v, "obj", &b, &e) == 0, "an empty array of a huge shape decodes (%s)",
               e.message);
    cJSON *enc = ds__buffer_encode(&b);
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

DT_MAIN(DT_ENTRY(dtype_names), DT_ENTRY(float_text), DT_ENTRY(utf8), DT_ENTRY(scalars), DT_ENTRY(shape_count),
        DT_ENTRY(typed_shapes))
