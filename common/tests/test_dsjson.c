/* Tests of dsjson: every hard number prints as its shortest exact text and reads back to the
 * same bits, integers are exact over the whole int64 and uint64 ranges, float32 range is
 * decided by rounding, strings keep their NULs, and a read-then-print round trip gives the
 * source text back. On devspec's one C test harness (testing/dtest.h): a failure stops its
 * test and prints what was expected and what came out. */
#include "dsjson.h"
#include "dtest.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Stop the test when the check fails (devspec's harness, testing/dtest.h). */
static void ok(int cond, const char *file, int line, const char *name)
{
    if (!cond) dt_fail(file, line, "%s", name);
}

static void str_eq(const char *got, const char *want, const char *file, int line, const char *name)
{
    if (got == NULL || strcmp(got, want) != 0)
        dt_fail(file, line, "%s\n#   expected: %s\n#   observed: %s", name, want,
                got ? got : "(NULL)");
}

#define OK(c, name) ok((c), __FILE__, __LINE__, (name))
#define STR_EQ(got, want, name) str_eq((got), (want), __FILE__, __LINE__, (name))

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Each value, its shortest text (as Python's repr writes it), and the round trip. */
DT_TEST(doubles)
{
    static const struct {
        double d;
        const char *text;
    } cases[] = {
        {5e-324, "5e-324"}, /* the least subnormal, written 4.9e-324 too */
        {2.2250738585072014e-308, "2.2250738585072014e-308"}, /* DBL_MIN */
        {2.225073858507201e-308, "2.225073858507201e-308"},   /* largest subnormal */
        {DBL_MAX, "1.7976931348623157e+308"},
        {-DBL_MAX, "-1.7976931348623157e+308"},
        {9007199254740992.0, "9007199254740992.0"}, /* 2^53 */
        {9007199254740994.0, "9007199254740994.0"}, /* 2^53 + 2 */
        {-0.0, "-0.0"},
        {0.0, "0.0"},
        {1.0, "1.0"},
        {1.0000000000000002, "1.0000000000000002"},
        {0.30000000000000004, "0.30000000000000004"},
        {0.1, "0.1"},
        {1e16, "1e+16"},
        {1e22, "1e+22"},
        {1e23, "1e+23"},
        {123456789012.5, "123456789012.5"},
        {3.4028234663852886e+38, "3.4028234663852886e+38"}, /* FLT_MAX as a double */
        {5e-310, "5e-310"},
    };
    char buf[DSJ_NUMBER_MAX], name[160];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dsj_format_double(cases[i].d, buf);
        snprintf(name, sizeof name, "double %s prints as its shortest text", cases[i].text);
        STR_EQ(buf, cases[i].text, name);
        snprintf(name, sizeof name, "double %s reads back to the same bits", cases[i].text);
        OK(same_bits(strtod(buf, NULL), cases[i].d), name);
    }
    /* 4.9e-324 and the 17-digit texts read as the same doubles. */
    OK(same_bits(strtod("4.9e-324", NULL), 5e-324), "4.9e-324 is the least subnormal");
    dsj_format_double(strtod("4.9406564584124654e-324", NULL), buf);
    STR_EQ(buf, "5e-324", "4.9406564584124654e-324 prints as 5e-324");
    /* 2^53 + 1 is not a double: it reads as 2^53 (ties to even). */
    dsj_format_double(strtod("9007199254740993", NULL), buf);
    STR_EQ(buf, "9007199254740992.0", "2^53+1 as a double is 2^53");
    dsj_format_double(strtod("9007199254740991", NULL), buf);
    STR_EQ(buf, "9007199254740991.0", "2^53-1 prints in full");
    dsj_format_double(NAN, buf);
    STR_EQ(buf, "nan", "NaN prints as nan");
    dsj_format_double(-INFINITY, buf);
    STR_EQ(buf, "-inf", "-inf prints as -inf");
    /* A sweep: random bit patterns print in at most 17 digits and read back exactly. */
    uint64_t x = 0x9E3779B97F4A7C15u;
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!isfinite(d)) continue;
        dsj_format_double(d, buf);
        if (!same_bits(strtod(buf, NULL), d)) bad++;
    }
    OK(bad == 0, "20000 random doubles read back to the same bits");
}

/* Halfway cases: decimals exactly between two doubles read to the even one, and the
 * printer's shortest text for each neighbour reads back to that neighbour. */
DT_TEST(halfway)
{
    char buf[DSJ_NUMBER_MAX];
    double a = strtod("9007199254740993", NULL); /* between 2^53 and 2^53+2 */
    OK(a == 9007199254740992.0, "2^53+1 reads to the even neighbour 2^53");
    double b = strtod("9007199254740995", NULL); /* between 2^53+2 and 2^53+4 */
    OK(b == 9007199254740996.0, "2^53+3 reads to the even neighbour 2^53+4");
    /* 1 + 2^-53 is halfway between 1 and 1 + 2^-52. */
    double h = strtod("1.00000000000000011102230246251565404236316680908203125", NULL);
    OK(h == 1.0, "1 + 2^-53 reads as 1.0 (even)");
    double up = nextafter(1.0, 2.0);
    dsj_format_double(up, buf);
    STR_EQ(buf, "1.0000000000000002", "the double after 1.0");
    double down = nextafter(1.0, 0.0);
    dsj_format_double(down, buf);
    STR_EQ(buf, "0.9999999999999999", "the double before 1.0");
    /* 5e-324 / 2 is halfway between 0 and the least subnormal: it reads as 0. */
    OK(strtod("2.4703282292062327e-324", NULL) == 0.0, "half the least subnormal reads as 0");
}

DT_TEST(floats)
{
    static const struct {
        float f;
        const char *text;
    } cases[] = {
        {FLT_MAX, "3.4028235e+38"},
        {-FLT_MAX, "-3.4028235e+38"},
        {0.1f, "0.1"},
        {1e-45f, "1e-45"}, /* the least float subnormal */
        {FLT_MIN, "1.1754944e-38"},
        {16777216.0f, "16777216.0"}, /* 2^24 */
        {16777218.0f, "16777218.0"},
        {-0.0f, "-0.0"},
        {1.0000001f, "1.0000001"},
    };
    char buf[DSJ_NUMBER_MAX], name[160];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dsj_format_float32(cases[i].f, buf);
        snprintf(name, sizeof name, "float32 %s prints as its shortest text", cases[i].text);
        STR_EQ(buf, cases[i].text, name);
        float back = strtof(buf, NULL);
        snprintf(name, sizeof name, "float32 %s reads back to the same bits", cases[i].text);
        OK(memcmp(&back, &cases[i].f, sizeof back) == 0, name);
    }
    float f = 0;
    OK(dsj_parse_float32("3.4028235e+38", &f) == DSJ_FLOAT_OK && f == FLT_MAX,
       "3.4028235e+38 is in the float32 range: it rounds to FLT_MAX");
    /* FLT_MAX's rounding limit is halfway to 2^128: 340282356779733661637539395458142568448. */
    OK(dsj_parse_float32("3.4028235677973366e+38", &f) == DSJ_FLOAT_OK && f == FLT_MAX,
       "a decimal just below FLT_MAX's rounding limit rounds to FLT_MAX");
    OK(dsj_parse_float32("340282356779733661637539395458142568448", &f) == DSJ_FLOAT_RANGE,
       "the rounding limit itself rounds to infinity (ties to even: FLT_MAX is odd)");
    OK(dsj_parse_float32("3.4028235677973367e+38", &f) == DSJ_FLOAT_RANGE,
       "a decimal just above the rounding limit is out of the float32 range");
    OK(dsj_parse_float32("3.5e38", &f) == DSJ_FLOAT_RANGE, "3.5e38 is out of the float32 range");
    OK(dsj_parse_float32("-1e39", &f) == DSJ_FLOAT_RANGE, "-1e39 is out of the float32 range");
    OK(dsj_parse_float32("1e-50", &f) == DSJ_FLOAT_OK && f == 0.0f,
       "1e-50 rounds to zero: in range");
    OK(dsj_parse_float32("-inf", &f) == DSJ_FLOAT_OK && isinf(f) && f < 0,
       "-inf is an infinity, not an overflow");
    OK(dsj_parse_float32("nan", &f) == DSJ_FLOAT_OK && isnan(f), "nan reads");
    OK(dsj_parse_float32("1.5x", &f) == DSJ_FLOAT_SYNTAX, "1.5x is not a float");
    OK(dsj_parse_float32(" 1", &f) == DSJ_FLOAT_SYNTAX, "leading blanks are not a float");
    /* Rounding once matters: this decimal lies just above the halfway point between two
     * floats, but its nearest double is exactly that halfway point, so going through a
     * double first would round to the even float instead. */
    const char *t = "1.00000005960464477550";
    float once = 0;
    dsj_parse_float32(t, &once);
    float twice = (float)strtod(t, NULL);
    OK(once == nextafterf(1.0f, 2.0f) && twice == 1.0f,
       "a float32 text is rounded once, not through a double");
}

DT_TEST(integers)
{
    char buf[DSJ_NUMBER_MAX];
    int64_t i = 0;
    uint64_t u = 0;
    dsj_format_int64(INT64_MIN, buf);
    STR_EQ(buf, "-9223372036854775808", "INT64_MIN prints exactly");
    dsj_format_uint64(UINT64_MAX, buf);
    STR_EQ(buf, "18446744073709551615", "UINT64_MAX prints exactly");
    OK(dsj_parse_int64("-9223372036854775808", &i) && i == INT64_MIN, "INT64_MIN reads exactly");
    OK(dsj_parse_int64("9223372036854775807", &i) && i == INT64_MAX, "INT64_MAX reads exactly");
    OK(!dsj_parse_int64("9223372036854775808", &i), "INT64_MAX + 1 is out of the int64 range");
    OK(dsj_parse_uint64("18446744073709551615", &u) && u == UINT64_MAX, "UINT64_MAX reads");
    OK(!dsj_parse_uint64("18446744073709551616", &u), "UINT64_MAX + 1 is out of range");
    OK(!dsj_parse_uint64("-1", &u), "-1 is not a uint64");
    OK(dsj_parse_uint64("-0", &u) && u == 0, "-0 is the uint64 0");
    OK(!dsj_parse_int64("1.0", &i) && !dsj_parse_int64("+1", &i) && !dsj_parse_int64("", &i),
       "only digits with an optional minus are integer texts");
    OK(dsj_parse_int64("9007199254740993", &i) && i == 9007199254740993LL, "2^53+1 is exact");
}

/* Reading then printing gives the source text back, numbers exact at any width. */
DT_TEST(round_trip)
{
    const char *doc = "{\"a\":[9007199254740993,-9223372036854775808,18446744073709551615,"
                      "1.0000000000000002,0.30000000000000004,1.7976931348623157e+308,"
                      "4.9e-324,2.2250738585072014e-308,-0.0,-0,1.0,1,3.4028235e+38,1E400],"
                      "\"s\":\"gpu\\u00000\",\"k\\u0000\":\"\\\\u0000 is not a NUL\","
                      "\"e\":\"\\\"\\n\\t\\u0001\"}";
    size_t at = 99;
    cJSON *root = dsj_parse(doc, strlen(doc), &at);
    OK(root != NULL, "the hard-values document parses");
    if (root == NULL) return;
    char *printed = dsj_print(root, false, NULL);
    STR_EQ(printed, doc, "printing gives the source text back");
    cJSON_free(printed);
    cJSON *dup = cJSON_Duplicate(root, true);
    printed = dsj_print(dup, false, NULL);
    STR_EQ(printed, doc, "a cJSON_Duplicate prints the same");
    cJSON_free(printed);
    cJSON_Delete(dup);

    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "a");
    int64_t i = 0;
    uint64_t u = 0;
    float f = 0;
    OK(dsj_get_int64(cJSON_GetArrayItem(a, 0), &i) && i == 9007199254740993LL,
       "2^53+1 read from JSON is exact");
    OK(dsj_get_int64(cJSON_GetArrayItem(a, 1), &i) && i == INT64_MIN, "INT64_MIN from JSON");
    OK(dsj_get_uint64(cJSON_GetArrayItem(a, 2), &u) && u == UINT64_MAX, "UINT64_MAX from JSON");
    OK(!dsj_get_int64(cJSON_GetArrayItem(a, 2), &i), "UINT64_MAX is not an int64");
    OK(!dsj_get_int64(cJSON_GetArrayItem(a, 3), &i), "1.0000000000000002 is not an integer");
    OK(dsj_get_float32(cJSON_GetArrayItem(a, 12), &f) == DSJ_FLOAT_OK && f == FLT_MAX,
       "3.4028235e+38 from JSON is FLT_MAX as a float32");
    OK(dsj_get_float32(cJSON_GetArrayItem(a, 5), &f) == DSJ_FLOAT_RANGE,
       "DBL_MAX from JSON is out of the float32 range");

    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "s");
    OK(dsj_string_has_nul(s->valuestring), "\"gpu\\u00000\" keeps its NUL");
    char raw[16];
    size_t n = dsj_string_decode(s->valuestring, raw);
    OK(n == 5 && memcmp(raw,
                        "gpu\0"
                        "0",
                        5) == 0,
       "it decodes to the 5 bytes g p u NUL 0");
    OK(strcmp(s->valuestring, "gpu") != 0, "it is not the string \"gpu\"");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "k\xC0\x80");
    OK(k != NULL && !dsj_string_has_nul(k->valuestring),
       "a key keeps its NUL; an escaped backslash before u0000 is no NUL");
    cJSON_Delete(root);
}

DT_TEST(made_in_c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "i", dsj_create_int64(INT64_MIN));
    cJSON_AddItemToObject(o, "u", dsj_create_uint64(UINT64_MAX));
    cJSON_AddItemToObject(o, "d", dsj_create_double(1.0));
    cJSON_AddItemToObject(o, "f", dsj_create_float32(0.1f));
    cJSON_AddItemToObject(o, "n", cJSON_CreateNumber(3));
    cJSON_AddItemToObject(o, "m", cJSON_CreateNumber(DBL_MAX));
    cJSON_AddItemToObject(o, "z", cJSON_CreateNumber(-0.0));
    cJSON_AddItemToObject(o, "x", cJSON_CreateNumber(NAN));
    cJSON_AddItemToObject(o, "s", dsj_create_string_len("a\0b", 3));
    char *p = dsj_print(o, false, NULL);
    STR_EQ(p,
           "{\"i\":-9223372036854775808,\"u\":18446744073709551615,\"d\":1.0,\"f\":0.1,\"n\":3,"
           "\"m\":1.7976931348623157e+308,\"z\":-0.0,\"x\":null,\"s\":\"a\\u0000b\"}",
           "numbers and strings made in C print exactly");
    cJSON_free(p);
    cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "i");
    dsj_set_number(n, 2.5);
    OK(dsj_number_text(n) == NULL, "a changed number drops its text");
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "u"), 7);
    p = dsj_print(cJSON_GetObjectItemCaseSensitive(o, "u"), false, NULL);
    STR_EQ(p, "7", "a number changed behind dsjson's back prints its new value");
    cJSON_free(p);
    cJSON *small = cJSON_CreateObject();
    cJSON_AddItemToObject(small, "a", cJSON_CreateArray());
    cJSON_AddItemToArray(cJSON_GetObjectItem(small, "a"), cJSON_CreateNumber(1));
    cJSON_AddItemToArray(cJSON_GetObjectItem(small, "a"), cJSON_CreateObject());
    cJSON_AddItemToObject(small, "b", cJSON_CreateTrue());
    char *mine = dsj_print(small, true, NULL), *theirs = cJSON_Print(small);
    STR_EQ(mine, theirs, "the formatted layout is cJSON_Print's");
    cJSON_free(mine);
    cJSON_free(theirs);
    cJSON_Delete(small);
    cJSON_Delete(o);
}

DT_TEST(bad_input)
{
    static const struct {
        const char *text;
        size_t at;
    } bad[] = {{"[01]", 1},  {"[1.]", 1},        {"[+1]", 1},           {"[.5]", 1}, {"[1e]", 1},
               {"[1 2]", 3}, {"{\"a\":1} x", 8}, {"[\"\xC0\x80\"]", 2}, {"[-]", 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t at = 999;
        cJSON *r = dsj_parse(bad[i].text, strlen(bad[i].text), &at);
        char name[120];
        snprintf(name, sizeof name, "%s is refused at byte %zu", bad[i].text, bad[i].at);
        if (r == NULL && at != bad[i].at) dt_diag("observed byte %zu", at);
        OK(r == NULL && at == bad[i].at, name);
        cJSON_Delete(r);
    }
    size_t at = 0;
    const char *t = "[\"\\u0000\", \"\\u0000\" x]";
    OK(dsj_parse(t, strlen(t), &at) == NULL && at == 20,
       "an error after rewritten NULs is placed in the source text");
    cJSON *r = dsj_parse("  7 \n", 5, &at);
    OK(r != NULL && dsj_number_text(r) && !strcmp(dsj_number_text(r), "7"),
       "whitespace around a value is fine");
    cJSON_Delete(r);
    OK(dsj_parse("[1,", 3, &at) == NULL && at == 3, "a truncated text fails at its end");
    OK(dsj_parse("[1]\0x", 5, &at) == NULL && at == 3, "a NUL byte is refused");
    r = dsj_parse("[1,2]garbage", 5, &at);
    OK(r != NULL, "only LEN bytes are read");
    cJSON_Delete(r);
}

/* The formatters' text is the definition itself: the least number of significant digits
 * whose correctly rounded decimal (printf's %.*g) reads back, found here by trying every
 * count from 1 up, with ".0" added when it has neither a point nor an exponent. Checked on
 * every power of two (where reading back is not monotone in the digit count), on random bit
 * patterns and on fractions k / (2^21 - 1) (linspace's values). */
static void definition(double d, bool single, char *out)
{
    for (int p = 1; p <= (single ? 9 : 17); p++) {
        snprintf(out, 40, "%.*g", p, d);
        if (single ? strtof(out, NULL) == (float)d : strtod(out, NULL) == d) break;
    }
    if (strpbrk(out, ".e") == NULL) strcat(out, ".0");
}

static void is_definition(double d, bool single)
{
    char want[48], got[DSJ_NUMBER_MAX];
    definition(d, single, want);
    size_t n = single ? dsj_format_float32((float)d, got) : dsj_format_double(d, got);
    if (strcmp(got, want) != 0 || n != strlen(got))
        dt_fail(__FILE__, __LINE__, "%s %a\n#   expected: %s\n#   observed: %s (length %zu)",
                single ? "float32" : "float64", d, want, got, n);
}

DT_TEST(shortest_is_the_definition)
{
    for (int e = -1074; e <= 1023; e++) {
        is_definition(ldexp(1.0, e), false);
        is_definition(-ldexp(1.0, e), false);
    }
    for (int e = -149; e <= 127; e++) {
        is_definition((double)ldexpf(1.0f, e), true);
        is_definition(-(double)ldexpf(1.0f, e), true);
    }
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        float f;
        uint32_t lo = (uint32_t)x;
        memcpy(&d, &x, sizeof d);
        memcpy(&f, &lo, sizeof f);
        if (isfinite(d)) is_definition(d, false);
        if (isfinite(f)) is_definition((double)f, true);
    }
    for (int k = 0; k < 50000; k++) {
        is_definition((double)k / 2097151.0, false);
        is_definition((double)(float)((double)k / 2097151.0), true);
    }
}

/* Packed "data": the same document as dsj_parse reads (printed alike), elements walked one
 * at a time, and no node per element. */
static const dsj_parse_options packing = {.pack_data = true};

static char *printed(const char *text, const dsj_parse_options *opt)
{
    cJSON *v = dsj_parse_with(text, strlen(text), opt, NULL, NULL);
    char *s = v ? dsj_print(v, false, NULL) : NULL;
    cJSON_Delete(v);
    return s;
}

DT_TEST(packed_reads_as_plain)
{
    static const char *const docs[] = {
        "{\"dtype\": \"float64\", \"shape\": [3], \"data\": [ 1.5 , \"nan\",-0.0 ]}",
        "{\"data\":[]}",
        "{\"data\": [[1, 2], [ \"inf\" ,-1e-300]], \"x\": [1,2,3]}",
        "{\"data\": [true,false,null,1,\"a b\"]}",
        "[{\"data\": [1]}, {\"data\": [2, 3]}, \"data\", {\"data\": 5}]",
        "{\"data\": [1, [2]], \"y\": 1}", /* a pair of one: not packed */
        "{\"data\": [1, {\"a\": 1}]}",    /* an object: not packed */
        "{\"data\": [\"\\u0000\", 1]}",   /* an escape: not packed */
        "{\"data\": [12345678901234567890123456789012345678901234567890123456789012345678]}",
        "{\"data\": [\"\\u0000\"], \"z\": \"\\u0000\", \"data2\": [1,2]}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char *plain = printed(docs[i], NULL), *packed = printed(docs[i], &packing);
        STR_EQ(packed, plain ? plain : "(NULL)", docs[i]);
        cJSON_free(plain);
        cJSON_free(packed);
    }
    const char *t = "{\"data\": [1, 2.50, \"-inf\", true, [3, 4]], \"shape\": [5]}";
    cJSON *v = dsj_parse_with(t, strlen(t), &packing, NULL, NULL);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(v, "data");
    OK(dsj_is_packed(d) && dsj_is_array(d) && !cJSON_IsArray(d), "data is packed");
    OK(dsj_array_length(d) == 5, "a packed array knows its length");
    OK(!dsj_is_packed(cJSON_GetObjectItemCaseSensitive(v, "shape")), "only data is packed");
    dsj_iter it;
    dsj_iter_init(&it, d);
    const cJSON *e = dsj_iter_next(&it);
    int64_t i64 = 0;
    OK(e && dsj_get_int64(e, &i64) && i64 == 1, "element 0 is the integer 1");
    e = dsj_iter_next(&it);
    OK(e && cJSON_IsNumber(e) && e->valuedouble == 2.5, "element 1 is 2.5");
    STR_EQ(dsj_number_text(e), "2.50", "element 1 keeps its text");
    e = dsj_iter_next(&it);
    STR_EQ(cJSON_IsString(e) ? e->valuestring : NULL, "-inf", "element 2 is a string");
    e = dsj_iter_next(&it);
    OK(cJSON_IsTrue(e), "element 3 is true");
    e = dsj_iter_next(&it);
    OK(cJSON_IsArray(e) && cJSON_GetArraySize(e) == 2 && cJSON_GetArrayItem(e, 1)->valuedouble == 4,
       "element 4 is the pair [3, 4]");
    cJSON *copy = cJSON_Duplicate(e, true);
    char *cs = dsj_print(copy, false, NULL);
    STR_EQ(cs, "[3,4]", "an element duplicates into a tree of its own");
    cJSON_free(cs);
    cJSON_Delete(copy);
    OK(dsj_iter_next(&it) == NULL && dsj_iter_next(&it) == NULL, "then the end, and it stays");
    cJSON *dup = cJSON_Duplicate(d, true);
    OK(dsj_is_packed(dup) && dsj_array_length(dup) == 5, "a duplicate stays packed");
    cJSON *un = dsj_unpack(dup);
    OK(cJSON_IsArray(un) && cJSON_GetArraySize(un) == 5, "dsj_unpack gives a plain array");
    cJSON_Delete(un);
    cJSON_Delete(dup);
    cJSON_Delete(v);
}

DT_TEST(packed_errors_and_limits)
{
    static const struct {
        const char *text;
        size_t at;
    } bad[] = {{"{\"data\": [1, 01]}", 13},
               {"{\"data\": [1, 2] x}", 16},
               {"{\"data\": [1, 2] \"\\u0000\" x}", 16},
               {"{\"data\": [1, 2]", 15},
               {"{\"a\": \"\\u0000\", \"data\": [1] , ]}", 31}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t plain_at = 999, at = 999;
        cJSON *r0 = dsj_parse(bad[i].text, strlen(bad[i].text), &plain_at);
        cJSON *r = dsj_parse_with(bad[i].text, strlen(bad[i].text), &packing, &at, NULL);
        if (r == NULL && at != bad[i].at) dt_diag("observed byte %zu (plain %zu)", at, plain_at);
        OK(r0 == NULL && r == NULL && at == plain_at && at == bad[i].at, bad[i].text);
        cJSON_Delete(r0);
        cJSON_Delete(r);
    }
    OK(dsj_parse_with("{\"da+\\", 6, &packing, NULL, NULL) == NULL,
       "a text ending in a backslash inside a string is refused, read within its bytes");
    /* Packing must not make a text that nests too deep readable. */
    size_t deep = DSJ_MAX_DEPTH - 1;
    char *d = malloc(2 * deep + 64);
    size_t k = 0;
    for (size_t i = 0; i < deep; i++)
        d[k++] = '[';
    k += (size_t)sprintf(d + k, "{\"data\":[[1,2]]}");
    for (size_t i = 0; i < deep; i++)
        d[k++] = ']';
    size_t plain_at = 0, packed_at = 1;
    cJSON *r0 = dsj_parse(d, k, &plain_at);
    cJSON *r1 = dsj_parse_with(d, k, &packing, &packed_at, NULL);
    OK(r0 == NULL && r1 == NULL && plain_at == packed_at,
       "a text too deep for the plain reader is too deep packed, refused at the same byte");
    free(d);
    dsj_parse_options few = {.pack_data = true, .max_values = 8};
    const char *why = "unset";
    const char *t = "{\"data\": [1,2,3,4,5,6,7,8], \"shape\": [8]}";
    cJSON *v = dsj_parse_with(t, strlen(t), &few, NULL, &why);
    OK(v != NULL, "values inside packed data do not count");
    cJSON_Delete(v);
    t = "{\"list\": [1,2,3,4,5,6,7,8]}";
    size_t at = 0;
    OK(dsj_parse_with(t, strlen(t), &few, &at, &why) == NULL && why &&
           strstr(why, "too many values") && at == 20,
       "more values than max_values elsewhere are refused, with the reason");
    OK(dsj_parse_with("[1", 2, &few, NULL, &why) == NULL && why == NULL,
       "a syntax error has no reason beyond its place");
}

/* A packed array of N zeros costs its text once, not a node per element: counted through
 * cJSON's allocation hooks. */
static size_t allocated;
static void *counting_malloc(size_t n)
{
    allocated += n;
    return malloc(n);
}

DT_TEST(packed_memory)
{
    size_t n = 1000000;
    char *t = malloc(2 * n + 32);
    size_t k = (size_t)sprintf(t, "{\"data\": [");
    for (size_t i = 0; i < n; i++) {
        t[k++] = '0';
        t[k++] = i + 1 < n ? ',' : ']';
    }
    t[k++] = '}';
    cJSON_Hooks hooks = {counting_malloc, free};
    cJSON_InitHooks(&hooks);
    allocated = 0;
    cJSON *v = dsj_parse_with(t, k, &packing, NULL, NULL);
    size_t packed_bytes = allocated;
    cJSON_Delete(v);
    allocated = 0;
    v = dsj_parse(t, k, NULL);
    size_t plain_bytes = allocated;
    cJSON_Delete(v);
    cJSON_InitHooks(NULL);
    free(t);
    dt_diag("a %zu-byte text: packed %zu bytes allocated, plain %zu", k, packed_bytes, plain_bytes);
    OK(packed_bytes <= 2 * k + 4096, "packed: at most twice the text (the copy and the data)");
    OK(plain_bytes > 20 * k, "plain: a node per element (what packing is for)");
}

/* A NUL-terminated text with nothing to rewrite (a reply of one long string) is read in
 * place: the string costs its bytes once, not the copy's too; what it reads, and where a bad
 * text fails, are the copy's. */
DT_TEST(terminated_in_place)
{
    size_t n = 1000000;
    char *t = malloc(n + 32);
    size_t k = (size_t)sprintf(t, "{\"result\": \"");
    memset(t + k, 'x', n);
    k += n;
    k += (size_t)sprintf(t + k, "\"}");
    static const dsj_parse_options in_place = {.pack_data = true, .terminated = true};
    cJSON_Hooks hooks = {counting_malloc, free};
    cJSON_InitHooks(&hooks);
    allocated = 0;
    cJSON *v = dsj_parse_with(t, k, &in_place, NULL, NULL);
    size_t in_place_bytes = allocated;
    allocated = 0;
    cJSON *w = dsj_parse_with(t, k, &packing, NULL, NULL);
    size_t copied_bytes = allocated;
    cJSON_InitHooks(NULL);
    OK(v && w && cJSON_Compare(v, w, true), "read in place, the text reads as copied");
    dt_diag("a %zu-byte string reply: %zu bytes allocated in place, %zu copied", k, in_place_bytes,
            copied_bytes);
    OK(in_place_bytes < k + 4096 && copied_bytes > 2 * n, "in place: the string once");
    cJSON_Delete(v);
    cJSON_Delete(w);
    const char *bad = "{\"a\": \"b\" 1}";
    size_t at1 = 0, at2 = 1;
    OK(!dsj_parse_with(bad, strlen(bad), &in_place, &at1, NULL) &&
           !dsj_parse_with(bad, strlen(bad), &packing, &at2, NULL) && at1 == at2,
       "a bad text fails at the same byte read in place");
    free(t);
}

/* The bytes the heap holds, its own headers included (glibc's allocator; 0 elsewhere, and
 * under AddressSanitizer, whose allocator glibc's figures do not see). */
static size_t heap_in_use(void)
{
#ifdef __GLIBC__
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#else
    return 0;
#endif
}

/* A case file's shape, many small values, read into an arena: the same tree as read plainly,
 * in less memory than the allocator takes for a node, a key, a string and a number text one
 * by one (malloc's header and rounding on each: 0.80 here); a bad text fails at the same
 * byte. */
DT_TEST(arena)
{
    size_t n = 20000;
    char *t = malloc(100 * n + 64);
    size_t k = (size_t)sprintf(t, "{\"cases\":[");
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(t + k, "%s{\"id\":\"c.%zu\",\"args\":{\"x\":[1,2.5,\"a\\u0000b\"]}}",
                             i ? "," : "", i);
    k += (size_t)sprintf(t + k, "]}");
    size_t before = heap_in_use();
    cJSON *plain = dsj_parse(t, k, NULL);
    size_t plain_bytes = heap_in_use() - before;
    before = heap_in_use();
    dsj_arena *a = dsj_arena_new();
    dsj_parse_options into = {.terminated = true, .arena = a};
    cJSON *v = dsj_parse_with(t, k, &into, NULL, NULL);
    size_t arena_bytes = heap_in_use() - before;
    OK(v && plain && cJSON_Compare(v, plain, true), "the same tree as read plainly");
    char *p1 = dsj_print(v, false, NULL), *p2 = dsj_print(plain, false, NULL);
    OK(p1 && p2 && !strcmp(p1, p2), "and it prints the same (numbers' texts, NULs)");
    dt_diag("a %zu-byte text: the heap grew %zu bytes read plainly, %zu into the arena", k,
            plain_bytes, arena_bytes);
    if (plain_bytes > 0) /* 0: an allocator without glibc's figures (a sanitizer's) */
        OK(arena_bytes * 20 < plain_bytes * 17, "the arena: under 0.85 of the plain tree's heap");
    void *after = malloc(16);
    OK(after != NULL, "cJSON's default allocator is back after the parse");
    free(after);
    cJSON *made = cJSON_CreateString("freed with free");
    cJSON_Delete(made); /* would crash were the arena's hooks left installed */
    const char *bad = "{\"a\": [1, 2} ";
    size_t at1 = 0, at2 = 1;
    OK(!dsj_parse_with(bad, strlen(bad), &into, &at1, NULL) && !dsj_parse(bad, strlen(bad), &at2) &&
           at1 == at2,
       "a bad text fails at the same byte");
    free(p1);
    free(p2);
    cJSON_Delete(plain);
    dsj_arena_free(a);
    free(t);
}

DT_MAIN(DT_ENTRY(doubles), DT_ENTRY(shortest_is_the_definition), DT_ENTRY(halfway),
        DT_ENTRY(floats), DT_ENTRY(integers), DT_ENTRY(round_trip), DT_ENTRY(made_in_c),
        DT_ENTRY(bad_input), DT_ENTRY(packed_reads_as_plain), DT_ENTRY(packed_errors_and_limits),
        DT_ENTRY(packed_memory), DT_ENTRY(terminated_in_place), DT_ENTRY(arena))
