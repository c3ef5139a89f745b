/* Small utilities: allocation that cannot fail quietly, growable buffers, files, SHA-256,
 * clocks and UTF-8 checking. */
#define _DEFAULT_SOURCE /* mkstemp, fchmod */
#define _POSIX_C_SOURCE 200809L
#include "devspec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* The runner is a program, not a library: running out of memory ends it with a message
 * rather than threading a status through every string operation. */
void *dsr__xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("devspec: out of memory\n", stderr);
        exit(DSR_EXIT_INCOMPLETE);
    }
    return p;
}

void *dsr__xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("devspec: out of memory\n", stderr);
        exit(DSR_EXIT_INCOMPLETE);
    }
    return q;
}

char *dsr__xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = dsr__xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void dsr__buf_add(dsr_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = dsr__xrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void dsr__strlist_add(dsr_strlist *l, const char *s)
{
    l->items = dsr__xrealloc(l->items, sizeof(char *) * (size_t)(l->n + 2));
    l->items[l->n++] = dsr__xstrdup(s);
    l->items[l->n] = NULL;
}

void dsr__strlist_free(dsr_strlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

int dsr__usage_error(const char *command, const char *fmt, const char *arg)
{
    fputs("devspec: ", stderr);
    if (command) fprintf(stderr, "%s: ", command);
    fprintf(stderr, fmt, arg);
    fputs("\n(devspec --help for usage)\n", stderr);
    return DSR_EXIT_USAGE;
}

void dsr__buf_puts(dsr_buf *b, const char *s)
{
    dsr__buf_add(b, s, strlen(s));
}

void dsr__buf_printf(dsr_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        dsr__buf_add(b, small, (size_t)n);
        return;
    }
    char *big = dsr__xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    dsr__buf_add(b, big, (size_t)n);
    free(big);
}

void dsr__buf_free(dsr_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *dsr__strerror(int e)
{
    if (e == DSR_ENOTREG) return "not a regular file";
    return strerror(e);
}

bool dsr__flush_failed(FILE *f)
{
    return fflush(f) != 0 || ferror(f);
}

/* Only a regular file (or /dev/null) is input: a FIFO would block open() and read()
 * forever, a device could be endless. O_NONBLOCK keeps open() itself from blocking on a FIFO; fstat
 * then tells what was opened, so there is no window between checking and reading. */
char *dsr__read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return NULL;
    struct stat st, null_st;
    /* /dev/null is the usual way to say "nothing" (--expectations /dev/null): it reads as
     * empty. Other devices are refused (/dev/zero never ends). */
    if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && stat("/dev/null", &null_st) == 0 &&
        S_ISCHR(null_st.st_mode) && st.st_rdev == null_st.st_rdev) {
        close(fd);
        if (len) *len = 0;
        return dsr__xstrdup("");
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = S_ISDIR(st.st_mode) ? EISDIR : DSR_ENOTREG;
        close(fd);
        errno = e;
        return NULL;
    }
    dsr_buf b = {0};
    dsr__buf_add(&b, "", 0);
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            dsr__buf_free(&b);
            errno = e;
            return NULL;
        }
        if (n == 0) break;
        dsr__buf_add(&b, chunk, (size_t)n);
    }
    close(fd);
    if (len) *len = b.len;
    return b.data;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

int dsr__strmap_put(dsr_strmap *m, const char *key, int val)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        const char **keys = dsr__xmalloc(cap * sizeof *keys);
        int *vals = dsr__xmalloc(cap * sizeof *vals);
        memset(keys, 0, cap * sizeof *keys);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i]) continue;
            size_t j = hash_str(m->keys[i]) & (cap - 1);
            while (keys[j])
                j = (j + 1) & (cap - 1);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    size_t j = hash_str(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (!strcmp(m->keys[j], key)) return m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[j] = key;
    m->vals[j] = val;
    m->n++;
    return -1;
}

int dsr__strmap_get(const dsr_strmap *m, const char *key)
{
    if (m->cap == 0) return -1;
    size_t j = hash_str(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (!strcmp(m->keys[j], key)) return m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

void dsr__strmap_free(dsr_strmap *m, bool free_keys)
{
    if (free_keys)
        for (size_t i = 0; i < m->cap; i++)
            free((char *)m->keys[i]);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

int dsr__mkdir_parents(const char *path)
{
    char *p = dsr__xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            free(p);
            errno = e;
            return -1;
        }
        *s = '/';
    }
    free(p);
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        done += (size_t)w;
    }
    return 0;
}

/* A character device (/dev/null) or a FIFO at PATH is written in place: renaming over it
 * would replace the device with a regular file. O_NONBLOCK keeps open() from waiting for a
 * FIFO's reader (ENXIO when there is none); fstat checks what was opened. */
static int write_atomic(const char *path, const char *data, size_t len);

/* REGULAR: a regular file (under /dev or /proc, or reached through a link that cannot be
 * resolved) is written in place too, created or truncated. */
static int write_in_place(const char *path, const char *data, size_t len, bool regular)
{
    int fd =
        open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (regular ? O_CREAT | O_TRUNC : 0),
             0666);
    if (fd < 0) return -1;
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 ||
        !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || (regular && S_ISREG(st.st_mode)))) {
        close(fd);
        errno = DSR_ENOTREG;
        return -1;
    }
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
        write_all(fd, data, len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return close(fd);
}

/* A new file is written under a unique temporary name beside PATH (mkstemp: two runs
 * writing the same PATH never share one) and renamed over PATH, so PATH is always either the
 * old or the new content. Whatever exists at PATH and is not a regular file is never
 * replaced: devices and FIFOs are written in place, anything else is refused. */
/* The process's own descriptor that PATH names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1. */
static int own_fd(const char *path)
{
    if (!strcmp(path, "/dev/stdout")) return 1;
    if (!strcmp(path, "/dev/stderr")) return 2;
    const char *n = !strncmp(path, "/dev/fd/", 8)          ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                           : NULL;
    if (!n || !n[0]) return -1;
    char *end;
    long fd = strtol(n, &end, 10);
    return *end || fd < 0 || fd > 1 << 20 ? -1 : (int)fd;
}

/* Where a link that leads to nothing yet (its file is to be created) points: its text read
 * link by link (at most 40), relative to each link's folder, the folders resolved. NULL when
 * it cannot be read. */
static char *dangling_target(const char *path)
{
    char *cur = dsr__xstrdup(path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            char *r = dsr__resolve_path(cur);
            free(cur);
            return r;
        }
        char text[4096];
        ssize_t n = readlink(cur, text, sizeof text - 1);
        if (n <= 0) break;
        text[n] = '\0';
        dsr_buf next = {0};
        const char *slash = strrchr(cur, '/');
        if (text[0] == '/' || !slash)
            dsr__buf_puts(&next, text);
        else
            dsr__buf_printf(&next, "%.*s/%s", (int)(slash - cur), cur, text);
        free(cur);
        cur = next.data;
    }
    free(cur);
    return NULL;
}

static bool under_dev_or_proc(const char *p)
{
    return !strncmp(p, "/dev/", 5) || !strncmp(p, "/proc/", 6);
}

dsr_output dsr__output_kind(const char *path, char **target, int *fd)
{
    *target = NULL;
    *fd = own_fd(path);
    if (*fd >= 0) return DSR_OUT_FD;
    struct stat lst, st;
    bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    char *real = link ? realpath(path, NULL) : NULL;
    if (link && !real) real = dangling_target(path);
    if (real) *fd = own_fd(real);
    if (*fd >= 0) {
        free(real);
        return DSR_OUT_FD;
    }
    if (under_dev_or_proc(path) || (real && under_dev_or_proc(real)) || (link && !real)) {
        free(real);
        return DSR_OUT_IN_PLACE;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(real);
        return DSR_OUT_IN_PLACE;
    }
    *target = real ? real : dsr__xstrdup(path);
    return DSR_OUT_FILE;
}

int dsr__write_file_atomic(const char *path, const char *data, size_t len)
{
    char *target;
    int ofd;
    switch (dsr__output_kind(path, &target, &ofd)) {
    case DSR_OUT_FD:
        return write_all(ofd, data, len);
    case DSR_OUT_IN_PLACE: {
        /* Never replaced: a device or FIFO is written in place; a regular file only under
         * /dev or /proc or through a link that leads nowhere resolvable. */
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) &&
            !S_ISFIFO(st.st_mode)) {
            errno = S_ISDIR(st.st_mode) ? EISDIR : DSR_ENOTREG;
            return -1;
        }
        return write_in_place(path, data, len, true);
    }
    case DSR_OUT_FILE:
        break;
    }
    /* A link to a regular file is written through: the file it names is replaced, the link
     * stays. */
    int rc = write_atomic(target, data, len);
    int e = errno;
    free(target);
    errno = e;
    return rc;
}

static int write_atomic(const char *path, const char *data, size_t len)
{
    dsr_buf tmp = {0};
    dsr__buf_printf(&tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp.data);
    if (fd < 0) goto fail;
    /* mkstemp makes the file 0600; a report is as readable as any file the user creates. */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0 || write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        goto fail_unlink;
    }
    if (close(fd) != 0) goto fail_unlink;
    if (rename(tmp.data, path) != 0) goto fail_unlink;
    dsr__buf_free(&tmp);
    return 0;
fail_unlink : {
    int e = errno;
    unlink(tmp.data);
    errno = e;
}
fail : {
    int e = errno;
    dsr__buf_free(&tmp);
    errno = e;
}
    return -1;
}

bool dsr__is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

double dsr__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void dsr__utc_iso(char out[32])
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

long dsr__utf8_invalid_at(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned c = u[i];
        size_t n;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            min = 0x80;
            c &= 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            min = 0x800;
            c &= 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            min = 0x10000;
            c &= 0x07;
        } else {
            return (long)i;
        }
        for (size_t k = 1; k <= n; k++) {
            if (i + k >= len || (u[i + k] & 0xC0) != 0x80) return (long)i;
            c = (c << 6) | (u[i + k] & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return (long)i;
        i += n + 1;
    }
    return -1;
}

/* SHA-256 (FIPS 180-4), for the hash of the expectations file in the report header. */
static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void dsr__sha256_hex(const void *data, size_t len, char out[65])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t full = len / 64;
    for (size_t i = 0; i < full; i++)
        sha256_block(h, p + 64 * i);
    unsigned char tail[128] = {0};
    size_t rest = len % 64;
    memcpy(tail, p + 64 * full, rest);
    tail[rest] = 0x80;
    size_t tlen = rest < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        tail[tlen - 1 - i] = (unsigned char)(bits >> (8 * i));
    sha256_block(h, tail);
    if (tlen == 128) sha256_block(h, tail + 64);
    for (int i = 0; i < 8; i++)
        snprintf(out + 8 * i, 9, "%08x", (unsigned)h[i]);
}

char *dsr__print(const cJSON *v, bool formatted)
{
    if (v == NULL) return NULL;
    char *s = dsj_print(v, formatted, NULL);
    if (!s) {
        fputs("devspec: out of memory\n", stderr);
        exit(DSR_EXIT_INCOMPLETE);
    }
    return s;
}

/* The reindenter's output: room for N more bytes (and the NUL dsr_buf keeps). */
static inline char *room(dsr_buf *out, size_t n)
{
    if (out->len + n + 1 > out->cap) {
        size_t cap = out->cap ? out->cap : 256;
        while (cap < out->len + n + 1)
            cap *= 2;
        out->data = dsr__xrealloc(out->data, cap);
        out->cap = cap;
    }
    return out->data + out->len;
}

static inline void emit(dsr_buf *out, const char *s, size_t n)
{
    memcpy(room(out, n), s, n);
    out->len += n;
}

/* A newline, the LEAD character before it (0: none) and N tabs. */
static inline void emit_line(dsr_buf *out, char lead, size_t n)
{
    char *d = room(out, n + 2);
    if (lead) *d++ = lead;
    *d++ = '\n';
    memset(d, '\t', n);
    out->len += n + 1 + (lead != 0);
}

/* S between quotes into OUT when it has no byte dsj_print escapes; false (OUT unchanged)
 * otherwise. */
static bool put_plain_string(dsr_buf *out, const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (dsj_string_escaped[(unsigned char)s[n]]) return false;
    char *d = room(out, n + 2);
    d[0] = '"';
    memcpy(d + 1, s, n);
    d[n + 1] = '"';
    out->len += n + 2;
    return true;
}

/* V's compact text into OUT as dsj_print writes it, for what a case's record is made of:
 * objects whose keys need no escape, arrays, literals, strings (those that need an escape
 * printed by dsj_print) and numbers (by dsj_print). False where V holds anything else (a raw
 * node, a node dsj_print refuses): OUT then holds part of it. */
static bool put_compact(dsr_buf *out, const cJSON *v)
{
    switch (v->type & 0xFF) {
    case cJSON_NULL:
        emit(out, "null", 4);
        return true;
    case cJSON_False:
        emit(out, "false", 5);
        return true;
    case cJSON_True:
        emit(out, "true", 4);
        return true;
    case cJSON_String:
        if (v->valuestring == NULL) return false;
        if (put_plain_string(out, v->valuestring)) return true;
        break;
    case cJSON_Number:
        break;
    case cJSON_Array:
    case cJSON_Object: {
        bool object = (v->type & 0xFF) == cJSON_Object;
        emit(out, object ? "{" : "[", 1);
        for (const cJSON *c = v->child; c; c = c->next) {
            if (object && (c->string == NULL || !put_plain_string(out, c->string))) return false;
            if (object) emit(out, ":", 1);
            if (!put_compact(out, c)) return false;
            if (c->next) emit(out, ",", 1);
        }
        emit(out, object ? "}" : "]", 1);
        return true;
    }
    default:
        return false;
    }
    size_t n = 0;
    char *t = dsj_print(v, false, &n);
    if (t == NULL) return false;
    emit(out, t, n);
    cJSON_free(t);
    return true;
}

void dsr__print_compact(dsr_buf *out, const cJSON *v)
{
    size_t start = out->len;
    if (put_compact(out, v)) {
        out->data[out->len] = '\0';
        return;
    }
    out->len = start;
    char *s = dsr__print(v, false);
    dsr__buf_puts(out, s);
    cJSON_free(s);
}

/* Long: one pass over the text, each of the six characters the layouts differ in ({ } [ ] ,
 * and :) outside strings in a branch of its own, beside the run of bytes copied unchanged. */
void dsr__json_reindent(const char *text, size_t len, int depth, dsr_buf *out)
{
    /* Per open container, whether it is an object (a comma there starts a line) */
    unsigned char small[64], *open = small;
    size_t nopen = 0, cap = sizeof small;
    const char *p = text, *end = text + len, *run = text;
    /* 1: a character the layouts differ in; 2: a string's quote; 3: a backslash in one */
    static const unsigned char kind[256] = {
        ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, [','] = 1, [':'] = 1, ['"'] = 2, ['\\'] = 3};
    while (p < end) {
        char ch = *p;
        unsigned char k = kind[(unsigned char)ch];
        if (k != 1) {
            if (k == 2) {
                for (p++; p < end && (k = kind[(unsigned char)*p]) != 2; p++)
                    if (k == 3) p++;
            }
            p++;
            continue;
        }
        emit(out, run, (size_t)(p - run));
        size_t level = (size_t)depth + nopen;
        if (ch == '{' && p + 1 < end && p[1] == '}') {
            emit_line(out, '{', level);
            emit(out, "}", 1);
            p += 2;
            run = p;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (nopen == cap) {
                unsigned char *grown = dsr__xmalloc(cap * 2);
                memcpy(grown, open, cap);
                if (open != small) free(open);
                open = grown;
                cap *= 2;
            }
            open[nopen++] = ch == '{';
            if (ch == '{')
                emit_line(out, '{', level + 1);
            else
                emit(out, "[", 1);
        } else if (ch == '}') {
            emit_line(out, 0, level - 1);
            emit(out, "}", 1);
            nopen--;
        } else if (ch == ']') {
            emit(out, "]", 1);
            nopen--;
        } else if (ch == ':') {
            emit(out, ":\t", 2);
        } else if (nopen && open[nopen - 1]) {
            emit_line(out, ',', level);
        } else {
            emit(out, ", ", 2);
        }
        run = ++p;
    }
    emit(out, run, (size_t)(end - run));
    out->data[out->len] = '\0';
    if (open != small) free(open);
}

cJSON *dsr__json_strings(const char *const *l, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(l[i]));
    return a;
}

char *dsr__resolve_path(const char *path)
{
    char *r = realpath(path, NULL);
    if (r) return r;
    /* Not there (yet): the nearest ancestor that is, resolved, and the rest as written. */
    char *p = dsr__xstrdup(path[0] ? path : ".");
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    char *slash = strrchr(p, '/');
    char *parent, *rest;
    if (!slash) {
        parent = dsr__resolve_path(".");
        rest = p;
    } else {
        *slash = '\0';
        parent = dsr__resolve_path(slash == p ? "/" : p);
        rest = slash + 1;
    }
    dsr_buf b = {0};
    dsr__buf_printf(&b, "%s%s%s", parent ? parent : "", parent && !strcmp(parent, "/") ? "" : "/",
                    rest);
    free(parent);
    free(p);
    return b.data;
}

bool dsr__same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = dsr__resolve_path(a), *rb = dsr__resolve_path(b);
    bool same = !strcmp(ra, rb);
    free(ra);
    free(rb);
    return same;
}

bool dsr__path_inside(const char *path, const char *dir)
{
    char *rp = dsr__resolve_path(path), *rd = dsr__resolve_path(dir);
    size_t n = strlen(rd);
    bool inside = !strncmp(rp, rd, n) && (rp[n] == '/' || (n == 1 && rd[0] == '/'));
    free(rp);
    free(rd);
    return inside;
}

size_t dsr__hidden_char(const char *s, unsigned *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    /* C1 controls U+0080..U+009F: C2 80..C2 9F (U+009B is a terminal's CSI). */
    if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
        *cp = p[1];
        return 2;
    }
    /* U+061C (Arabic letter mark): D8 9C. */
    if (p[0] == 0xD8 && p[1] == 0x9C) {
        *cp = 0x061C;
        return 2;
    }
    if (p[0] == 0xE2 && p[1] == 0x80 && p[2]) {
        /* U+200E, U+200F (marks), U+2028, U+2029 (line and paragraph separators),
         * U+202A..U+202E (embeddings and overrides) */
        if (p[2] == 0x8E || p[2] == 0x8F || (p[2] >= 0xA8 && p[2] <= 0xAE)) {
            *cp = 0x2000u + (unsigned)(p[2] - 0x80);
            return 3;
        }
    }
    if (p[0] == 0xE2 && p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9) {
        /* U+2066..U+2069 (isolates) */
        *cp = 0x2040u + (unsigned)(p[2] - 0x80);
        return 3;
    }
    return 0;
}

static void inputs_add(dsr_inputs *l, const char *path, const char *what, bool tree)
{
    if (!path || !path[0]) return;
    l->items = dsr__xrealloc(l->items, sizeof *l->items * (size_t)(l->n + 1));
    l->items[l->n++] = (dsr_input){dsr__xstrdup(path), what, tree};
}

void dsr__inputs_add(dsr_inputs *l, const char *path, const char *what)
{
    inputs_add(l, path, what, false);
}

void dsr__inputs_add_tree(dsr_inputs *l, const char *path, const char *what)
{
    inputs_add(l, path, what, true);
}

void dsr__inputs_add_program(dsr_inputs *l, const char *program, const char *what)
{
    if (!program || !program[0]) return;
    if (strchr(program, '/')) {
        dsr__inputs_add(l, program, what);
        return;
    }
    /* A bare name is the program execvp would run: the first on PATH. */
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        dsr_buf b = {0};
        dsr__buf_printf(&b, "%.*s/%s", (int)len, len ? p : ".", program);
        struct stat st;
        bool found = stat(b.data, &st) == 0 && S_ISREG(st.st_mode) && access(b.data, X_OK) == 0;
        if (found) dsr__inputs_add(l, b.data, what);
        dsr__buf_free(&b);
        if (found) return;
        p += len + (colon ? 1 : 0);
    }
}

void dsr__inputs_add_words(dsr_inputs *l, const char *cmd, const char *what)
{
    char *copy = dsr__xstrdup(cmd ? cmd : "");
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        /* Quotes around a word are the shell's, not the file's. */
        size_t n = strlen(w);
        if (n >= 2 && (w[0] == '\'' || w[0] == '"') && w[n - 1] == w[0]) {
            w[n - 1] = '\0';
            w++;
        }
        struct stat st;
        if (stat(w, &st) == 0 && S_ISREG(st.st_mode)) dsr__inputs_add(l, w, what);
    }
    free(copy);
}

void dsr__inputs_free(dsr_inputs *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->items[i].path);
    free(l->items);
    memset(l, 0, sizeof *l);
}

int dsr__check_output(const char *command, const char *out, const char *what, const dsr_inputs *in)
{
    char *target = NULL;
    int fd;
    if (!out || dsr__output_kind(out, &target, &fd) != DSR_OUT_FILE) return 0;
    free(target);
    for (int k = 0; in && k < in->n; k++) {
        const dsr_input *x = &in->items[k];
        bool dir = x->tree && dsr__is_dir(x->path);
        if (dir ? dsr__path_inside(out, x->path) : dsr__same_file(out, x->path)) {
            fprintf(stderr, "devspec: %s%s%s %s %s the %s %s %s\n", command ? command : "",
                    command ? ": " : "", what, out, dir ? "lies inside" : "is", x->what,
                    dir ? "folder" : "file", x->path);
            return DSR_EXIT_USAGE;
        }
    }
    return 0;
}

int dsr__output_lock(const char *path, int *lock_fd)
{
    *lock_fd = -1;
    char *target = NULL;
    int ofd;
    if (!path || dsr__output_kind(path, &target, &ofd) != DSR_OUT_FILE) return 0;
    int rc = -1;
    if (dsr__mkdir_parents(target) != 0) goto out;
    /* The file a rename replaced between the open and the lock is no longer the output: the
     * lock is taken again on what the path names now. */
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(target, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd < 0) goto out;
        struct stat st, now;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            errno = DSR_ENOTREG;
            goto out;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            rc = e == EWOULDBLOCK ? 1 : -1;
            goto out;
        }
        if (stat(target, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
            *lock_fd = fd;
            rc = 0;
            goto out;
        }
        close(fd);
    }
    errno = EAGAIN;
out:
    free(target);
    return rc;
}

long dsr__lock_holder(const char *path)
{
    struct stat st;
    FILE *f = stat(path, &st) == 0 ? fopen("/proc/locks", "re") : NULL;
    if (!f) return 0;
    /* "1: FLOCK  ADVISORY  WRITE PID MAJOR:MINOR:INODE START END", MAJOR and MINOR in hex
     * (Linux, fs/locks.c); a waiter's line starts "1: ->" and holds nothing. */
    char line[256];
    long pid = 0;
    while (!pid && fgets(line, sizeof line, f)) {
        char kind[16], mode[16], access[16];
        long who;
        unsigned maj, min;
        unsigned long long ino;
        if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", kind, mode, access, &who, &maj, &min,
                   &ino) == 7 &&
            !strcmp(kind, "FLOCK") && ino == (unsigned long long)st.st_ino &&
            maj == major(st.st_dev) && min == minor(st.st_dev))
            pid = who;
    }
    fclose(f);
    return pid;
}
