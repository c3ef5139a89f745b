/* Matching a step's result against its "expect" (spec/case-format.md, "Matching expect"):
 * objects match partially, lists element-wise, typed arrays exactly by dtype (NaN equals
 * NaN, -0.0 differs from 0.0, integers exact at any width), device handles through the
 * adapter's own device.equal, everything else as JSON. A single-key object whose key starts
 * with one "$" is a matcher ($len_min, $contains, $range, $type, $close, ...); "$name" strings are
 * references, resolved here from the bindings, and whatever a reference brings in is matched
 * as a plain value: a bound result is never read as a matcher. "$$" escapes a literal "$" in
 * a string and at the start of an object key. */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool dsr__is_typed_array(const cJSON *v)
{
    return cJSON_IsObject(v) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "dtype")) &&
           cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(v, "shape")) &&
           dsj_is_array(cJSON_GetObjectItemCaseSensitive(v, "data"));
}

bool dsr__is_device_handle(const cJSON *v)
{
    return cJSON_IsString(v) && !strncmp(v->valuestring, "device#", 7);
}

/* V in a message: its text, cut after DSR_SHOWN_MAX bytes (a value from a reply can be
 * 64 MiB). */
static void show(dsr_buf *b, const cJSON *v)
{
    dsr__show_value(b, v, DSR_SHOWN_MAX);
}

static void mismatch(dsr_buf *why, const char *path, const cJSON *e, const cJSON *o,
                     const char *what)
{
    dsr__buf_printf(why, "at %s: %s: expected ", path[0] ? path : "(result)", what);
    show(why, e);
    dsr__buf_puts(why, ", observed ");
    if (o)
        show(why, o);
    else
        dsr__buf_puts(why, "nothing");
}

/* ---- typed elements ---------------------------------------------------------------- */

/* K_NONE: not inside a typed array's data (a value matched where no dtype applies). */
typedef enum { K_BOOL, K_INT, K_UINT, K_F16, K_F32, K_F64, K_C64, K_C128, K_BAD, K_NONE } elem_kind;

static elem_kind kind_of(const char *dtype)
{
    static const struct {
        const char *name;
        elem_kind k;
    } map[] = {{"bool", K_BOOL},       {"int8", K_INT},    {"int16", K_INT},   {"int32", K_INT},
               {"int64", K_INT},       {"uint8", K_UINT},  {"uint16", K_UINT}, {"uint32", K_UINT},
               {"uint64", K_UINT},     {"float32", K_F32}, {"float64", K_F64}, {"complex64", K_C64},
               {"complex128", K_C128}, {"float16", K_F16}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].name, dtype)) return map[i].k;
    return K_BAD;
}

/* An integer as sign and magnitude, exact for every int64 and uint64: a JSON number by its
 * source text (dsjson keeps it), a string as a decimal integer. */
static bool decode_int(const cJSON *v, bool *neg, unsigned long long *mag)
{
    int64_t i;
    uint64_t u;
    if (cJSON_IsNumber(v)) {
        if (dsj_get_int64(v, &i)) {
            *neg = i < 0;
            *mag = i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i;
            return true;
        }
        if (!dsj_get_uint64(v, &u)) return false;
        *neg = false;
        *mag = u;
        return true;
    }
    if (!cJSON_IsString(v)) return false;
    const char *s = v->valuestring;
    *neg = s[0] == '-';
    if (*s == '-' || *s == '+') s++;
    if (*s < '0' || *s > '9') return false;
    char *end;
    errno = 0;
    *mag = strtoull(s, &end, 10);
    if (*end || errno) return false;
    if (*mag == 0) *neg = false;
    return true;
}

/* ---- numbers compared exactly, whatever their size ----------------------------------- */

static bool int_kind(elem_kind k)
{
    return k == K_INT || k == K_UINT;
}

/* An integer by its decimal digits, exact at any size: sign, and digits without leading
 * zeros (none for zero). */
typedef struct bigint {
    bool neg;
    const char *digits;
    size_t len;
    char buf[400]; /* digits made here: any double's integral part fits */
} bigint;

/* TEXT as an integer in form ([+-]digits), into B; false for anything else. */
static bool bigint_parse(const char *text, bigint *b)
{
    const char *s = text;
    b->neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    size_t n = strspn(s, "0123456789");
    if (n == 0 || s[n] != '\0') return false;
    while (n > 0 && *s == '0') {
        s++;
        n--;
    }
    b->digits = s;
    b->len = n;
    if (n == 0) b->neg = false;
    return true;
}

/* An integral double D (finite) as a bigint: printed exactly (%.0f of an integral double is
 * its value). */
static void bigint_of_double(double d, bigint *b)
{
    snprintf(b->buf, sizeof b->buf, "%.0f", fabs(d));
    (void)bigint_parse(b->buf, b);
    b->neg = d < 0 && b->len > 0;
}

static int bigint_cmp(const bigint *a, const bigint *b)
{
    if (a->neg != b->neg) return a->neg ? -1 : 1;
    int c = a->len != b->len ? (a->len < b->len ? -1 : 1) : memcmp(a->digits, b->digits, a->len);
    c = c < 0 ? -1 : c > 0;
    return a->neg ? -c : c;
}

/* A number exactly: an integer (its decimal digits) or, when it is written as no integer, a
 * double. */
typedef struct exact {
    bool is_int;
    bigint i;
    double d;
} exact;

/* V as an exact number: a JSON number (an integer by its source text, so at any size), or,
 * where IN is an integer dtype (V is an element of such a typed array, whose writers give
 * integers beyond 2^53 as decimal strings), a decimal string. False for anything else. */
static bool exact_of(const cJSON *v, elem_kind in, exact *x)
{
    if (cJSON_IsString(v)) return int_kind(in) && (x->is_int = bigint_parse(v->valuestring, &x->i));
    if (!cJSON_IsNumber(v)) return false;
    const char *text = dsj_number_text(v);
    x->is_int = text ? bigint_parse(text, &x->i)
                     : isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble);
    if (x->is_int && !text) bigint_of_double(v->valuedouble, &x->i);
    x->d = v->valuedouble;
    return true;
}

/* -1, 0 or 1 as A is below, equal to or above B; 2 when they are unordered (a NaN). An
 * integer and a double compare by value, exactly: the integer against the double's
 * integral part, then its fraction. */
static int exact_cmp(const exact *a, const exact *b)
{
    if (a->is_int && b->is_int) return bigint_cmp(&a->i, &b->i);
    if (!a->is_int && !b->is_int)
        return isnan(a->d) || isnan(b->d) ? 2 : (a->d > b->d) - (a->d < b->d);
    if (b->is_int) {
        int c = exact_cmp(b, a);
        return c == 2 ? 2 : -c;
    }
    double d = b->d;
    if (isnan(d)) return 2;
    if (isinf(d)) return d > 0 ? -1 : 1;
    bigint t;
    bigint_of_double(trunc(d), &t);
    int c = bigint_cmp(&a->i, &t);
    if (c != 0) return c;
    double frac = d - trunc(d);
    return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

int dsr__number_cmp(const cJSON *a, const cJSON *b)
{
    exact xa, xb;
    if (!exact_of(a, K_NONE, &xa) || !exact_of(b, K_NONE, &xb)) return 2;
    return exact_cmp(&xa, &xb);
}

/* V is a number where IN applies: a JSON number, or an integer element written as text. */
static bool is_number_in(const cJSON *v, elem_kind in)
{
    exact x;
    return exact_of(v, in, &x);
}

/* A float element as a double; SINGLE rounds a text once, straight to float32 (through a
 * double it could round twice), and refuses one that rounds to infinity. */
static bool decode_float(const cJSON *v, bool single, double *out)
{
    if (single) {
        float f = 0;
        int r = cJSON_IsNumber(v)   ? dsj_get_float32(v, &f)
                : cJSON_IsString(v) ? dsj_parse_float32(v->valuestring, &f)
                                    : DSJ_FLOAT_SYNTAX;
        *out = f;
        return r == DSJ_FLOAT_OK;
    }
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    return cJSON_IsString(v) && dsj_parse_double(v->valuestring, out);
}

static bool float_same(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* A $close tolerance, in units of the machine epsilon of the dtype compared. */
typedef struct {
    double rel, abs;
} tolerance;

/* The machine epsilon of a float kind (a complex kind's by its parts'). */
static double eps_of(elem_kind k)
{
    return k == K_F16 ? 0x1p-10 : k == K_F32 || k == K_C64 ? 0x1p-23 : 0x1p-52;
}

/* A and B within T (NULL: exactly) at SCALE, EPS the dtype's epsilon: |a - b| <=
 * (abs + rel * scale) * eps for finite values; NaN, infinities and two zeros as exactly
 * (NaN matches NaN, an infinity only itself, -0.0 differs from 0.0). */
static bool float_close(double a, double b, double scale, double eps, const tolerance *t)
{
    if (!t || !isfinite(a) || !isfinite(b) || (a == 0 && b == 0)) return float_same(a, b);
    return fabs(a - b) <= (t->abs + t->rel * scale) * eps;
}

/* 1 equal (within T where T is not NULL and the kind is a float one), 0 different, -1 E
 * cannot be decoded, -2 O cannot be decoded. */
static int elem_equal(elem_kind k, const cJSON *e, const cJSON *o, const tolerance *t)
{
    switch (k) {
    case K_BOOL:
        if (!cJSON_IsBool(e)) return -1;
        if (!cJSON_IsBool(o)) return -2;
        return cJSON_IsTrue(e) == cJSON_IsTrue(o);
    case K_INT:
    case K_UINT: {
        bool en, on;
        unsigned long long em, om;
        if (!decode_int(e, &en, &em)) return -1;
        if (!decode_int(o, &on, &om)) return -2;
        return en == on && em == om;
    }
    case K_F16: {
        /* float16 compares as float16: an expected "0.1" is the float16 nearest to it. */
        double a, b;
        if (!decode_float(e, false, &a)) return -1;
        if (!decode_float(o, false, &b)) return -2;
        a = dsj_float16_to_double(dsj_float16_from_double(a));
        b = dsj_float16_to_double(dsj_float16_from_double(b));
        return float_close(a, b, fmax(fabs(a), fabs(b)), eps_of(k), t);
    }
    case K_F32:
    case K_F64: {
        /* float32 compares as float32: "0.1" and the double that float32 0.1 widens to agree. */
        double a, b;
        if (!decode_float(e, k == K_F32, &a)) return -1;
        if (!decode_float(o, k == K_F32, &b)) return -2;
        return float_close(a, b, fmax(fabs(a), fabs(b)), eps_of(k), t);
    }
    case K_C64:
    case K_C128: {
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2) return -1;
        if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != 2) return -2;
        elem_kind part = k == K_C64 ? K_F32 : K_F64;
        double p[2][2]; /* [expected, observed][real, imaginary] */
        for (int i = 0; i < 2; i++) {
            if (!decode_float(cJSON_GetArrayItem(e, i), part == K_F32, &p[0][i])) return -1;
            if (!decode_float(cJSON_GetArrayItem(o, i), part == K_F32, &p[1][i])) return -2;
        }
        /* Within a tolerance, both parts at the scale of the larger modulus: a part near zero
         * beside a large one is as uncertain as the large one. */
        double scale = fmax(hypot(p[0][0], p[0][1]), hypot(p[1][0], p[1][1]));
        return float_close(p[0][0], p[1][0], scale, eps_of(k), t) &&
               float_close(p[0][1], p[1][1], scale, eps_of(k), t);
    }
    case K_BAD:
    case K_NONE:
        break;
    }
    return -1;
}

/* T: the tolerance of a $close (NULL: exactly). */
static int match_typed(const cJSON *e, const cJSON *o, const char *path, dsr_buf *why,
                       const tolerance *t)
{
    if (!dsr__is_typed_array(o)) {
        mismatch(why, path, e, o, "expected a typed array");
        return 0;
    }
    const char *edt = cJSON_GetObjectItemCaseSensitive(e, "dtype")->valuestring;
    const char *odt = cJSON_GetObjectItemCaseSensitive(o, "dtype")->valuestring;
    if (strcmp(edt, odt)) {
        dsr__buf_printf(why, "at %s.dtype: expected \"%s\", observed \"%s\"", path, edt, odt);
        return 0;
    }
    const cJSON *es = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *os = cJSON_GetObjectItemCaseSensitive(o, "shape");
    bool same_shape = cJSON_GetArraySize(es) == cJSON_GetArraySize(os);
    for (const cJSON *a = es->child, *b = os->child; same_shape && a && b;
         a = a->next, b = b->next) {
        exact xa, xb;
        same_shape =
            exact_of(a, K_NONE, &xa) && exact_of(b, K_NONE, &xb) && exact_cmp(&xa, &xb) == 0;
    }
    if (!same_shape) {
        dsr_buf p = {0};
        dsr__buf_printf(&p, "%s.shape", path);
        mismatch(why, p.data, es, os, "shapes differ");
        dsr__buf_free(&p);
        return 0;
    }
    elem_kind k = kind_of(edt);
    const cJSON *ed = cJSON_GetObjectItemCaseSensitive(e, "data");
    const cJSON *od = cJSON_GetObjectItemCaseSensitive(o, "data");
    if (dsj_array_length(ed) != dsj_array_length(od)) {
        dsr__buf_printf(why, "at %s.data: expected %zu elements, observed %zu", path,
                        dsj_array_length(ed), dsj_array_length(od));
        return 0;
    }
    /* Either side may be packed (a reply's data is: dsjson.h): walked one element at a time. */
    dsj_iter ei, oi;
    dsj_iter_init(&ei, ed);
    dsj_iter_init(&oi, od);
    size_t i = 0;
    for (const cJSON *a, *b; (a = dsj_iter_next(&ei)) && (b = dsj_iter_next(&oi)); i++) {
        int r = elem_equal(k, a, b, t);
        if (r == 1) continue;
        dsr_buf p = {0};
        dsr__buf_printf(&p, "%s.data[%zu]", path, i);
        mismatch(why, p.data, a, b,
                 r == 0 ? (t ? "elements differ by more than $close allows" : "elements differ")
                 : r == -1
                     ? (k == K_BAD ? "unknown dtype"
                                   : "the expected element is not a valid element of this dtype")
                     : "the observed element is not a valid element of this dtype");
        dsr__buf_free(&p);
        return 0;
    }
    return 1;
}

bool dsr__is_matcher_key(const char *key)
{
    return key[0] == '$' && key[1] != '$';
}

const char *const dsr__matcher_names[] = {"$len_min", "$contains", "$each",  "$in", "$range",
                                          "$type",    "$array",    "$close", NULL};
const char *const dsr__matcher_types[] = {"int",  "number", "bool", "string",
                                          "list", "object", "null", NULL};

cJSON *dsr__resolve(const cJSON *bindings, const cJSON *v)
{
    if (cJSON_IsString(v) && v->valuestring[0] == '$') {
        if (v->valuestring[1] == '$') return cJSON_CreateString(v->valuestring + 1);
        const cJSON *b =
            bindings ? cJSON_GetObjectItemCaseSensitive(bindings, v->valuestring + 1) : NULL;
        return b ? cJSON_Duplicate(b, true) : cJSON_CreateNull();
    }
    if (cJSON_IsObject(v)) {
        cJSON *o = cJSON_CreateObject();
        for (const cJSON *c = v->child; c; c = c->next)
            cJSON_AddItemToObject(o, c->string, dsr__resolve(bindings, c));
        return o;
    }
    if (cJSON_IsArray(v)) {
        cJSON *a = cJSON_CreateArray();
        for (const cJSON *c = v->child; c; c = c->next)
            cJSON_AddItemToArray(a, dsr__resolve(bindings, c));
        return a;
    }
    return cJSON_Duplicate(v, true);
}

/* The matcher key of an object, or NULL when it is a plain object. */
static const cJSON *matcher_of(const cJSON *e)
{
    for (const cJSON *k = e->child; k; k = k->next)
        if (dsr__is_matcher_key(k->string)) return k;
    return NULL;
}

/* A mismatch whose expected side is shown with its references resolved. */
static void mismatch_resolved(const dsr_judge *j, dsr_buf *why, const char *path, const cJSON *e,
                              const cJSON *o, const char *what)
{
    cJSON *shown = dsr__resolve(j ? j->bindings : NULL, e);
    mismatch(why, path, shown, o, what);
    cJSON_Delete(shown);
}

static int match(const dsr_judge *j, const cJSON *e, const cJSON *o, dsr_buf *path, dsr_buf *why,
                 bool literal, elem_kind in);

static bool is_integral(const cJSON *v)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble);
}

/* {"$array": {"dtype": D, "shape": S, "data": X}}: O is a typed array whose dtype matches D (a
 * name or a matcher) and whose shape and data are S and X exactly, X read in O's dtype. */
static int match_array(const dsr_judge *j, const cJSON *e, const cJSON *m, const cJSON *o,
                       dsr_buf *path, dsr_buf *why)
{
    const char *p = path->data ? path->data : "";
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(m, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(m, "shape");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(m, "data");
    if (!dt || !cJSON_IsArray(shape) || !cJSON_IsArray(data)) {
        mismatch(why, p, e, o, "malformed matcher (spec/case-format.md, \"Matchers\")");
        return 0;
    }
    if (!dsr__is_typed_array(o)) {
        mismatch_resolved(j, why, p, e, o, "expected a typed array");
        return 0;
    }
    const cJSON *odt = cJSON_GetObjectItemCaseSensitive(o, "dtype");
    size_t keep = path->len;
    dsr__buf_puts(path, ".dtype");
    int r = match(j, dt, odt, path, why, false, K_NONE);
    path->len = keep;
    if (path->data) path->data[keep] = '\0';
    if (r != 1) return r;
    /* The values exactly, as a typed array of the dtype the library chose. */
    cJSON *want = cJSON_CreateObject();
    cJSON_AddStringToObject(want, "dtype", odt->valuestring);
    cJSON_AddItemToObject(want, "shape", dsr__resolve(j ? j->bindings : NULL, shape));
    cJSON_AddItemToObject(want, "data", dsr__resolve(j ? j->bindings : NULL, data));
    r = match_typed(want, o, p, why, NULL);
    cJSON_Delete(want);
    return r;
}

/* X (the "to" of a $close, or a part of it) against O within T: typed arrays element by
 * element in their dtype's epsilon, numbers that are not both integers in float64's (but an
 * element of an integer typed array, IN, exactly), lists element-wise; anything else
 * (objects, strings, matchers) by the exact rules. */
static int close_to(const dsr_judge *j, const cJSON *x, const cJSON *o, dsr_buf *path, dsr_buf *why,
                    const tolerance *t, bool literal, elem_kind in)
{
    const char *p = path->data ? path->data : "";
    if (!literal && cJSON_IsString(x) && x->valuestring[0] == '$' && x->valuestring[1] != '$') {
        const cJSON *b = j && j->bindings
                             ? cJSON_GetObjectItemCaseSensitive(j->bindings, x->valuestring + 1)
                             : NULL;
        if (!b) {
            dsr__buf_printf(why, "at %s: the reference %s is not bound", p[0] ? p : "(result)",
                            x->valuestring);
            return 0;
        }
        return close_to(j, b, o, path, why, t, true, in);
    }
    if (dsr__is_typed_array(x)) {
        if (literal) return match_typed(x, o, p, why, t);
        cJSON *r = dsr__resolve(j ? j->bindings : NULL, x);
        int res = match_typed(r, o, p, why, t);
        cJSON_Delete(r);
        return res;
    }
    if (dsj_is_array(x) && dsj_is_array(o) && dsj_array_length(x) == dsj_array_length(o)) {
        dsj_iter xi, oi;
        dsj_iter_init(&xi, x);
        dsj_iter_init(&oi, o);
        int i = 0;
        for (const cJSON *a, *b; (a = dsj_iter_next(&xi)) && (b = dsj_iter_next(&oi)); i++) {
            size_t keep = path->len;
            dsr__buf_printf(path, "[%d]", i);
            int r = close_to(j, a, b, path, why, t, literal, in);
            path->len = keep;
            path->data[keep] = '\0';
            if (r != 1) return r;
        }
        return 1;
    }
    exact ex, eo;
    if (!int_kind(in) && cJSON_IsNumber(x) && cJSON_IsNumber(o) && exact_of(x, in, &ex) &&
        exact_of(o, in, &eo) && !(ex.is_int && eo.is_int)) {
        double a = x->valuedouble, b = o->valuedouble;
        if (float_close(a, b, fmax(fabs(a), fabs(b)), 0x1p-52, t)) return 1;
        mismatch(why, p, x, o, "numbers differ by more than $close allows");
        return 0;
    }
    return match(j, x, o, path, why, literal, in);
}

/* {"$close": {"to": X, "rel_eps": R, "abs_eps": A}}: O matches X, its floats within
 * (A + R * max(|o|, |x|)) * epsilon of the dtype compared. */
static int match_close(const dsr_judge *j, const cJSON *e, const cJSON *m, const cJSON *o,
                       dsr_buf *path, dsr_buf *why, elem_kind in)
{
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(m, "to");
    const cJSON *rel = cJSON_GetObjectItemCaseSensitive(m, "rel_eps");
    const cJSON *abs_ = cJSON_GetObjectItemCaseSensitive(m, "abs_eps");
    if (!to || !cJSON_IsNumber(rel) || !cJSON_IsNumber(abs_) || !(rel->valuedouble >= 0) ||
        !(abs_->valuedouble >= 0) || !isfinite(rel->valuedouble) || !isfinite(abs_->valuedouble)) {
        mismatch(why, path->data ? path->data : "", e, o,
                 "malformed matcher (spec/case-format.md, \"Matchers\")");
        return 0;
    }
    tolerance t = {rel->valuedouble, abs_->valuedouble};
    return close_to(j, to, o, path, why, &t, false, in);
}

/* Applies the matcher M (the one key of the expected object E) to O, IN the dtype whose
 * element O is (K_NONE outside a typed array's data). The loader has checked the matcher's
 * operand (case_load.c); a malformed one here is reported, never trusted. Numbers compare
 * exactly, whatever their size (an integer element written as text included). */
/* Long: one branch per matcher of spec/case-format.md's table, in its order ($array and $close
 * have their own functions). */
static int match_matcher(const dsr_judge *j, const cJSON *e, const cJSON *m, const cJSON *o,
                         dsr_buf *path, dsr_buf *why, elem_kind in)
{
    const char *p = path->data ? path->data : "";
    const char *name = m->string;
    if (!strcmp(name, "$len_min")) {
        if (!dsj_is_array(o)) {
            mismatch(why, p, e, o, "$len_min wants a list");
            return 0;
        }
        exact want, len = {.is_int = true};
        if (!exact_of(m, K_NONE, &want)) goto malformed;
        snprintf(len.i.buf, sizeof len.i.buf, "%zu", dsj_array_length(o));
        (void)bigint_parse(len.i.buf, &len.i);
        int c = exact_cmp(&len, &want);
        if (c == 0 || c == 1) return 1;
        mismatch(why, p, e, o, "the list is shorter than $len_min");
        return 0;
    }
    if (!strcmp(name, "$contains")) {
        if (!dsj_is_array(o)) {
            mismatch_resolved(j, why, p, e, o, "$contains wants a list");
            return 0;
        }
        int i = 0;
        dsj_iter it;
        dsj_iter_init(&it, o);
        for (const cJSON *el; (el = dsj_iter_next(&it)); i++) {
            size_t keep = path->len;
            dsr__buf_printf(path, "[%d]", i);
            dsr_buf scratch = {0};
            int r = match(j, m, el, path, &scratch, false, in);
            path->len = keep;
            path->data[keep] = '\0';
            if (r < 0) { /* a device comparison could not be made: the step cannot be judged */
                dsr__buf_puts(why, scratch.data ? scratch.data : "");
                dsr__buf_free(&scratch);
                return -1;
            }
            dsr__buf_free(&scratch);
            if (r == 1) return 1;
        }
        mismatch_resolved(j, why, p, e, o, "no element matches $contains");
        return 0;
    }
    if (!strcmp(name, "$each")) {
        if (!dsj_is_array(o)) {
            mismatch_resolved(j, why, p, e, o, "$each wants a list");
            return 0;
        }
        int i = 0;
        dsj_iter it;
        dsj_iter_init(&it, o);
        for (const cJSON *el; (el = dsj_iter_next(&it)); i++) {
            size_t keep = path->len;
            dsr__buf_printf(path, "[%d]", i);
            int r = match(j, m, el, path, why, false, in);
            path->len = keep;
            path->data[keep] = '\0';
            if (r != 1) return r; /* WHY names the element that does not match */
        }
        return 1;
    }
    if (!strcmp(name, "$in")) {
        /* The operand is a list of expected values, or a reference to a bound list (whose
         * elements are then plain values). */
        bool bound = cJSON_IsString(m) && m->valuestring[0] == '$' && m->valuestring[1] != '$';
        const cJSON *list = bound && j && j->bindings
                                ? cJSON_GetObjectItemCaseSensitive(j->bindings, m->valuestring + 1)
                                : m;
        if (!dsj_is_array(list) || (!bound && !list->child)) goto malformed;
        dsj_iter it;
        dsj_iter_init(&it, list);
        for (const cJSON *alt; (alt = dsj_iter_next(&it));) {
            dsr_buf scratch = {0};
            int r = match(j, alt, o, path, &scratch, bound, in);
            if (r < 0) {
                dsr__buf_puts(why, scratch.data ? scratch.data : "");
                dsr__buf_free(&scratch);
                return -1;
            }
            dsr__buf_free(&scratch);
            if (r == 1) return 1;
        }
        mismatch_resolved(j, why, p, e, o, "the value is none of $in");
        return 0;
    }
    if (!strcmp(name, "$range")) {
        const cJSON *lo = cJSON_GetArrayItem(m, 0), *hi = cJSON_GetArrayItem(m, 1);
        if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != 2 ||
            !(cJSON_IsNull(lo) || cJSON_IsNumber(lo)) || !(cJSON_IsNull(hi) || cJSON_IsNumber(hi)))
            goto malformed;
        exact v, x;
        if (!exact_of(o, in, &v)) {
            mismatch(why, p, e, o, "$range wants a number");
            return 0;
        }
        /* Both ends inclusive; a NaN is inside no range. */
        int below = cJSON_IsNumber(lo) && exact_of(lo, K_NONE, &x) ? exact_cmp(&v, &x) : 0;
        int above = cJSON_IsNumber(hi) && exact_of(hi, K_NONE, &x) ? exact_cmp(&v, &x) : 0;
        if (below == -1 || below == 2 || above == 1 || above == 2) {
            mismatch(why, p, e, o, "the number is outside $range");
            return 0;
        }
        return 1;
    }
    if (!strcmp(name, "$type")) {
        if (!cJSON_IsString(m)) goto malformed;
        const char *t = m->valuestring;
        bool ok;
        /* An element of an integer typed array is an int whether written as a number or as
         * text; JSON does not keep 1.0 apart from 1 (spec/protocol.md). */
        bool number = is_number_in(o, in);
        if (!strcmp(t, "int"))
            ok = is_integral(o) || (number && cJSON_IsString(o));
        else if (!strcmp(t, "number"))
            ok = number;
        else if (!strcmp(t, "bool"))
            ok = cJSON_IsBool(o);
        else if (!strcmp(t, "string"))
            ok = cJSON_IsString(o) && !number;
        else if (!strcmp(t, "list"))
            ok = dsj_is_array(o);
        else if (!strcmp(t, "object"))
            ok = cJSON_IsObject(o);
        else if (!strcmp(t, "null"))
            ok = cJSON_IsNull(o);
        else
            goto malformed;
        if (ok) return 1;
        mismatch(why, p, e, o, "the value is not of the $type");
        return 0;
    }
    if (!strcmp(name, "$array")) return match_array(j, e, m, o, path, why);
    if (!strcmp(name, "$close")) return match_close(j, e, m, o, path, why, in);
malformed:
    mismatch(why, p, e, o, "malformed matcher (spec/case-format.md, \"Matchers\")");
    return 0;
}

/* LITERAL: E is a value brought in by a reference (or inside one): "$" means nothing in it.
 * IN: the dtype whose element O is, inside a typed array's data (K_NONE elsewhere). */
/* Long: one branch per JSON kind of spec/case-format.md's "Matching expect" (references,
 * matchers, typed arrays, objects, lists, devices, numbers), read top to bottom as the document
 * reads. */
static int match(const dsr_judge *j, const cJSON *e, const cJSON *o, dsr_buf *path, dsr_buf *why,
                 bool literal, elem_kind in)
{
    const char *p = path->data ? path->data : "";
    if (!literal && cJSON_IsString(e) && e->valuestring[0] == '$' && e->valuestring[1] != '$') {
        const char *name = e->valuestring + 1;
        const cJSON *b =
            j && j->bindings ? cJSON_GetObjectItemCaseSensitive(j->bindings, name) : NULL;
        if (!b) {
            dsr__buf_printf(why, "at %s: the reference %s is not bound", p[0] ? p : "(result)",
                            e->valuestring);
            return 0;
        }
        return match(j, b, o, path, why, true, in);
    }
    if (!literal && cJSON_IsObject(e)) {
        const cJSON *m = matcher_of(e);
        if (m) {
            if (m != e->child || m->next) {
                mismatch(why, p, e, o, "a matcher is an object of exactly one key");
                return 0;
            }
            return match_matcher(j, e, m, o, path, why, in);
        }
    }
    if (dsr__is_typed_array(e)) {
        if (literal) return match_typed(e, o, p, why, NULL);
        /* The elements may hold references and "$$" escapes; a typed array holds no
         * matcher (the loader refuses one). */
        cJSON *r = dsr__resolve(j ? j->bindings : NULL, e);
        int res = match_typed(r, o, p, why, NULL);
        cJSON_Delete(r);
        return res;
    }
    if (cJSON_IsObject(e)) {
        if (!cJSON_IsObject(o)) {
            mismatch_resolved(j, why, p, e, o, "expected an object");
            return 0;
        }
        for (const cJSON *k = e->child; k; k = k->next) {
            /* "$$key" in a case stands for the result's key "$key". */
            const char *key = !literal && k->string[0] == '$' ? k->string + 1 : k->string;
            size_t keep = path->len;
            dsr__buf_printf(path, ".%s", key);
            const cJSON *ov = cJSON_GetObjectItemCaseSensitive(o, key);
            int r;
            if (!ov) {
                dsr__buf_printf(why, "at %s: missing from the result (expected ", path->data);
                cJSON *shown = literal ? NULL : dsr__resolve(j ? j->bindings : NULL, k);
                show(why, shown ? shown : k);
                cJSON_Delete(shown);
                dsr__buf_puts(why, ")");
                r = 0;
            } else {
                /* The data of an observed typed array are elements of its dtype. */
                bool data = dsr__is_typed_array(o) && !strcmp(key, "data");
                elem_kind kin =
                    data ? kind_of(cJSON_GetObjectItemCaseSensitive(o, "dtype")->valuestring)
                         : K_NONE;
                r = match(j, k, ov, path, why, literal, kin);
            }
            path->len = keep;
            path->data[keep] = '\0';
            if (r != 1) return r;
        }
        return 1;
    }
    if (cJSON_IsArray(e)) {
        if (!dsj_is_array(o) || dsj_array_length(o) != dsj_array_length(e)) {
            mismatch_resolved(j, why, p, e, o,
                              dsj_is_array(o) ? "lists differ in length" : "expected a list");
            return 0;
        }
        int i = 0;
        dsj_iter it;
        dsj_iter_init(&it, o);
        for (const cJSON *a = e->child, *b; a && (b = dsj_iter_next(&it)); a = a->next, i++) {
            size_t keep = path->len;
            dsr__buf_printf(path, "[%d]", i);
            int r = match(j, a, b, path, why, literal, in);
            path->len = keep;
            path->data[keep] = '\0';
            if (r != 1) return r;
        }
        return 1;
    }
    /* "$$text" is the literal string "$text". */
    const char *es = cJSON_IsString(e) ? e->valuestring : NULL;
    if (es && !literal && es[0] == '$') es++;
    if (es && dsr__is_device_handle(e) && dsr__is_device_handle(o) && es == e->valuestring) {
        if (!strcmp(es, o->valuestring)) return 1;
        /* Devices compare through the library's own equality, never as strings. */
        dsr_buf err = {0};
        int r = j && j->device_equal ? j->device_equal(j->ctx, es, o->valuestring, &err) : 0;
        if (r == 1) {
            dsr__buf_free(&err);
            return 1;
        }
        if (r < 0) {
            dsr__buf_printf(why, "at %s: comparing devices %s and %s failed: %s",
                            p[0] ? p : "(result)", es, o->valuestring, err.data ? err.data : "?");
            dsr__buf_free(&err);
            return -1;
        }
        dsr__buf_free(&err);
        mismatch(why, p, e, o, "different devices (device.equal is false)");
        return 0;
    }
    exact xe, xo;
    if (exact_of(e, in, &xe) && exact_of(o, in, &xo)) {
        /* Numbers compare by value, exactly at any size (2^53 + 1 is not 2^53, nor is it
         * 2^53 as a float); an element of an integer typed array is one whether its writer
         * gave it as a number or as a decimal string (spec/protocol.md). */
        if (exact_cmp(&xe, &xo) == 0) return 1;
        mismatch(why, p, e, o, "numbers differ");
        return 0;
    }
    if (es && cJSON_IsString(o)) {
        if (!strcmp(es, o->valuestring)) return 1;
        cJSON *shown = cJSON_CreateString(es);
        mismatch(why, p, shown, o, "strings differ");
        cJSON_Delete(shown);
        return 0;
    }
    if ((cJSON_IsBool(e) && cJSON_IsBool(o)) || (cJSON_IsNull(e) && cJSON_IsNull(o))) {
        if (cJSON_IsTrue(e) == cJSON_IsTrue(o)) return 1;
    }
    if (es && es != e->valuestring) {
        cJSON *shown = cJSON_CreateString(es);
        mismatch(why, p, shown, o, "values differ");
        cJSON_Delete(shown);
        return 0;
    }
    mismatch(why, p, e, o, "values differ");
    return 0;
}

int dsr__judge_match(const dsr_judge *j, const cJSON *expected, const cJSON *observed, dsr_buf *why)
{
    dsr_buf path = {0};
    dsr__buf_puts(&path, "");
    int r = match(j, expected, observed, &path, why, false, K_NONE);
    dsr__buf_free(&path);
    return r;
}
