/* Unit tests of the runner's modules that need no adapter: matching (judge.c), source
 * locations (jsonloc.c), the expectations file, escaping for XML and YAML, UTF-8 checks
 * and SHA-256. On devspec's one C test harness (testing/dtest.h). */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"
#include "dtest.h"
#include "small_reply_check.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* Stops the test unless ok holds, naming the check and its expected and observed values. */
#define CHECK(cond, name, expected, observed)                                                      \
    check_at((cond), (name), (expected), (observed), __FILE__, __LINE__)

static void check_at(bool ok, const char *name, const char *expected, const char *observed,
                     const char *file, int line)
{
    if (ok) return;
    dt_fail(file, line, "%s\n#   expected: \"%s\"\n#   observed: \"%s\"", name, expected,
            observed ? observed : "(null)");
}

/* ---- judge ---------------------------------------------------------------------------- */

static int eq_calls;

/* Device equality for the tests: "device#0" and "device#100" are one device; asking about
 * "device#bad" fails. */
static int fake_equal(void *ctx, const char *a, const char *b, dsr_buf *err)
{
    (void)ctx;
    eq_calls++;
    if (!strcmp(a, "device#bad") || !strcmp(b, "device#bad")) {
        dsr__buf_puts(err, "no such device");
        return -1;
    }
    const char *ca = !strcmp(a, "device#100") ? "device#0" : a;
    const char *cb = !strcmp(b, "device#100") ? "device#0" : b;
    return strcmp(ca, cb) == 0;
}

/* The bindings "$name" references resolve to in the matcher tests. */
static const char *bindings_json = NULL;

/* Set: the observed value is read as a reply's value is (dsr__parse_reply), as the value of
 * a key "data", so that each list of scalars or pairs in it is packed (common/dsjson.h). */
static bool packed_observed = false;

static cJSON *observed_value(const char *observed)
{
    if (!packed_observed) return dsj_parse(observed, strlen(observed), NULL);
    size_t n = strlen(observed) + 16;
    char *t = malloc(n);
    snprintf(t, n, "{\"data\": %s}", observed);
    const char *why = NULL;
    cJSON *doc = dsr__parse_reply(t, strlen(t), &why);
    free(t);
    cJSON *o = doc ? cJSON_DetachItemFromObjectCaseSensitive(doc, "data") : NULL;
    cJSON_Delete(doc);
    return o;
}

static int match(const char *expected, const char *observed, char *why, size_t cap)
{
    /* Read as the case loader reads a case (dsj_parse keeps every number's text). */
    cJSON *e = dsj_parse(expected, strlen(expected), NULL);
    cJSON *o = observed_value(observed);
    cJSON *b = bindings_json ? dsj_parse(bindings_json, strlen(bindings_json), NULL) : NULL;
    if (!e || !o || (bindings_json && !b)) {
        fprintf(stderr, "bad test JSON: %s / %s\n", expected, observed);
        exit(2);
    }
    dsr_judge j = {fake_equal, NULL, b, DSR_END_OK};
    dsr_buf w = {0};
    int r = dsr__judge_match(&j, e, o, &w);
    snprintf(why, cap, "%s", w.data ? w.data : "");
    dsr__buf_free(&w);
    cJSON_Delete(e);
    cJSON_Delete(o);
    cJSON_Delete(b);
    return r;
}

static void expect_match(const char *name, const char *e, const char *o, int want)
{
    char why[1024];
    int r = match(e, o, why, sizeof why);
    char obs[1100];
    snprintf(obs, sizeof obs, "%d (%s)", r, why);
    char exp[16];
    snprintf(exp, sizeof exp, "%d", want);
    CHECK(r == want, name, exp, obs);
}

DT_TEST(judge)
{
    expect_match("object: partial match ignores extra keys", "{\"a\":1}", "{\"a\":1,\"b\":2}", 1);
    expect_match("object: a missing key does not match", "{\"a\":1,\"c\":3}", "{\"a\":1}", 0);
    expect_match("list: same length, element-wise", "[1,[2,3]]", "[1,[2,3]]", 1);
    expect_match("list: a longer result does not match", "[1]", "[1,2]", 0);
    expect_match("numbers compare by value (1 and 1.0)", "1", "1.0", 1);
    expect_match("a string is not a number", "\"1\"", "1", 0);
    expect_match("null matches null", "null", "null", 1);
    expect_match("true is not false", "true", "false", 0);
    expect_match("true is not 1", "true", "1", 0);

    eq_calls = 0;
    expect_match("devices: the same handle needs no question", "\"device#1\"", "\"device#1\"", 1);
    CHECK(eq_calls == 0, "devices: identical handles are not sent to device.equal", "0 calls",
          eq_calls ? "called" : "0 calls");
    expect_match("devices: two handles of one device match through device.equal",
                 "{\"device\":\"device#0\"}", "{\"device\":\"device#100\"}", 1);
    CHECK(eq_calls == 1, "devices: device.equal was asked once", "1",
          eq_calls == 1 ? "1" : "other");
    expect_match("devices: different devices do not match", "\"device#0\"", "\"device#1\"", 0);
    expect_match("devices: a failing device.equal is -1", "\"device#0\"", "\"device#bad\"", -1);
    expect_match("devices: a handle is not compared with a non-handle string", "\"device#0\"",
                 "\"cpu\"", 0);

    const char *f32 =
        "{\"dtype\":\"float32\",\"shape\":[4],\"data\":[\"nan\",\"-0.0\",\"0.1\",\"inf\"]}";
    expect_match("typed float32: NaN, -0.0, 0.1 and inf match their float32 images", f32,
                 "{\"dtype\":\"float32\",\"shape\":[4],\"data\":[\"NaN\",\"-0.0\",0."
                 "10000000149011612,\"inf\"]}",
                 1);
    expect_match("typed float32: -0.0 differs from 0.0",
                 "{\"dtype\":\"float32\",\"shape\":[1],\"data\":[\"-0.0\"]}",
                 "{\"dtype\":\"float32\",\"shape\":[1],\"data\":[0]}", 0);
    expect_match("typed float64: 0.1 differs from float32's 0.1",
                 "{\"dtype\":\"float64\",\"shape\":[1],\"data\":[0.1]}",
                 "{\"dtype\":\"float64\",\"shape\":[1],\"data\":[0.10000000149011612]}", 0);
    expect_match("typed float64: NaN does not match a number",
                 "{\"dtype\":\"float64\",\"shape\":[1],\"data\":[\"nan\"]}",
                 "{\"dtype\":\"float64\",\"shape\":[1],\"data\":[1]}", 0);
    expect_match("typed int64: extremes compare exactly as strings",
                 "{\"dtype\":\"int64\",\"shape\":[2],\"data\":[\"9223372036854775807\",\"-"
                 "9223372036854775808\"]}",
                 "{\"dtype\":\"int64\",\"shape\":[2],\"data\":[\"9223372036854775807\",\"-"
                 "9223372036854775808\"]}",
                 1);
    expect_match("typed int64: 2^53+1 differs from 2^53",
                 "{\"dtype\":\"int64\",\"shape\":[1],\"data\":[\"9007199254740993\"]}",
                 "{\"dtype\":\"int64\",\"shape\":[1],\"data\":[\"9007199254740992\"]}", 0);
    expect_match("typed uint64: the maximum as a string",
                 "{\"dtype\":\"uint64\",\"shape\":[1],\"data\":[\"18446744073709551615\"]}",
                 "{\"dtype\":\"uint64\",\"shape\":[1],\"data\":[\"18446744073709551615\"]}", 1);
    expect_match("typed int8: a number and its decimal string are one value",
                 "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[-5,\"7\"]}",
                 "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[\"-5\",7]}", 1);
    expect_match("typed int32: 1.5 is not an integer element",
                 "{\"dtype\":\"int32\",\"shape\":[1],\"data\":[1]}",
                 "{\"dtype\":\"int32\",\"shape\":[1],\"data\":[1.5]}", 0);
    expect_match("typed bool: true is not 1", "{\"dtype\":\"bool\",\"shape\":[1],\"data\":[true]}",
                 "{\"dtype\":\"bool\",\"shape\":[1],\"data\":[1]}", 0);
    expect_match("typed complex128: [re, im] pairs with -inf",
                 "{\"dtype\":\"complex128\",\"shape\":[1],\"data\":[[1.5,\"-inf\"]]}",
                 "{\"dtype\":\"complex128\",\"shape\":[1],\"data\":[[\"1.5\",\"-inf\"]]}", 1);
    expect_match(
        "typed: the dtype must be equal", f32,
        "{\"dtype\":\"float64\",\"shape\":[4],\"data\":[\"nan\",\"-0.0\",\"0.1\",\"inf\"]}", 0);
    expect_match("typed: the shape must be equal",
                 "{\"dtype\":\"int8\",\"shape\":[2,1],\"data\":[1,2]}",
                 "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[1,2]}", 0);
    expect_match("typed: 0-d arrays", "{\"dtype\":\"int8\",\"shape\":[],\"data\":[3]}",
                 "{\"dtype\":\"int8\",\"shape\":[],\"data\":[3]}", 1);

    char why[1024];
    match("{\"x\":{\"dtype\":\"int8\",\"shape\":[3],\"data\":[1,2,3]}}",
          "{\"x\":{\"dtype\":\"int8\",\"shape\":[3],\"data\":[1,2,4]}}", why, sizeof why);
    CHECK(strstr(why, ".x.data[2]") != NULL, "a mismatch names the path to the element",
          ".x.data[2]", why);
}

/* ---- matchers, references and escapes (spec/case-format.md, "Matchers") ------------- */

static void expect_why(const char *name, const char *e, const char *o, const char *needle)
{
    char why[1024];
    int r = match(e, o, why, sizeof why);
    CHECK(r == 0 && strstr(why, needle) != NULL, name, needle, why);
}

DT_TEST(matchers)
{
    expect_match("$len_min 1: a one-element list", "{\"$len_min\":1}", "[\"device#0\"]", 1);
    expect_match("$len_min 1: the empty list is too short", "{\"$len_min\":1}", "[]", 0);
    expect_match("$len_min 0: the empty list", "{\"$len_min\":0}", "[]", 1);
    expect_match("$len_min 2: three elements are enough", "{\"$len_min\":2}", "[1,2,3]", 1);
    expect_match("$len_min: an object is not a list", "{\"$len_min\":0}", "{}", 0);
    expect_match("$len_min: a string is not a list", "{\"$len_min\":0}", "\"ab\"", 0);

    eq_calls = 0;
    expect_match("$contains: a handle of the same device, through device.equal",
                 "{\"$contains\":\"device#100\"}", "[null,\"device#2\",\"device#0\"]", 1);
    CHECK(eq_calls == 2, "$contains: device.equal asked for each handle until one matched (2)", "2",
          eq_calls == 2 ? "2" : "other");
    expect_match("$contains: no element is that device", "{\"$contains\":\"device#0\"}",
                 "[\"device#1\",\"device#2\"]", 0);
    expect_match("$contains: the empty list contains nothing", "{\"$contains\":1}", "[]", 0);
    expect_match("$contains: a failing device.equal is -1", "{\"$contains\":\"device#bad\"}",
                 "[\"device#1\"]", -1);
    expect_match("$contains: elements match partially", "{\"$contains\":{\"a\":1}}",
                 "[{\"a\":2},{\"a\":1,\"b\":3}]", 1);
    expect_match("$contains: a matcher inside", "{\"$contains\":{\"$range\":[10,null]}}",
                 "[1,\"x\",12]", 1);
    expect_match("$contains: a list is required", "{\"$contains\":1}", "1", 0);
    expect_match("$contains: null finds null", "{\"$contains\":null}", "[\"device#0\",null]", 1);

    expect_match("$range: inside", "{\"$range\":[0,100]}", "37.5", 1);
    expect_match("$range: both ends are inclusive (low)", "{\"$range\":[0,100]}", "0", 1);
    expect_match("$range: both ends are inclusive (high)", "{\"$range\":[0,100]}", "100", 1);
    expect_match("$range: just above", "{\"$range\":[0,100]}", "100.000001", 0);
    expect_match("$range: below", "{\"$range\":[0,100]}", "-1e-300", 0);
    expect_match("$range: null is an open high end", "{\"$range\":[1,null]}", "1e300", 1);
    expect_match("$range: null is an open low end", "{\"$range\":[null,0]}", "-5", 1);
    expect_match("$range: open high end still has a low end", "{\"$range\":[1,null]}", "0", 0);
    expect_match("$range: [null, null] takes any number", "{\"$range\":[null,null]}", "-2", 1);
    expect_match("$range: a string is not a number", "{\"$range\":[null,null]}", "\"5\"", 0);
    expect_match("$range: true is not a number", "{\"$range\":[0,1]}", "true", 0);
    expect_match("$range: null is not a number", "{\"$range\":[null,null]}", "null", 0);

    struct {
        const char *type, *value;
        int want;
    } t[] = {{"int", "3", 1},       {"int", "3.0", 1},      {"int", "3.5", 0},
             {"int", "true", 0},    {"int", "\"3\"", 0},    {"number", "3.5", 1},
             {"number", "-7", 1},   {"number", "false", 0}, {"bool", "false", 1},
             {"bool", "0", 0},      {"string", "\"\"", 1},  {"string", "\"device#0\"", 1},
             {"string", "null", 0}, {"list", "[]", 1},      {"list", "{}", 0},
             {"object", "{}", 1},   {"object", "[]", 0},    {"null", "null", 1},
             {"null", "0", 0},      {"null", "\"null\"", 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char e[64], name[128];
        snprintf(e, sizeof e, "{\"$type\":\"%s\"}", t[i].type);
        snprintf(name, sizeof name, "$type %s %s %s", t[i].type, t[i].want ? "takes" : "refuses",
                 t[i].value);
        expect_match(name, e, t[i].value, t[i].want);
    }

    expect_match("matchers stand for values inside objects and lists",
                 "{\"n\":{\"$type\":\"int\"},\"l\":[{\"$range\":[0,1]},{\"$len_min\":1}]}",
                 "{\"n\":4,\"l\":[0.5,[7]],\"extra\":1}", 1);
    expect_match("a matcher that does not hold inside an object", "{\"n\":{\"$type\":\"int\"}}",
                 "{\"n\":0.5}", 0);
    expect_match("a malformed matcher never matches", "{\"$range\":[1]}", "1", 0);
    expect_match("an object with a matcher key and another key never matches",
                 "{\"$type\":\"int\",\"a\":1}", "1", 0);

    /* "$$" escapes a literal "$" at the start of a key and of a string. */
    expect_match("$$key: the result's key \"$key\"", "{\"$$type\":\"int\"}", "{\"$type\":\"int\"}",
                 1);
    expect_match("$$key: its value is compared, not applied as a matcher", "{\"$$type\":\"int\"}",
                 "{\"$type\":3}", 0);
    expect_match("$$key: the key \"$$type\" is not looked up as written", "{\"$$type\":\"int\"}",
                 "{\"$$type\":\"int\"}", 0);
    expect_match("$$text: the string \"$text\"", "\"$$x\"", "\"$x\"", 1);
    expect_match("$$text: not the string \"$$text\"", "\"$$x\"", "\"$$x\"", 0);

    char why[1024];
    match("{\"$range\":[0,100]}", "150", why, sizeof why);
    CHECK(strstr(why, "$range") && strstr(why, "[0,100]") && strstr(why, "150"),
          "a failed $range names the matcher and the observed value", "$range, [0,100], 150", why);
    match("{\"a\":{\"$len_min\":2}}", "{\"a\":[1]}", why, sizeof why);
    CHECK(strstr(why, ".a") && strstr(why, "{\"$len_min\":2}") && strstr(why, "[1]"),
          "a failed $len_min names the path, the matcher and the observed list",
          ".a, {\"$len_min\":2}, [1]", why);

    /* References resolve from the bindings; what they bring in is a plain value. */
    bindings_json = "{\"D0\":\"device#0\",\"v\":{\"$type\":\"int\"},\"s\":\"$$x\","
                    "\"t\":{\"dtype\":\"int8\",\"shape\":[1],\"data\":[5]},\"n\":5}";
    expect_match("$D0 resolves to its handle", "\"$D0\"", "\"device#100\"", 1);
    expect_match("$contains of a reference compares through device.equal",
                 "{\"$contains\":\"$D0\"}", "[\"device#1\",\"device#100\"]", 1);
    expect_match("a bound value with a \"$\" key is not a matcher (it matches itself)", "\"$v\"",
                 "{\"$type\":\"int\"}", 1);
    expect_match("a bound value with a \"$\" key is not a matcher (an int does not match it)",
                 "\"$v\"", "3", 0);
    expect_match("a bound string is compared as written (no escape undone)", "\"$s\"", "\"$$x\"",
                 1);
    expect_match("a bound typed array matches exactly", "{\"r\":\"$t\"}",
                 "{\"r\":{\"dtype\":\"int8\",\"shape\":[1],\"data\":[5]}}", 1);
    expect_match("a reference inside a typed array's elements resolves",
                 "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[\"$n\",6]}",
                 "{\"dtype\":\"int8\",\"shape\":[2],\"data\":[5,6]}", 1);
    expect_match("a reference inside a typed array's elements resolves (and can differ)",
                 "{\"dtype\":\"int8\",\"shape\":[1],\"data\":[\"$n\"]}",
                 "{\"dtype\":\"int8\",\"shape\":[1],\"data\":[6]}", 0);
    expect_why("an unbound reference does not match and says so", "\"$nope\"", "1", "not bound");
    match("{\"$contains\":\"$D0\"}", "[\"device#1\"]", why, sizeof why);
    CHECK(strstr(why, "device#0") && !strstr(why, "$D0"),
          "a failed $contains shows the reference resolved", "device#0", why);
    bindings_json = NULL;
}

/* ---- $close ---------------------------------------------------------------------------- */

/* A typed array of DTYPE with the one element X. */
#define ONE(dtype, x) "{\"dtype\":\"" dtype "\",\"shape\":[1],\"data\":[" x "]}"
#define CLOSE(to, rel, abs) "{\"$close\":{\"to\":" to ",\"rel_eps\":" rel ",\"abs_eps\":" abs "}}"

DT_TEST(close)
{
    /* float32: 1 and the float32 after it (1 + 2^-23) are one epsilon apart */
    expect_match("$close: float32 one ulp apart within 4 eps",
                 CLOSE(ONE("float32", "1.0"), "4", "4"), ONE("float32", "1.00000011920928955"), 1);
    expect_match("$close: float32 one ulp apart with a zero tolerance",
                 CLOSE(ONE("float32", "1.0"), "0", "0"), ONE("float32", "1.00000011920928955"), 0);
    expect_match("exact matching: float32 one ulp apart differ", ONE("float32", "1.0"),
                 ONE("float32", "1.00000011920928955"), 0);
    expect_match("$close: float32 8 ulp apart outside 4 eps",
                 CLOSE(ONE("float32", "1.0"), "4", "0"), ONE("float32", "1.00000095367431641"), 0);
    expect_match("$close: the relative part scales with the larger magnitude",
                 CLOSE(ONE("float32", "1024.0"), "4", "0"), ONE("float32", "1024.0001220703125"),
                 1);
    expect_match("$close: float64 one ulp apart within 4 eps",
                 CLOSE(ONE("float64", "1.0"), "4", "4"), ONE("float64", "1.0000000000000002"), 1);
    expect_match("$close: float64 uses float64's epsilon (2^-40 is far)",
                 CLOSE(ONE("float64", "1.0"), "4", "4"), ONE("float64", "1.0000000000009095"), 0);
    expect_match("$close: float16 one ulp apart within 2 eps",
                 CLOSE(ONE("float16", "1.0"), "2", "0"), ONE("float16", "1.0009765625"), 1);
    expect_match("$close: the absolute part near zero", CLOSE(ONE("float32", "0.0"), "0", "4"),
                 ONE("float32", "1e-7"), 1);
    expect_match("$close: the absolute part is bounded", CLOSE(ONE("float32", "0.0"), "0", "4"),
                 ONE("float32", "1e-6"), 0);
    expect_match("$close: NaN matches NaN", CLOSE(ONE("float32", "\"nan\""), "4", "4"),
                 ONE("float32", "\"nan\""), 1);
    expect_match("$close: NaN does not match a number", CLOSE(ONE("float32", "\"nan\""), "4", "4"),
                 ONE("float32", "1.0"), 0);
    expect_match("$close: an infinity matches itself", CLOSE(ONE("float64", "\"inf\""), "4", "4"),
                 ONE("float64", "\"inf\""), 1);
    expect_match("$close: an infinity is not the largest float",
                 CLOSE(ONE("float32", "\"inf\""), "1e30", "1e30"),
                 ONE("float32", "3.4028234663852886e38"), 0);
    expect_match("$close: +inf is not -inf", CLOSE(ONE("float64", "\"inf\""), "4", "4"),
                 ONE("float64", "\"-inf\""), 0);
    expect_match("$close: -0.0 differs from 0.0 as in exact matching",
                 CLOSE(ONE("float32", "0.0"), "4", "4"), ONE("float32", "-0.0"), 0);
    expect_match("$close: integers stay exact", CLOSE(ONE("int32", "3"), "1e9", "1e9"),
                 ONE("int32", "4"), 0);
    expect_match("$close: bools stay exact", CLOSE(ONE("bool", "true"), "1e9", "1e9"),
                 ONE("bool", "false"), 0);
    expect_match("$close: the dtype must be the same", CLOSE(ONE("float32", "1.0"), "4", "4"),
                 ONE("float64", "1.0"), 0);
    expect_match("$close: the shape must be the same",
                 CLOSE("{\"dtype\":\"float32\",\"shape\":[1,1],\"data\":[1.0]}", "4", "4"),
                 ONE("float32", "1.0"), 0);
    expect_match("$close: complex64 parts at the modulus' scale",
                 CLOSE(ONE("complex64", "[1.0, 0.0]"), "4", "0"), ONE("complex64", "[1.0, 1e-7]"),
                 1);
    expect_match("$close: complex64 parts beyond it",
                 CLOSE(ONE("complex64", "[1.0, 0.0]"), "4", "0"), ONE("complex64", "[1.0, 1e-5]"),
                 0);
    expect_match("$close: plain numbers within float64's epsilon", CLOSE("0.1", "4", "0"),
                 "0.10000000000000002", 1);
    expect_match("$close: plain integers exact", CLOSE("3", "1e9", "1e9"), "4", 0);
    expect_match("$close: lists element-wise", CLOSE("[" ONE("float32", "1.0") ", 2.0]", "4", "4"),
                 "[" ONE("float32", "1.00000011920928955") ", 2.0000000000000004]", 1);
    expect_match("$close: lists of another length", CLOSE("[1.0]", "4", "4"), "[1.0, 1.0]", 0);
    expect_match("$close: strings exactly", CLOSE("\"a\"", "4", "4"), "\"b\"", 0);
    char why[1024];
    match(CLOSE(ONE("float32", "1.0"), "4", "0"), ONE("float32", "1.5"), why, sizeof why);
    CHECK(strstr(why, ".data[0]") && strstr(why, "$close"),
          "a failed $close names the element and the matcher", ".data[0] ... $close", why);
    bindings_json = "{\"v\":" ONE("float32", "0.8414709568023682") "}";
    expect_match("$close: to a bound typed array", CLOSE("\"$v\"", "4", "4"),
                 ONE("float32", "0.8414710164070129"), 1);
    expect_match("$close: to a bound typed array, too far", CLOSE("\"$v\"", "4", "4"),
                 ONE("float32", "0.8414719104766846"), 0);
    bindings_json = NULL;
}

/* ---- locations -------------------------------------------------------------------------- */

DT_TEST(locations)
{
    int line, col;
    const char *t = "{\n  \"a\": [1, {\"b\": \"caf\xc3\xa9\", \"c\": 2}]\n}";
    dsr__offset_to_linecol(t, strlen("{\n  \"a\": [1"), &line, &col);
    CHECK(line == 2 && col == 10, "offset to line and column", "2:10",
          line == 2 && col == 10 ? "2:10" : "other");
    dsr_seg path[3] = {{.key = "a"}, {.index = 1}, {.key = "c"}};
    size_t off = dsr__json_locate(t, path, 3);
    dsr__offset_to_linecol(t, off, &line, &col);
    char obs[32];
    snprintf(obs, sizeof obs, "%d:%d", line, col);
    /* "  \"a\": [1, {\"b\": \"café\", \"c\": 2}]": the value 2 is the 31st character */
    CHECK(line == 2 && col == 31, "locate a.[1].c; columns count characters, not bytes", "2:31",
          obs);
    path[2].at_key = true;
    off = dsr__json_locate(t, path, 3);
    dsr__offset_to_linecol(t, off, &line, &col);
    snprintf(obs, sizeof obs, "%d:%d", line, col);
    CHECK(line == 2 && col == 26, "locate the key itself", "2:26", obs);

    struct {
        const char *text;
        size_t want;
        const char *name;
    } bad[] = {
        {"{\"a\": 1,}", 8, "a trailing comma: at the brace"},
        {"[1 2]", 3, "a missing comma: at the second value"},
        {"{\"a\" 1}", 5, "a missing colon"},
        {"[01]", 2, "a leading zero"},
        {"\"a\\x\"", 3, "a bad escape"},
        {"[1] x", 4, "trailing text"},
        {"[1.]", 3, "a fraction without digits"},
        {"[tru]", 4, "a misspelt literal"},
        {"{\"a\": [1, 2]", 12, "end of input"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t got = dsr__json_error_offset(bad[i].text, strlen(bad[i].text));
        char e[16], o[16];
        snprintf(e, sizeof e, "%zu", bad[i].want);
        snprintf(o, sizeof o, "%zu", got);
        CHECK(got == bad[i].want, bad[i].name, e, o);
    }
    const char *good = " {\"a\": [1, -2.5e3, true, null, \"\\u00e9\"]} ";
    CHECK(dsr__json_error_offset(good, strlen(good)) == strlen(good), "valid JSON has no error",
          "end", "an error");
}

/* ---- expectations --------------------------------------------------------------------- */

DT_TEST(expectations)
{
    char path[] = "/tmp/devspec-exp-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "# comment\n\na.* fail # known\na.b error\n  c.d   skip   # hangs\n";
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        CHECK(false, "write a temporary expectations file", "written", "failed");
        return;
    }
    close(fd);
    dsr_expectations e;
    FILE *devnull = fopen("/dev/null", "w");
    int problems = dsr__expectations_load(&e, path, devnull);
    CHECK(problems == 0 && e.count == 3, "three entries, comments and blank lines ignored", "3",
          e.count == 3 ? "3" : "other");
    dsr_expectation *x = dsr__expectations_match(&e, "a.b");
    CHECK(x && x->status == DSR_FAIL && x->line == 3,
          "the first matching entry wins (a.* before a.b)", "fail, line 3",
          x ? dsr__status_name(x->status) : "none");
    CHECK(x && !strcmp(x->reason, "known"), "the reason follows '#'", "known",
          x ? x->reason : "none");
    x = dsr__expectations_match(&e, "c.d");
    CHECK(x && x->status == DSR_SKIP && x->line == 5, "leading blanks are allowed", "skip, line 5",
          x ? dsr__status_name(x->status) : "none");
    CHECK(dsr__expectations_match(&e, "zzz") == NULL, "no entry matches zzz", "NULL", "an entry");
    CHECK(e.items[1].matches == 0, "a.b never matched: stale", "0", "matched");
    char sha[65];
    dsr__sha256_hex(text, strlen(text), sha);
    CHECK(!strcmp(sha, e.sha256), "the file's SHA-256 is kept", sha, e.sha256);
    dsr__expectations_free(&e);

    text = "x fail\ny maybe\nz\nw fail extra\nv xpass\n";
    fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) return;
    close(fd);
    problems = dsr__expectations_load(&e, path, devnull);
    char obs[16];
    snprintf(obs, sizeof obs, "%d", problems);
    CHECK(problems == 4, "unknown status, missing status, extra words, xpass: four problems", "4",
          obs);
    dsr__expectations_free(&e);
    fclose(devnull);
    unlink(path);
}

/* ---- escaping, UTF-8, SHA-256 ------------------------------------------------------------ */

DT_TEST(text)
{
    dsr_buf b = {0};
    dsr__xml_escape(&b, "<a href=\"x\">&'\x01\xff caf\xc3\xa9\n");
    CHECK(!strcmp(b.data, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;?? caf\xc3\xa9&#10;"),
          "XML escaping: markup, quotes, control bytes and invalid UTF-8",
          "&lt;a href=&quot;x&quot;&gt;&amp;&apos;?? café&#10;", b.data);
    b.len = 0;
    dsr__yaml_quote(&b, "say \"hi\"\\\n\x02");
    CHECK(!strcmp(b.data, "\"say \\\"hi\\\"\\\\\\n\\x02\""), "YAML double-quoted scalar",
          "\"say \\\"hi\\\"\\\\\\n\\x02\"", b.data);
    dsr__buf_free(&b);

    struct {
        const char *s;
        long want;
        const char *name;
    } u[] = {{"plain", -1, "ASCII is valid"},
             {"caf\xc3\xa9", -1, "a two-byte character"},
             {"\xf0\x9f\x98\x80", -1, "a four-byte character"},
             {"ab\xc0\xaf", 2, "an overlong encoding"},
             {"\xed\xa0\x80", 0, "a surrogate"},
             {"x\xe2\x82", 1, "a truncated sequence"},
             {"\x80", 0, "a lone continuation byte"}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        long got = dsr__utf8_invalid_at(u[i].s, strlen(u[i].s));
        char e[16], o[16];
        snprintf(e, sizeof e, "%ld", u[i].want);
        snprintf(o, sizeof o, "%ld", got);
        CHECK(got == u[i].want, u[i].name, e, o);
    }

    char sha[65];
    dsr__sha256_hex("", 0, sha);
    CHECK(!strcmp(sha, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
          "SHA-256 of the empty string (FIPS 180-4 example)", "e3b0c442...", sha);
    dsr__sha256_hex("abc", 3, sha);
    CHECK(!strcmp(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
          "SHA-256 of \"abc\"", "ba7816bf...", sha);
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    dsr__sha256_hex(two, strlen(two), sha);
    CHECK(!strcmp(sha, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
          "SHA-256 of the two-block example", "248d6a61...", sha);
}

/* ---- integers exactly, whatever their size, in every matcher (issue: "$each" of 2^53 + 1
 * never matched the decimal string a writer gives beyond 2^53) --------------------------- */

/* A typed array of DTYPE with the elements X. */
#define TYPED(dtype, n, x) "{\"dtype\":\"" dtype "\",\"shape\":[" n "],\"data\":[" x "]}"
#define P53 "9007199254740992"   /* 2^53 */
#define P53_1 "9007199254740993" /* 2^53 + 1, no double */
#define I64_MIN "-9223372036854775808"
#define U64_MAX "18446744073709551615"
#define P70 "1180591620717411303424" /* 2^70, beyond 64 bits */
#define P70_1 "1180591620717411303425"

DT_TEST(exact_integers)
{
    /* Plain numbers, beyond 2^53 and beyond 64 bits; an integer against a float by value. */
    expect_match("plain: 2^53 + 1 is 2^53 + 1", P53_1, P53_1, 1);
    expect_match("plain: 2^53 + 1 is not 2^53", P53_1, P53, 0);
    expect_match("plain: uint64's maximum is not one less", U64_MAX, "18446744073709551614", 0);
    expect_match("plain: 2^70 + 1 is not 2^70 (beyond 64 bits)", P70_1, P70, 0);
    expect_match("plain: 2^70 is 2^70", P70, P70, 1);
    expect_match("plain: 2^53 + 1 is not the float 2^53", P53_1, P53 ".0", 0);
    expect_match("plain: 2^53 is the float 2^53", P53, P53 ".0", 1);
    expect_match("plain: 2^70 is the float 2^70", P70, "1.180591620717411303424e21", 1);

    /* An element of an integer typed array is one value whether written as a number or as
     * a decimal string (writers use strings beyond 2^53). */
    const char *big = TYPED("int64", "2", "\"" P53_1 "\",\"" P53_1 "\"");
    const char *mixed = TYPED("int64", "2", "\"" P53 "\",\"" P53_1 "\"");
    expect_match("object: data as a plain list of 2^53 + 1", "{\"data\":[" P53_1 "," P53_1 "]}",
                 big, 1);
    expect_match("object: a plain list of 2^53 does not match 2^53 + 1",
                 "{\"data\":[" P53 "," P53_1 "]}", big, 0);
    expect_match("$each 2^53 + 1 of int64 text", "{\"data\":{\"$each\":" P53_1 "}}", big, 1);
    expect_match("$each 2^53 + 1: one element is 2^53", "{\"data\":{\"$each\":" P53_1 "}}", mixed,
                 0);
    expect_match("$each 2^53 does not match 2^53 + 1", "{\"data\":{\"$each\":" P53 "}}", big, 0);
    expect_match("$each int64's minimum", "{\"data\":{\"$each\":" I64_MIN "}}",
                 TYPED("int64", "1", "\"" I64_MIN "\""), 1);
    expect_match("$each uint64's maximum", "{\"data\":{\"$each\":" U64_MAX "}}",
                 TYPED("uint64", "1", "\"" U64_MAX "\""), 1);
    expect_match("$each uint64's maximum is not one less", "{\"data\":{\"$each\":" U64_MAX "}}",
                 TYPED("uint64", "1", "\"18446744073709551614\""), 0);
    expect_match("$contains 2^53 + 1", "{\"data\":{\"$contains\":" P53_1 "}}", mixed, 1);
    expect_match("$contains 2^53 + 1 in a list of 2^53", "{\"data\":{\"$contains\":" P53_1 "}}",
                 TYPED("int64", "1", "\"" P53 "\""), 0);
    expect_match("$in with 2^53 + 1", "{\"data\":{\"$each\":{\"$in\":[" P53_1 "," I64_MIN "]}}}",
                 TYPED("int64", "2", "\"" P53_1 "\",\"" I64_MIN "\""), 1);
    expect_match("$in without 2^53", "{\"data\":{\"$each\":{\"$in\":[" P53_1 "]}}}", mixed, 0);
    expect_match("$in: plain 2^53 is none of [2^53 + 1]", "{\"$in\":[" P53_1 "]}", P53, 0);
    expect_match("$range [2^53 + 1, 2^53 + 1] of the element 2^53 + 1",
                 "{\"data\":{\"$each\":{\"$range\":[" P53_1 "," P53_1 "]}}}", big, 1);
    expect_match("$range [null, 2^53]: 2^53 + 1 is above",
                 "{\"data\":{\"$each\":{\"$range\":[null," P53 "]}}}", big, 0);
    expect_match("$range [2^53 + 1, null]: plain 2^53 is below", "{\"$range\":[" P53_1 ",null]}",
                 P53, 0);
    expect_match("$range [uint64 max, uint64 max]: one less is below",
                 "{\"data\":{\"$each\":{\"$range\":[" U64_MAX "," U64_MAX "]}}}",
                 TYPED("uint64", "1", "\"18446744073709551614\""), 0);
    expect_match("$range [0.5, 1.5] of an integer element",
                 "{\"data\":{\"$each\":{\"$range\":[0.5,1.5]}}}", TYPED("int8", "1", "\"1\""), 1);
    expect_match("$range [2^70, null]: 2^70 + 1 is inside", "{\"$range\":[" P70 ",null]}", P70_1,
                 1);
    expect_match("$range [null, 2^70]: 2^70 + 1 is above", "{\"$range\":[null," P70 "]}", P70_1, 0);
    expect_match("$type int of an int64 element written as text",
                 "{\"data\":{\"$each\":{\"$type\":\"int\"}}}", big, 1);
    expect_match("$type number of an int64 element written as text",
                 "{\"data\":{\"$each\":{\"$type\":\"number\"}}}", big, 1);
    expect_match("$type string: an int64 element written as text is an int",
                 "{\"data\":{\"$each\":{\"$type\":\"string\"}}}", big, 0);
    expect_match("$type int: outside typed data a decimal string stays a string",
                 "{\"$type\":\"int\"}", "\"" P53_1 "\"", 0);
    expect_match("$close: plain 2^53 + 1 and 2^53 stay apart", CLOSE(P53_1, "1e9", "1e9"), P53, 0);
    expect_match("$close: plain 2^70 + 1 and 2^70 stay apart", CLOSE(P70_1, "1e9", "1e9"), P70, 0);
    expect_match("$close: integer elements stay exact",
                 "{\"data\":" CLOSE("[" P53_1 "," P53_1 "]", "1e9", "1e9") "}", mixed, 0);
    expect_match("$close: integer elements equal",
                 "{\"data\":" CLOSE("[" P53_1 "," P53_1 "]", "4", "4") "}", big, 1);
    expect_match("$array: int64 2^53 + 1",
                 "{\"$array\":{\"dtype\":\"int64\",\"shape\":[2],\"data\":[" P53_1 "," P53_1 "]}}",
                 big, 1);
    expect_match("$array: int64 2^53 is not 2^53 + 1",
                 "{\"$array\":{\"dtype\":\"int64\",\"shape\":[2],\"data\":[" P53 "," P53 "]}}", big,
                 0);
    expect_match("typed: a shape of 2^53 + 1 is not 2^53",
                 "{\"dtype\":\"int8\",\"shape\":[" P53_1 ",0],\"data\":[]}",
                 "{\"dtype\":\"int8\",\"shape\":[" P53 ",0],\"data\":[]}", 0);
    expect_match("$len_min 2^64: one element is fewer", "{\"$len_min\":18446744073709551616}",
                 "[1]", 0);
    expect_match("$len_min 1.0: one element is enough", "{\"$len_min\":1.0}", "[1]", 1);
    char why[1024];
    match("{\"data\":{\"$each\":" P53 "}}", big, why, sizeof why);
    CHECK(strstr(why, ".data[0]") && strstr(why, "expected " P53 ", observed \"" P53_1 "\""),
          "a failed $each names the element, expected and observed", ".data[0]", why);
}

/* The same judgements with the observed lists packed, as a reply's typed data is. */
DT_TEST(judge_packed)
{
    char why[1024];
    packed_observed = true;
    cJSON *o = observed_value("[1, 2, 3]");
    CHECK(dsj_is_packed(o), "packed: the observed list is packed", "packed", o ? "plain" : "NULL");
    cJSON_Delete(o);
    int r = match("{\"dtype\": \"int64\", \"shape\": [3], \"data\": [1, 2, 4]}",
                  "{\"dtype\": \"int64\", \"shape\": [3], \"data\": [1, 2, 3]}", why, sizeof why);
    CHECK(r == 0 && strstr(why, ".data[2]") && strstr(why, "expected 4, observed 3"),
          "packed: a typed array's first differing element is named", ".data[2]", why);
    dt_test_judge();
    dt_test_matchers();
    dt_test_close();
    dt_test_exact_integers();
    packed_observed = false;
}

/* ---- the consolidated report's layout --------------------------------------------------- */

/* dsr__json_reindent of a value's compact text is its formatted text, byte for byte, at depth
 * 0 and nested two deep (as a case record is in the consolidated report's "cases"). */
DT_TEST(reindent)
{
    static const char *const values[] = {
        "{}",
        "[]",
        "{\"a\":{}}",
        "{\"a\":[],\"b\":[{}],\"c\":[[],[1,[2,{}]]]}",
        "[{\"x\":1},{\"y\":[{\"z\":null}]},2,\"s\"]",
        "{\"str\":\"{[,:]} \\\" \\\\\\\" \\n \\t \\u0001\",\"k:,\":true,\"e\":-1.5e-300}",
        "{\"id\":\"bench.c0\",\"steps\":[{\"op\":\"util.num_gpus\",\"outcome\":\"returned\"}],"
        "\"duration\":5.3e-05}",
        "\"a string alone\"",
        "12345678901234567890",
    };
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        /* W = {"cases": [V]}: V's formatted text is W's between "[" and the last "]" */
        dsr_buf w = {0};
        dsr__buf_printf(&w, "{\"cases\":[%s]}", values[i]);
        cJSON *v = dsj_parse(values[i], strlen(values[i]), NULL);
        cJSON *wv = dsj_parse(w.data, w.len, NULL);
        CHECK(v && wv, "reindent: the value parses", values[i], NULL);
        char *compact = dsr__print(v, false), *formatted = dsr__print(v, true);
        char *wc = dsr__print(wv, false), *wf = dsr__print(wv, true);
        dsr_buf got = {0};
        dsr__json_reindent(compact, strlen(compact), 0, &got);
        CHECK(got.data && !strcmp(got.data, formatted), "reindent: depth 0 is the formatted text",
              formatted, got.data);
        got.len = 0;
        dsr__json_reindent(wc, strlen(wc), 0, &got);
        CHECK(!strcmp(got.data, wf), "reindent: a value nested in an array of an object", wf,
              got.data);
        got.len = 0;
        dsr__json_reindent(compact, strlen(compact), 2, &got);
        const char *from = strchr(wf, '[') + 1, *to = strrchr(wf, ']');
        dsr_buf want = {0};
        dsr__buf_add(&want, from, (size_t)(to - from));
        CHECK(!strcmp(got.data, want.data), "reindent: depth 2 is the text nested two deep",
              want.data, got.data);
        dsr__buf_free(&want);
        dsr__buf_free(&got);
        cJSON_free(compact);
        cJSON_free(formatted);
        cJSON_free(wc);
        cJSON_free(wf);
        cJSON_Delete(v);
        cJSON_Delete(wv);
        dsr__buf_free(&w);
    }
}

/* ---- small replies ---------------------------------------------------------------------- */

/* Appends a random JSON value of the subset the small reader knows (and, at times, a little
 * beyond it) to B. */
static void random_value(dsr_buf *b, unsigned *seed, int depth)
{
    static const char *const atoms[] = {"0",
                                        "-0",
                                        "7",
                                        "-12",
                                        "123456789012345",
                                        "true",
                                        "false",
                                        "null",
                                        "\"\"",
                                        "\"device#0\"",
                                        "\"a b\"",
                                        "1.5",
                                        "1e3",
                                        "\"\\n\"",
                                        "1234567890123456",
                                        "\"~\"",
                                        "-",
                                        "\"caf\xc3\xa9\""};
    static const char *const keys[] = {"id", "ok", "result", "error", "kind", "x", "data", "id"};
    static const char *const blanks[] = {"", "", "", " ", "\n", "\t", "\r\n  "};
    int pick = rand_r(seed) % 10;
    if (depth < 10 && pick < 3) {
        bool object = pick < 2;
        dsr__buf_puts(b, object ? "{" : "[");
        int n = rand_r(seed) % 5;
        for (int i = 0; i < n; i++) {
            dsr__buf_puts(b, blanks[rand_r(seed) % 7]);
            if (i) dsr__buf_puts(b, ",");
            if (object) {
                dsr__buf_puts(b, "\"");
                dsr__buf_puts(b, keys[rand_r(seed) % 8]);
                dsr__buf_puts(b, "\":");
            }
            dsr__buf_puts(b, blanks[rand_r(seed) % 7]);
            random_value(b, seed, depth + 1);
        }
        dsr__buf_puts(b, object ? "}" : "]");
    } else {
        dsr__buf_puts(b, atoms[rand_r(seed) % (sizeof atoms / sizeof atoms[0])]);
    }
}

DT_TEST(small_replies)
{
    static const char *const read[] = {
        "{\"id\":7,\"ok\":true,\"result\":null}",
        "{\"id\": 12, \"ok\": true, \"result\": false}",
        " {\"id\":1,\"ok\":true,\"result\":[\"device#0\",\"device#1\",-3,[],{}]}\r\n",
        "{\"id\":2,\"ok\":false,\"error\":{\"kind\":\"TypeError\",\"message\":\"no\"}}",
        "{\"id\":-0,\"ok\":true,\"result\":{\"a\":{\"b\":{\"c\":[[1]]}}}}",
        "{\"id\":999999999999999,\"ok\":true}",
        "{}"};
    static const char *const declined[] = {
        "{\"id\":1,\"ok\":true,\"result\":{\"data\":[1,2]}}", /* may be packed */
        "{\"id\":1,\"ok\":true,\"result\":1.5}",
        "{\"id\":1,\"ok\":true,\"result\":1e3}",
        "{\"id\":1234567890123456,\"ok\":true}", /* 16 digits */
        "{\"id\":01,\"ok\":true}",
        "{\"id\":1,\"ok\":true,\"result\":\"a\\nb\"}",
        "{\"id\":1,\"ok\":true,\"result\":\"caf\xc3\xa9\"}",
        "{\"id\":1,\"ok\":true,\"id\":2}", /* a key twice */
        "{\"id\":1,\"ok\":true,}",
        "{\"id\":1,\"ok\":true} x",
        "{\"id\":1,\"ok\":tru}",
        "{\"id\":1\x01}",
        "[1]",
        "{\"a\":[[[[[[[[1]]]]]]]]}", /* nine deep */
        "{\"id\":1,\"ok\":true"};
    for (size_t i = 0; i < sizeof read / sizeof read[0]; i++)
        CHECK(small_agrees(read[i], strlen(read[i])) == 1,
              "small replies: read as dsr__parse_reply reads it", "1", read[i]);
    for (size_t i = 0; i < sizeof declined / sizeof declined[0]; i++)
        CHECK(small_agrees(declined[i], strlen(declined[i])) == 0,
              "small replies: declined, left to dsr__parse_reply", "0", declined[i]);
    /* Random documents, whole and with one byte changed or cut: whatever the small reader
     * reads, dsr__parse_reply reads the same and accepts. */
    unsigned seed = 43;
    int reads = 0;
    for (int k = 0; k < 20000; k++) {
        dsr_buf b = {0};
        dsr__buf_puts(&b, "{\"id\":1,\"result\":");
        random_value(&b, &seed, 1);
        dsr__buf_puts(&b, "}");
        size_t len = b.len;
        if (k % 2) {
            size_t at = (size_t)rand_r(&seed) % len;
            static const char bytes[] = "{}[],:\" 0-.etanx\\\x7f";
            if (k % 4 == 1)
                b.data[at] = bytes[rand_r(&seed) % (sizeof bytes - 1)];
            else
                len = at;
        }
        int r = small_agrees(b.data, len);
        CHECK(r >= 0, "small replies: never a reading dsr__parse_reply disagrees with", "0 or 1",
              b.data);
        reads += r;
        dsr__buf_free(&b);
    }
    CHECK(reads > 5000, "small replies: the random documents are read often", "> 5000",
          reads > 5000 ? "> 5000" : "fewer");
}

/* dsr__print_compact against dsr__print(v, false): the same bytes. */
static bool compact_agrees(const cJSON *v)
{
    char *want = dsr__print(v, false);
    dsr_buf got = {0};
    dsr__buf_puts(&got, "x"); /* appended after what OUT holds */
    dsr__print_compact(&got, v);
    bool same = got.len == strlen(want) + 1 && !strcmp(got.data + 1, want);
    if (!same) fprintf(stderr, "# dsr__print: %s\n# compact:    %s\n", want, got.data + 1);
    cJSON_free(want);
    dsr__buf_free(&got);
    return same;
}

DT_TEST(print_compact)
{
    static const char *const texts[] = {
        "{\"a\":\"plain\",\"b\":[1,2.50,-0,1e400,true,false,null,{}],\"c\":[]}",
        "{\"with\\nnewline\":1}",
        "{\"k\":\"tab\\tand \\\"quotes\\\" and \\\\ and \\u0000 and \\u001f\"}",
        "{\"caf\\u00e9\":\"\\u00e9\\u2028\",\"x\":\"\\ud83d\\ude00\"}",
        "[\"a\",[\"b\",[\"c\",{\"d\":{\"e\":0.1}}]]]",
        "\"just a string\"",
        "{\"q\":\"say \\\"hi\\\"\"}",
        "{\"b\":\"back\\\\slash\"}",
        "{\"k\\\"ey\":1}",
        "{\"n\":\"a\\u0000b\"}",
        "{\"c\":\"\\u0001\"}",
        "12345678901234567890"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        cJSON *v = dsj_parse(texts[i], strlen(texts[i]), NULL);
        CHECK(v && compact_agrees(v), "print_compact: parsed text printed as dsr__print prints it",
              "same", texts[i]);
        cJSON_Delete(v);
    }
    /* A record as report.c builds one: constant keys, borrowed strings, numbers made in C
     * (an integer, a duration), a reply's packed data (a raw node: printed by dsj_print). */
    const char *why = NULL;
    const char *reply = "{\"id\":3,\"ok\":true,\"result\":{\"data\":[1,2,3],\"dtype\":\"int64\"}}";
    cJSON *doc = dsr__parse_reply(reply, strlen(reply), &why);
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddItemToObjectCS(rec, "id", cJSON_CreateStringReference("bench.c0"));
    cJSON_AddItemToObjectCS(rec, "step", cJSON_CreateNumber(3));
    cJSON_AddItemToObjectCS(rec, "duration", cJSON_CreateNumber(1.5973993868101388e-05));
    cJSON_AddItemToObjectCS(rec, "nan", cJSON_CreateNumber(0.0 / 0.0));
    cJSON_AddItemToObjectCS(rec, "observed",
                            cJSON_CreateObjectReference(cJSON_GetObjectItem(doc, "result")->child));
    CHECK(compact_agrees(rec), "print_compact: a record with a packed array", "same", "differs");
    cJSON_Delete(rec);
    cJSON_Delete(doc);
    /* Random documents, read as replies are (packed data included). */
    unsigned seed = 7;
    for (int k = 0; k < 5000; k++) {
        dsr_buf b = {0};
        dsr__buf_puts(&b, "{\"id\":1,\"result\":");
        random_value(&b, &seed, 1);
        dsr__buf_puts(&b, "}");
        cJSON *v = dsr__parse_reply(b.data, b.len, &why);
        if (v) CHECK(compact_agrees(v), "print_compact: a random reply", "same", b.data);
        cJSON_Delete(v);
        dsr__buf_free(&b);
    }
}

/* schedule.c: cases that name the same dtypes go together, whatever function they call
 * (int8 apart from uint8), the groups in the order of their first case, in pieces of at most
 * total / jobs places. */
DT_TEST(schedule)
{
    /* The dtypes of each case's one step; "-" names none. */
    const char *dtypes[] = {"float32", "int8",       "float32", "uint8,int8", "-",
                            "float32", "int8,uint8", "float32", "float32",    "-"};
    const char *fns[] = {"add", "add", "sum", "add", "zeros", "mean", "sum", "fft", "max", "ones"};
    enum { N = 10 };
    dsr_case cases[N];
    dsr_step steps[N];
    cJSON *args[N];
    const dsr_case *sel[N];
    for (int i = 0; i < N; i++) {
        char text[256];
        if (strcmp(dtypes[i], "-") == 0) {
            snprintf(text, sizeof text, "{\"fn\": \"%s\", \"shape\": [2]}", fns[i]);
        } else {
            char first[32];
            snprintf(first, sizeof first, "%s", dtypes[i]);
            char *comma = strchr(first, ',');
            const char *second = comma ? comma + 1 : first;
            if (comma) *comma = '\0';
            snprintf(text, sizeof text,
                     "{\"fn\": \"%s\", \"x\": {\"dtype\": \"%s\"}, \"y\": [{\"dtype\": \"%s\"}]}",
                     fns[i], first, second);
        }
        args[i] = cJSON_Parse(text);
        steps[i] = (dsr_step){.op = "call", .args = args[i]};
        cases[i] = (dsr_case){.id = fns[i], .steps = &steps[i], .nsteps = 1};
        sel[i] = &cases[i];
    }
    /* One worker's pieces hold the whole of a group of 5 (total / 1); four workers', 3. */
    const struct {
        int jobs;
        int order[N], end[N];
    } want[] = {
        {1, {0, 2, 5, 7, 8, 1, 3, 6, 4, 9}, {5, 5, 5, 5, 5, 6, 8, 8, 10, 10}},
        {4, {0, 2, 5, 7, 8, 1, 3, 6, 4, 9}, {3, 3, 3, 5, 5, 6, 8, 8, 10, 10}},
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int *end = NULL;
        int *order = dsr__schedule(sel, N, want[w].jobs, &end);
        char got[128] = "", expected[128] = "";
        for (int k = 0; k < N; k++) {
            size_t g = strlen(got), e = strlen(expected);
            snprintf(got + g, sizeof got - g, "%d:%d ", order[k], end[k]);
            snprintf(expected + e, sizeof expected - e, "%d:%d ", want[w].order[k], want[w].end[k]);
        }
        CHECK(strcmp(got, expected) == 0, "schedule: places and piece ends", expected, got);
        free(order);
        free(end);
    }
    for (int i = 0; i < N; i++)
        cJSON_Delete(args[i]);
}

DT_MAIN(DT_ENTRY(judge), DT_ENTRY(judge_packed), DT_ENTRY(matchers), DT_ENTRY(close),
        DT_ENTRY(exact_integers), DT_ENTRY(locations), DT_ENTRY(expectations), DT_ENTRY(text),
        DT_ENTRY(reindent), DT_ENTRY(small_replies), DT_ENTRY(print_compact), DT_ENTRY(schedule))
