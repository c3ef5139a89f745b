/* driver.c: see driver.h. */
#define _POSIX_C_SOURCE 200809L

#include "driver.h"

#include "devspec_shim.h"

#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct drv {
    bool host;
    /* in process */
    void *so;
    devspec_adapter_call_fn call;
    devspec_adapter_free_fn release;
    /* out of process */
    pid_t pid;
    FILE *to, *from;
    /* bindings */
    char **names; /* the bound names and their JSON texts, nb of them, room for cap */
    char **values;
    int nb, cap;
    long next_id;
    bool skip_unimplemented;
};

void drv_skip_unimplemented(drv *d, bool on)
{
    d->skip_unimplemented = on;
}

/* Whether reply r is NotImplementedError from the adapter and such replies are skips. */
static bool skipped(drv *d, const cJSON *r, const char *name)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(err, "kind");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(err, "origin");
    if (!d->skip_unimplemented || !cJSON_IsString(k) || !cJSON_IsString(o) ||
        strcmp(k->valuestring, "NotImplementedError") != 0 ||
        strcmp(o->valuestring, "adapter") != 0)
        return false;
    drv_skip_part(name, "the library does not implement this op yet");
    return true;
}

void drv_check_at(const char *file, int line, bool pass, const char *fmt, ...)
{
    if (pass) return;
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    dt_fail(file, line, "%s", name);
}

void drv_skip_part(const char *name, const char *why)
{
    dt_diag("part skipped (%s): %s", why, name);
}

drv *drv_shared;

int drv_main(int argc, char **argv, const dt_test *tests, size_t n)
{
    drv_shared = drv_open(argc, argv);
    /* argv[1] is the mode; inproc takes one more argument, host two; the rest select tests. */
    int used = strcmp(argv[1], "host") == 0 ? 4 : 3;
    argv[used - 1] = argv[0];
    int status = dt_main(argc - used + 1, argv + used - 1, tests, n);
    drv_close(drv_shared);
    return status;
}

static void usage(void)
{
    fprintf(stderr, "usage: TEST inproc ADAPTER.so | TEST host HOST ADAPTER.so\n");
    exit(2);
}

drv *drv_open(int argc, char **argv)
{
    drv *d = calloc(1, sizeof *d);
    if (d == NULL || argc < 3) usage();
    if (strcmp(argv[1], "inproc") == 0) {
        d->so = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        if (d->so == NULL) {
            printf("Bail out! cannot load %s: %s\n", argv[2], dlerror());
            exit(1);
        }
        *(void **)(&d->call) = dlsym(d->so, "devspec_adapter_call");
        *(void **)(&d->release) = dlsym(d->so, "devspec_adapter_free");
        if (d->call == NULL || d->release == NULL) {
            printf("Bail out! %s exports no devspec entry point\n", argv[2]);
            exit(1);
        }
        return d;
    }
    if (strcmp(argv[1], "host") != 0 || argc < 4) usage();
    int in[2], out[2];
    if (pipe(in) < 0 || pipe(out) < 0) {
        perror("pipe");
        exit(1);
    }
    signal(SIGPIPE, SIG_IGN);
    d->pid = fork();
    if (d->pid < 0) {
        perror("fork");
        exit(1);
    }
    if (d->pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(argv[2], argv[2], argv[3], (char *)NULL);
        perror("exec");
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    d->host = true;
    d->to = fdopen(in[1], "w");
    d->from = fdopen(out[0], "r");
    return d;
}

bool drv_is_host(const drv *d)
{
    return d->host;
}

void drv_close(drv *d)
{
    if (d->host) {
        int status = 0;
        fclose(d->to);
        waitpid(d->pid, &status, 0);
        drv_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the host exits 0 at end of input (status %d)", status);
        fclose(d->from);
    } else {
        /* End the session so that the library is closed before the test exits. */
        static const char bye[] = "{\"id\":0,\"op\":\"bye\"}";
        d->release(d->call(bye, sizeof bye - 1, NULL));
        /* Not unloaded, as in devspec-adapter-host: see there. */
    }
    for (int i = 0; i < d->nb; i++) {
        free(d->names[i]);
        free(d->values[i]);
    }
    free(d->names);
    free(d->values);
    free(d);
}

char *drv_raw(drv *d, const char *request, size_t len)
{
    if (!d->host) {
        size_t n = 0;
        const char *r = d->call(request, len, &n);
        char *copy = malloc(n + 1);
        if (copy) {
            memcpy(copy, r, n);
            copy[n] = '\0';
        }
        d->release(r);
        return copy;
    }
    if (fwrite(request, 1, len, d->to) != len || fputc('\n', d->to) == EOF || fflush(d->to))
        return NULL;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got = getline(&line, &cap, d->from);
    if (got <= 0) {
        free(line);
        return NULL;
    }
    if (line[got - 1] == '\n') line[got - 1] = '\0';
    return line;
}

void drv_bind(drv *d, const char *name, const cJSON *value)
{
    char *text = cJSON_PrintUnformatted(value);
    for (int i = 0; i < d->nb; i++)
        if (strcmp(d->names[i], name) == 0) {
            free(d->values[i]);
            d->values[i] = text;
            return;
        }
    if (d->nb == d->cap) {
        int cap = d->cap ? 2 * d->cap : 64;
        char **names = realloc(d->names, sizeof *names * (size_t)cap);
        if (names != NULL) d->names = names;
        char **values = names ? realloc(d->values, sizeof *values * (size_t)cap) : NULL;
        if (values != NULL) d->values = values;
        if (names == NULL || values == NULL) {
            fprintf(stderr, "driver: out of memory binding %s (%d names bound)\n", name, d->nb);
            exit(1);
        }
        d->cap = cap;
    }
    char *copy = strdup(name);
    if (copy == NULL || text == NULL) {
        fprintf(stderr, "driver: out of memory binding %s\n", name);
        exit(1);
    }
    d->names[d->nb] = copy;
    d->values[d->nb++] = text;
}

void drv_bind_field(drv *d, const char *name, const char *from, const char *field)
{
    const char *text = drv_bound(d, from);
    cJSON *obj = text ? cJSON_Parse(text) : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, field);
    if (v != NULL) drv_bind(d, name, v);
    cJSON_Delete(obj);
}

const char *drv_bound(drv *d, const char *name)
{
    for (int i = 0; i < d->nb; i++)
        if (strcmp(d->names[i], name) == 0) return d->values[i];
    return NULL;
}

/* Replaces $name by its bound JSON text. Returns malloc'd text; *unbound (when not NULL)
 * gets the first name that has no binding. */
static char *substitute_names(drv *d, const char *text, char *unbound, size_t size)
{
    size_t cap = strlen(text) * 2 + 256, n = 0;
    char *out = malloc(cap);
    for (const char *p = text; *p;) {
        const char *val = NULL;
        size_t skip = 1;
        if (*p == '$') {
            char name[64];
            size_t k = 0;
            while (k < sizeof name - 1 &&
                   (p[1 + k] == '_' || (p[1 + k] >= 'a' && p[1 + k] <= 'z') ||
                    (p[1 + k] >= 'A' && p[1 + k] <= 'Z') || (p[1 + k] >= '0' && p[1 + k] <= '9'))) {
                name[k] = p[1 + k];
                k++;
            }
            name[k] = '\0';
            val = drv_bound(d, name);
            if (val == NULL) {
                if (unbound && unbound[0] == '\0') snprintf(unbound, size, "%s", name);
                val = "\"$unbound\"";
            }
            skip = k + 1;
        }
        size_t add = val ? strlen(val) : 1;
        if (n + add + 1 > cap) {
            cap = (n + add + 1) * 2;
            out = realloc(out, cap);
        }
        if (val) {
            memcpy(out + n, val, add);
        } else {
            out[n] = *p;
        }
        n += add;
        p += skip;
    }
    out[n] = '\0';
    return out;
}

static char *substitute(drv *d, const char *text)
{
    return substitute_names(d, text, NULL, 0);
}

static bool match(const cJSON *want, const cJSON *got)
{
    if (cJSON_IsString(want) && strcmp(want->valuestring, "*") == 0) return got != NULL;
    if (got == NULL) return false;
    if (cJSON_IsObject(want)) {
        if (!cJSON_IsObject(got)) return false;
        for (const cJSON *w = want->child; w; w = w->next)
            if (!match(w, cJSON_GetObjectItemCaseSensitive(got, w->string))) return false;
        return true;
    }
    if (cJSON_IsArray(want)) {
        if (!cJSON_IsArray(got) || cJSON_GetArraySize(want) != cJSON_GetArraySize(got))
            return false;
        for (const cJSON *w = want->child, *g = got->child; w; w = w->next, g = g->next)
            if (!match(w, g)) return false;
        return true;
    }
    if (cJSON_IsNumber(want)) return cJSON_IsNumber(got) && want->valuedouble == got->valuedouble;
    return cJSON_Compare(want, got, true);
}

static cJSON *vsend(drv *d, const char *file, int line, const char *name, const char *fmt,
                    va_list ap)
{
    char *body;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    body = malloc((size_t)n + 1);
    vsnprintf(body, (size_t)n + 1, fmt, ap);
    char unbound[64] = "";
    char *subst = substitute_names(d, body, unbound, sizeof unbound);
    free(body);
    if (unbound[0] != '\0') {
        char why[128];
        snprintf(why, sizeof why, "needs $%s from an earlier step that did not pass", unbound);
        drv_skip_part(name, why);
        free(subst);
        return NULL;
    }
    /* The request is {"id": N, <fields>}: fmt gives the fields after the id. */
    long id = ++d->next_id;
    size_t len = strlen(subst) + 48;
    char *req = malloc(len);
    snprintf(req, len, "{\"id\":%ld,%s}", id, subst);
    free(subst);
    char *reply = drv_raw(d, req, strlen(req));
    cJSON *r = reply ? cJSON_Parse(reply) : NULL;
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(r, "id");
    if (r == NULL || !cJSON_IsNumber(rid) || (long)rid->valuedouble != id) {
        dt_diag("  request %s", req);
        dt_diag("  reply %s (expected a JSON reply with id %ld)", reply ? reply : "(none)", id);
        dt_fail(file, line, "%s", name);
    }
    free(req);
    free(reply);
    return r;
}

cJSON *drv_send(drv *d, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cJSON *r = vsend(d, file, line, "request", fmt, ap);
    va_end(ap);
    return r;
}

bool drv_ok(drv *d, const char *file, int line, const char *name, const char *bind,
            const char *expect, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cJSON *r = vsend(d, file, line, name, fmt, ap);
    va_end(ap);
    if (r == NULL) return false;
    if (skipped(d, r, name)) {
        cJSON_Delete(r);
        return false;
    }
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(r, "result");
    bool pass = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok"));
    cJSON *want = NULL;
    if (pass && expect) {
        char *e = substitute(d, expect);
        want = cJSON_Parse(e);
        free(e);
        pass = want != NULL && match(want, result);
    }
    if (!pass) {
        char *got = cJSON_PrintUnformatted(r);
        dt_diag("  expected: ok, result %s", expect ? expect : "(any)");
        dt_diag("  observed: %s", got);
        dt_fail(file, line, "%s", name);
    } else if (bind) {
        drv_bind(d, bind, result);
    }
    cJSON_Delete(want);
    cJSON_Delete(r);
    return pass;
}

bool drv_err(drv *d, const char *file, int line, const char *name, const char *kind,
             const char *origin, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cJSON *r = vsend(d, file, line, name, fmt, ap);
    va_end(ap);
    if (r == NULL) return false;
    if ((kind == NULL || strcmp(kind, "NotImplementedError") != 0) && skipped(d, r, name)) {
        cJSON_Delete(r);
        return false;
    }
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(err, "kind");
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(err, "origin");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
    bool pass = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "ok")) && cJSON_IsString(k) &&
                cJSON_IsString(m) && m->valuestring[0] != '\0' &&
                (kind == NULL || strcmp(k->valuestring, kind) == 0) &&
                (origin == NULL || (cJSON_IsString(o) && strcmp(o->valuestring, origin) == 0));
    if (!pass) {
        char *got = cJSON_PrintUnformatted(r);
        dt_diag("  expected: error kind %s origin %s", kind ? kind : "(any)",
                origin ? origin : "(any)");
        dt_diag("  observed: %s", got);
        dt_fail(file, line, "%s", name);
    }
    cJSON_Delete(r);
    return pass;
}
