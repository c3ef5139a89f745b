/* device.c: device values, the string form 'type:index', equality and availability: the
 * context's device for a value (ra__ctx_find, ra__ctx_require), and the resolution of a
 * type's current device per thread (OF-DEV-2), on the context's bookkeeping (ctx.c). */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {NULL, "cpu", "gpu", "tpu"};

const char *ra_device_type_name(ra_device_type type)
{
    if (type < RA_DEVICE_CPU || type > RA_DEVICE_TPU) return NULL;
    return type_names[type];
}

bool ra__device_valid(ra_device dev)
{
    return dev.type >= RA_DEVICE_CPU && dev.type <= RA_DEVICE_TPU &&
           (dev.index >= 0 || dev.index == RA_DEVICE_INDEX_CURRENT);
}

bool ra_device_eq(ra_device a, ra_device b)
{
    return a.type == b.type && a.index == b.index;
}

int ra_device_format(ra_device dev, char *buf, size_t cap)
{
    if (!buf) return ra__ctx_error(NULL, RA_E_NULL, "ra_device_format: buf is NULL");
    if (!ra__device_valid(dev))
        return ra__ctx_error(NULL, RA_E_ARG,
                             "ra_device_format: not a valid device value (type %d, index %d)",
                             (int)dev.type, (int)dev.index);
    char tmp[RA_DEVICE_STR_MAX];
    /* cpu is the one host device, so its canonical form carries no index (cpu == cpu:0);
     * every other type always shows its index, except the current device of a type, which
     * has none (OF-DEV-2). */
    if ((dev.type == RA_DEVICE_CPU && dev.index == 0) || dev.index == RA_DEVICE_INDEX_CURRENT)
        snprintf(tmp, sizeof tmp, "%s", type_names[dev.type]);
    else
        snprintf(tmp, sizeof tmp, "%s:%d", type_names[dev.type], (int)dev.index);
    size_t len = strlen(tmp);
    if (len + 1 > cap) {
        if (cap) buf[0] = '\0';
        return ra__ctx_error(NULL, RA_E_BUFFER,
                             "ra_device_format: '%s' needs %zu bytes, the buffer has %zu", tmp,
                             len + 1, cap);
    }
    memcpy(buf, tmp, len + 1);
    return RA_OK;
}

const char *ra__device_str(ra_device dev, char buf[RA_DEVICE_STR_MAX])
{
    if (ra_device_format(dev, buf, RA_DEVICE_STR_MAX) != RA_OK)
        snprintf(buf, RA_DEVICE_STR_MAX, "<invalid>");
    return buf;
}

/* Quotes untrusted input for a message: printable ASCII as is, anything else as \xNN, long
 * input cut with "...". */
static const char *quote(const char *text, char *buf, size_t cap)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (o + 8 >= cap) {
            memcpy(buf + o, "...", 4);
            return buf;
        }
        if (*p >= 0x20 && *p < 0x7f && *p != '\\' && *p != '\'')
            buf[o++] = (char)*p;
        else
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", *p);
    }
    buf[o] = '\0';
    return buf;
}

static bool is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}

static bool is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Looks up a type name of len bytes; 0 when unknown. */
static ra_device_type type_lookup(const char *name, size_t len)
{
    for (int t = RA_DEVICE_CPU; t <= RA_DEVICE_TPU; t++)
        if (strlen(type_names[t]) == len && memcmp(type_names[t], name, len) == 0)
            return (ra_device_type)t;
    return (ra_device_type)0;
}

/* Checks the type part [name, name+len) and reports what is wrong with it. */
static int parse_type(ra_ctx *ctx, const char *fn, const char *text, const char *name, size_t len,
                      ra_device_type *out)
{
    char q[96];
    if (len == 0)
        return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                             "%s: device string '%s': the type before ':' is empty", fn,
                             quote(text, q, sizeof q));
    bool letters = true, has_upper = false;
    for (size_t i = 0; i < len; i++) {
        if (is_upper(name[i]))
            has_upper = true;
        else if (!is_lower(name[i]))
            letters = false;
    }
    if (!letters)
        return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                             "%s: device string '%s': the type must be one of cpu, gpu, tpu "
                             "(letters only, no spaces, separator ':')",
                             fn, quote(text, q, sizeof q));
    ra_device_type t = type_lookup(name, len);
    if (!t) {
        if (has_upper) {
            char lower[8] = "";
            if (len < sizeof lower) {
                for (size_t i = 0; i < len; i++)
                    lower[i] = is_upper(name[i]) ? (char)(name[i] - 'A' + 'a') : name[i];
                lower[len] = '\0';
            }
            if (type_lookup(lower, strlen(lower)))
                return ra__ctx_error(ctx, RA_E_DEVICE_TYPE,
                                     "%s: device string '%s': device types are lower-case "
                                     "(write '%s')",
                                     fn, quote(text, q, sizeof q), lower);
        }
        return ra__ctx_error(ctx, RA_E_DEVICE_TYPE,
                             "%s: device string '%s': unknown device type; the types are cpu, "
                             "gpu, tpu",
                             fn, quote(text, q, sizeof q));
    }
    *out = t;
    return RA_OK;
}

int ra_device_parse(ra_ctx *ctx, const char *text, ra_device *out)
{
    static const char fn[] = "ra_device_parse";
    char q[96];
    if (!text) return ra__ctx_error(ctx, RA_E_NULL, "%s: text is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    if (text[0] == '\0')
        return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                             "%s: device string '' is empty; write 'type' or 'type:index' with "
                             "type cpu, gpu or tpu",
                             fn);
    const char *colon = strchr(text, ':');
    size_t type_len = colon ? (size_t)(colon - text) : strlen(text);
    ra_device_type type;
    int status = parse_type(ctx, fn, text, text, type_len, &type);
    if (status != RA_OK) return status;
    int32_t index = 0;
    if (colon) {
        const char *digits = colon + 1;
        if (*digits == '\0')
            return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                                 "%s: device string '%s': the index after ':' is empty", fn,
                                 quote(text, q, sizeof q));
        int64_t value = 0;
        for (const char *p = digits; *p; p++) {
            if (*p == ':')
                return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                                     "%s: device string '%s': more than one ':'", fn,
                                     quote(text, q, sizeof q));
            if (!is_digit(*p))
                return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                                     "%s: device string '%s': the index must be ASCII decimal "
                                     "digits (no sign, space, prefix or separator)",
                                     fn, quote(text, q, sizeof q));
            if (value <= INT32_MAX) value = value * 10 + (*p - '0');
        }
        if (digits[0] == '0' && digits[1] != '\0')
            return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                                 "%s: device string '%s': the index has a leading zero", fn,
                                 quote(text, q, sizeof q));
        if (value > INT32_MAX)
            return ra__ctx_error(ctx, RA_E_DEVICE_SYNTAX,
                                 "%s: device string '%s': the index exceeds 2147483647", fn,
                                 quote(text, q, sizeof q));
        index = (int32_t)value;
    }
    out->type = type;
    out->index = index;
    return RA_OK;
}

int ra_device_from_type_index(ra_ctx *ctx, const char *type, int64_t index, ra_device *out)
{
    static const char fn[] = "ra_device_from_type_index";
    if (!type) return ra__ctx_error(ctx, RA_E_NULL, "%s: type is NULL", fn);
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "%s: out is NULL", fn);
    ra_device_type t;
    int status = parse_type(ctx, fn, type, type, strlen(type), &t);
    if (status != RA_OK) return status;
    if (t == RA_DEVICE_TPU)
        return ra__ctx_error(ctx, RA_E_DEVICE_TYPE,
                             "%s: type 'tpu': OneFlow's device types are cpu and gpu (its cuda)",
                             fn);
    if (index < 0 || index > INT32_MAX)
        return ra__ctx_error(ctx, RA_E_ARG,
                             "%s: index %lld for type '%s' is out of range 0..2147483647", fn,
                             (long long)index, type);
    out->type = t;
    out->index = (int32_t)index;
    return RA_OK;
}

int ra_device_from_ordinal(ra_ctx *ctx, int64_t ordinal, ra_device *out)
{
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_device_from_ordinal: out is NULL");
    if (ordinal < 0 || ordinal > INT32_MAX)
        return ra__ctx_error(ctx, RA_E_ARG,
                             "ra_device_from_ordinal: ordinal %lld is out of range 0..2147483647",
                             (long long)ordinal);
    out->type = RA_DEVICE_GPU;
    out->index = (int32_t)ordinal;
    return RA_OK;
}

bool ra_device_is_available(const ra_ctx *ctx, ra_device dev)
{
    return ctx && ra__ctx_find(ctx, ra__device_resolve((ra_ctx *)ctx, dev)) != NULL;
}

int ra_device_check(ra_ctx *ctx, ra_device dev)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_device_check: ctx is NULL");
    ra__dev *d;
    return ra__ctx_require(ctx, dev, "ra_device_check", &d);
}

int ra_device_props_get(ra_ctx *ctx, ra_device dev, ra_device_props *out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_device_props_get: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_device_props_get: out is NULL");
    ra__dev *d;
    size_t size = out->size;
    if (size != 0 && size < RA__DEVICE_PROPS_FIRST)
        return ra__ctx_error(ctx, RA_E_ARG,
                             "ra_device_props_get: out->size is %zu, less than the struct's "
                             "first layout (%zu bytes); set it to sizeof the struct, or 0",
                             size, (size_t)RA__DEVICE_PROPS_FIRST);
    int status = ra__ctx_require(ctx, dev, "ra_device_props_get", &d);
    if (status != RA_OK) return status;
    /* Fill a whole struct, then give the caller the part its size covers; bytes of a newer
     * caller's struct beyond this library's are zero. */
    ra_device_props p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", d->info.name);
    snprintf(p.backend, sizeof p.backend, "%s", d->ops->name);
    p.total_memory = d->info.total_memory;
    p.has_float64 = d->info.has_float64;
    p.compute_units = d->info.compute_units;
    size_t n = size == 0 ? RA__DEVICE_PROPS_FIRST : size;
    size_t field = sizeof p.size;
    memcpy((char *)out + field, (const char *)&p + field, (n < sizeof p ? n : sizeof p) - field);
    if (n > sizeof p) memset((char *)out + sizeof p, 0, n - sizeof p);
    return RA_OK;
}

int ra_device_default_stream(ra_ctx *ctx, ra_device dev, void **out)
{
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "ra_device_default_stream: ctx is NULL");
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_device_default_stream: out is NULL");
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, "ra_device_default_stream", &d);
    if (status != RA_OK) return status;
    *out = d->ops->default_stream ? d->ops->default_stream(d->impl) : NULL;
    return RA_OK;
}

int ra__opts_load(ra_ctx *ctx, const ra_opts *in, const char *what, ra_opts *out)
{
    memset(out, 0, sizeof *out);
    char where[96];
    snprintf(where, sizeof where, "%s: options", what);
    int status = ra__size_check(ctx, in, in->size, RA__OPTS_FIRST, sizeof *in, where);
    if (status != RA_OK) return status;
    size_t n = in->size == 0 ? RA__OPTS_FIRST : in->size;
    memcpy(out, in, n < sizeof *out ? n : sizeof *out);
    return RA_OK;
}

int ra__opts_device(ra_ctx *ctx, const ra_opts *opts, const char *what, bool *given, ra_device *out)
{
    *given = false;
    if (!opts || (!opts->device && !opts->device_value)) return RA_OK;
    if (opts->device && opts->device_value)
        return ra__ctx_error(ctx, RA_E_ARG,
                             "%s: both device ('%s') and device_value are given; give one", what,
                             opts->device);
    if (opts->device_value) {
        *out = *opts->device_value;
    } else {
        int status = ra_device_parse(ctx, opts->device, out);
        /* A bare type is the current device of its type (OF-DEV-2): index 0, the draft's
         * reading, until ra_device_set_current changes it. */
        if (status == RA_OK && !strchr(opts->device, ':')) out->index = RA_DEVICE_INDEX_CURRENT;
        if (status != RA_OK) {
            /* Prefix the function's name to the parser's detail. */
            ra__thread *t = ra__thread_get(ctx);
            if (t) {
                char detail[RA_MESSAGE_MAX];
                snprintf(detail, sizeof detail, "%s", t->message);
                ra__ctx_error(ctx, status, "%s: %s", what, detail);
            }
            return status;
        }
    }
    *given = true;
    return RA_OK;
}

ra__dev *ra__ctx_find(const ra_ctx *ctx, ra_device dev)
{
    for (size_t i = 0; i < ctx->ndevs; i++)
        if (ra_device_eq(ctx->devs[i]->device, dev)) return ctx->devs[i];
    return NULL;
}

int ra__ctx_require(ra_ctx *ctx, ra_device dev, const char *what, ra__dev **out)
{
    char buf[RA_DEVICE_STR_MAX];
    *out = NULL;
    if (!ra__device_valid(dev))
        return ra__ctx_error(ctx, RA_E_ARG, "%s: not a valid device value (type %d, index %d)",
                             what, (int)dev.type, (int)dev.index);
    /* A device without an index is the calling thread's current one (OF-DEV-2). */
    dev = ra__device_resolve(ctx, dev);
    ra__dev *d = ra__ctx_find(ctx, dev);
    if (!d) {
        char list[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < ctx->ndevs && used < sizeof list; i++) {
            char one[RA_DEVICE_STR_MAX];
            int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                             ra__device_str(ctx->devs[i]->device, one));
            if (n < 0) break;
            used += (size_t)n;
        }
        const char *why = dev.type == RA_DEVICE_TPU ? " (refarray has no tpu backend)" : "";
        return ra__ctx_error(ctx, RA_E_DEVICE_UNAVAILABLE,
                             "%s: device '%s' is not available%s; available: %s", what,
                             ra__device_str(dev, buf), why, list);
    }
    *out = d;
    return RA_OK;
}

ra_device ra__builtin_default(const ra_ctx *ctx)
{
    ra_device gpu0 = {RA_DEVICE_GPU, 0};
    return ra__ctx_find(ctx, gpu0) ? gpu0 : RA_CPU;
}

static bool type_valid(ra_device_type type)
{
    return type >= RA_DEVICE_CPU && type <= RA_DEVICE_TPU;
}

ra_device ra_device_current(ra_ctx *ctx, ra_device_type type)
{
    ra_device dev = {type, 0};
    /* The host has one device, so cpu's current device is always cpu:0. */
    if (!ctx || !type_valid(type) || type == RA_DEVICE_CPU) return dev;
    ra__thread *t = ra__thread_get(ctx);
    if (t) dev.index = t->current[type];
    return dev;
}

ra_device ra__device_resolve(ra_ctx *ctx, ra_device dev)
{
    if (dev.index == RA_DEVICE_INDEX_CURRENT && type_valid(dev.type))
        return ra_device_current(ctx, dev.type);
    return dev;
}

int ra_device_resolve(ra_ctx *ctx, ra_device dev, ra_device *out)
{
    if (!out) return ra__ctx_error(ctx, RA_E_NULL, "ra_device_resolve: out is NULL");
    if (!ra__device_valid(dev))
        return ra__ctx_error(ctx, RA_E_ARG,
                             "ra_device_resolve: not a valid device value (type %d, index %d)",
                             (int)dev.type, (int)dev.index);
    *out = ra__device_resolve(ctx, dev);
    return RA_OK;
}

int ra_device_set_current(ra_ctx *ctx, ra_device dev)
{
    static const char fn[] = "ra_device_set_current";
    if (!ctx) return ra__ctx_error(NULL, RA_E_NULL, "%s: ctx is NULL", fn);
    if (dev.index == RA_DEVICE_INDEX_CURRENT && type_valid(dev.type)) return RA_OK;
    ra__dev *d;
    int status = ra__ctx_require(ctx, dev, fn, &d);
    if (status != RA_OK) return status;
    ra__thread *t = ra__thread_get(ctx);
    if (!t) return ra__ctx_error(ctx, RA_E_NOMEM, "%s: no memory for the thread's state", fn);
    t->current[dev.type] = dev.index;
    return RA_OK;
}
