/* devspec runner: private declarations shared by the runner's modules.
 *
 * The runner loads case files (case_load.c), the spec registries (registry.c) and an
 * expectations file (expectations.c), talks to an adapter through one of two transports
 * (adapter.c), judges each step (judge.c), and writes TAP (tap.c), the JSON report
 * (report.c) and JUnit XML (junit.c). run.c drives a run; main.c is the command line.
 * Nothing here knows any array library: the adapter protocol (spec/protocol.md) is the only
 * way in. */
#ifndef DEVSPEC_H
#define DEVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define DS_PROTOCOL_VERSION 1
#define DS_REPORT_VERSION 1
#define DS_MAX_DEVICES 10 /* $D0..$D9 */

/* ---- util.c ---------------------------------------------------------------------- */

typedef struct ds_buf {
    char *data;
    size_t len;
    size_t cap;
} ds_buf;

void *ds__xmalloc(size_t n);
void *ds__xrealloc(void *p, size_t n);
char *ds__xstrdup(const char *s);
void ds__buf_add(ds_buf *b, const char *s, size_t n);
void ds__buf_puts(ds_buf *b, const char *s);
void ds__buf_printf(ds_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ds__buf_free(ds_buf *b);
/* Reads a whole file; NULL with errno set on failure. The result is NUL-terminated. */
char *ds__read_file(const char *path, size_t *len);
/* Writes a file atomically: PATH.tmp then rename. Returns 0 or -1 with errno set. */
int ds__write_file_atomic(const char *path, const char *data, size_t len);
/* Creates the parent directories of PATH. Returns 0 or -1 with errno set. */
int ds__mkdir_parents(const char *path);
/* A new JSON array of copies of the N strings L (the caller owns it). */
cJSON *ds__json_strings(const char *const *l, int n);
/* Lowercase hex SHA-256 of DATA into out[65]. */
void ds__sha256_hex(const void *data, size_t len, char out[65]);
double ds__now(void);           /* monotonic seconds */
void ds__utc_iso(char out[32]); /* wall clock, ISO 8601 UTC */
/* Returns the byte offset of the first invalid UTF-8 sequence, or -1 when valid. */
long ds__utf8_invalid_at(const char *s, size_t len);
bool ds__is_dir(const char *path);

/* ---- jsonloc.c ------------------------------------------------------------------- */

/* One step of a path into a JSON document: an object key (nth occurrence, 0 for the
 * first) or an array index. */
typedef struct ds_seg {
    const char *key; /* NULL for an index */
    int index;
    int nth;
    bool at_key; /* locate the key itself rather than its value */
} ds_seg;

void ds__offset_to_linecol(const char *text, size_t offset, int *line, int *col);
/* Offset of the value (or key) at PATH in the valid JSON TEXT; as deep as it gets. */
size_t ds__json_locate(const char *text, const ds_seg *path, int depth);
/* The offset of the first byte of TEXT that cannot continue a valid JSON document. */
size_t ds__json_error_offset(const char *text, size_t len);
/* "cases[3].steps[0].op" */
void ds__path_format(const ds_seg *path, int depth, ds_buf *out);

/* ---- registry.c: spec/ and adapters/adapters.json --------------------------------- */

typedef struct ds_feature {
    char *name;
    char **statements;
    int nstatements;
    bool optional;
} ds_feature;

typedef struct ds_profile {
    char *name;
    char *description;
    char **required;
    int nrequired;
    char **optional;
    int noptional;
    bool core;
    char *document; /* NULL: statements of every document apply */
    char *version;
} ds_profile;

typedef struct ds_statement {
    char *id;
    char *level;
    char *text;
    char *document; /* source.document; may be NULL */
    char **versions;
    int nversions;
    bool testable;
} ds_statement;

typedef struct ds_registry {
    char *spec_dir;
    ds_feature *features;
    int nfeatures;
    ds_profile *profiles;
    int nprofiles;
    ds_statement *statements;
    int nstatements;
    char **retired;
    int nretired;
    bool have_statements;
    bool have_profiles;
} ds_registry;

/* Loads features.json (required), profiles.json and statements.json (optional) from
 * SPEC_DIR. On failure prints the reason on stderr and returns -1. */
int ds__registry_load(ds_registry *r, const char *spec_dir);
void ds__registry_free(ds_registry *r);
const ds_feature *ds__registry_feature(const ds_registry *r, const char *name);
const ds_profile *ds__registry_profile(const ds_registry *r, const char *name);
const ds_statement *ds__registry_statement(const ds_registry *r, const char *id);
bool ds__registry_retired(const ds_registry *r, const char *id);
bool ds__profile_has_feature(const ds_profile *p, const char *feature, bool *optional);
/* spec/README.md: a statement applies to a profile when it comes from the profile's
 * document and the profile's version is one of its versions. */
bool ds__statement_applies(const ds_statement *s, const ds_profile *p);

/* A named adapter from adapters/adapters.json, variables already substituted. */
typedef struct ds_named_adapter {
    char *name;
    char **command;      /* NULL-terminated */
    char *shared_object; /* may be NULL */
    char **env;          /* "K=V", NULL-terminated */
    char *expectations;  /* absolute, may be NULL */
} ds_named_adapter;

int ds__named_adapter_find(const char *source, const char *build, const char *name,
                           ds_named_adapter *out);
void ds__named_adapter_free(ds_named_adapter *a);
/* Prints the names in adapters.json, one per line. */
int ds__named_adapter_list(const char *source, FILE *out);

/* ---- case_load.c ----------------------------------------------------------------- */

enum ds_outcome_kind { DS_OUTCOME_NONE, DS_OUTCOME_EXPECT, DS_OUTCOME_RAISES, DS_OUTCOME_EITHER };

typedef struct ds_step {
    const char *op;
    cJSON *args; /* may be NULL; borrowed from the file's tree */
    const char *as;
    enum ds_outcome_kind outcome;
    cJSON *value; /* expect value, raises string or either list */
} ds_step;

struct ds_file;

typedef struct ds_case {
    const char *id;
    const char *description;
    struct ds_file *file;
    int index; /* within the file */
    const char **spec;
    int nspec;
    const char **features;
    int nfeatures;
    int devices;
    ds_step *steps;
    int nsteps;
} ds_case;

typedef struct ds_file {
    char *path; /* as found */
    char *name; /* shown in reports: relative to the cases root */
    char *text;
    cJSON *root;
    ds_case *cases;
    int ncases;
} ds_file;

typedef struct ds_suite {
    ds_file *files;
    int nfiles;
    int ncases;
} ds_suite;

/* Loads every case file under each of PATHS (files, or directories searched recursively
 * for *.json, sorted by name) and validates them all. Each problem is printed on ERR as
 * "FILE:LINE:COL: FIELD: reason". Returns the number of problems (0: the suite is good). */
int ds__suite_load(ds_suite *s, const ds_registry *reg, char *const *paths, int npaths, FILE *err);
void ds__suite_free(ds_suite *s);
bool ds__op_known(const char *op);

/* ---- expectations.c -------------------------------------------------------------- */

typedef enum ds_status {
    DS_PASS,
    DS_FAIL,
    DS_ERROR,
    DS_SKIP,
    DS_XFAIL,
    DS_XPASS,
    DS_CRASH,
    DS_TIMEOUT,
    DS_STATUS_COUNT
} ds_status;

const char *ds__status_name(ds_status s);
int ds__status_parse(const char *name); /* -1 when unknown */

typedef struct ds_expectation {
    char *pattern;
    ds_status status;
    char *reason; /* may be empty */
    int line;
    int matches;
} ds_expectation;

typedef struct ds_expectations {
    char *path;
    char sha256[65];
    ds_expectation *items;
    int count;
} ds_expectations;

/* Parses an expectations file. Problems are printed on ERR as "FILE:LINE: reason";
 * returns their number. */
int ds__expectations_load(ds_expectations *e, const char *path, FILE *err);
void ds__expectations_free(ds_expectations *e);
/* The first entry whose pattern matches ID, or NULL. Counts the match. */
ds_expectation *ds__expectations_match(ds_expectations *e, const char *id);

/* ---- adapter.c ------------------------------------------------------------------- */

typedef enum ds_io {
    DS_IO_OK,
    DS_IO_DEAD,        /* the worker exited or closed its stdout */
    DS_IO_TIMEOUT,     /* the deadline passed */
    DS_IO_INTERRUPTED, /* SIGINT */
    DS_IO_TOO_LONG     /* a reply line over the limit */
} ds_io;

typedef struct ds_adapter ds_adapter;

/* In process: dlopens PATH and looks up devspec_adapter_call / devspec_adapter_free. */
ds_adapter *ds__adapter_open_so(const char *path, char *err, size_t errlen);
/* Out of process: ARGV (NULL-terminated) with ENV_ADD ("K=V") added to the environment.
 * Nothing starts until ds__adapter_start. */
ds_adapter *ds__adapter_open_cmd(char *const *argv, char *const *env_add);
/* Starts (or restarts) the worker. Returns 0 or -1 with the reason in ERR. */
int ds__adapter_start(ds_adapter *a, char *err, size_t errlen);
/* Sends one request line (without '\n') and waits for one reply line until DEADLINE
 * (ds__now() seconds; <= 0: none). On DS_IO_OK *reply is malloc'd, NUL-terminated. */
ds_io ds__adapter_call(ds_adapter *a, const char *req, size_t len, double deadline, char **reply,
                       size_t *reply_len);
/* Kills the worker's process group and reaps it; no-op in process. */
void ds__adapter_kill(ds_adapter *a);
/* Closes stdin, waits up to GRACE seconds, then kills. */
void ds__adapter_stop(ds_adapter *a, double grace);
void ds__adapter_destroy(ds_adapter *a);
bool ds__adapter_in_process(const ds_adapter *a);
/* After DS_IO_DEAD: how the worker ended, e.g. "killed by signal 11 (SIGSEGV)". */
const char *ds__adapter_death(const ds_adapter *a);
/* The last few KiB of the worker's stderr (since the last ds__adapter_stderr_clear). */
const char *ds__adapter_stderr(ds_adapter *a);
void ds__adapter_stderr_clear(ds_adapter *a);
/* Set from the SIGINT handler; the transports return DS_IO_INTERRUPTED when set. */
extern volatile int ds__interrupted;

/* ---- judge.c --------------------------------------------------------------------- */

/* Asks the adapter whether two device handles are equal: 1 yes, 0 no, -1 the question
 * itself failed (the reason is in ERR). */
typedef int (*ds_device_equal_fn)(void *ctx, const char *a, const char *b, ds_buf *err);

typedef struct ds_judge {
    ds_device_equal_fn device_equal;
    void *ctx;
    const cJSON *bindings; /* what "$name" refers to (an object by name); NULL: nothing bound */
} ds_judge;

/* 1: OBSERVED matches EXPECTED (spec/case-format.md, "Matching expect"); 0: it does not,
 * and WHY says where; -1: a device comparison could not be made (WHY says why). EXPECTED is
 * the case's own value: its "$name" references are resolved from J's bindings, its
 * matchers applied, its "$$" escapes undone. */
int ds__judge_match(const ds_judge *j, const cJSON *expected, const cJSON *observed, ds_buf *why);
bool ds__is_typed_array(const cJSON *v);
bool ds__is_device_handle(const cJSON *v);
/* An object key that makes its object a matcher: one "$", not "$$" (spec/case-format.md). */
bool ds__is_matcher_key(const char *key);
/* The matchers ("$len_min", ...) and the names $type accepts; NULL-terminated. */
extern const char *const ds__matcher_names[];
extern const char *const ds__matcher_types[];
/* A copy of V with every "$name" string replaced by its binding (null when unbound) and
 * "$$text" by "$text"; object keys are copied as they are. The caller deletes it. */
cJSON *ds__resolve(const cJSON *bindings, const cJSON *v);

/* ---- run.c ----------------------------------------------------------------------- */

typedef struct ds_result {
    const ds_case *c;
    ds_status status;
    ds_status raw_status; /* before the expectations file was applied */
    const ds_expectation *expectation;
    char *reason;      /* skip reason or failure message; may be NULL */
    char *skip_source; /* "unsupported", "devices", "expectations"; may be NULL */
    int step;          /* failing step index, -1 if none */
    cJSON *expected;   /* what the step wanted (owned), may be NULL */
    cJSON *observed;   /* what came back (owned), may be NULL */
    char *stderr_tail; /* may be NULL */
    double duration;
} ds_result;

typedef struct ds_options {
    char **cases;
    int ncases;
    char **case_globs;
    int ncase_globs;
    char **features;
    int nfeatures;
    char **exclude_features;
    int nexclude_features;
    const char *profile;
    const char *expectations;
    const char *report;
    const char *junit;
    bool tap;
    bool strict;
    bool progress;
    bool color;
    double timeout;
    double start_timeout; /* for hello, first and replayed: libraries can be slow to load */
    int max_restarts;
    const char *adapter_label; /* shown in reports */
    const char *adapter_spec;  /* --adapter as given, or the command */
    const char *transport;     /* "in-process" / "out-of-process" */
    const char *source;
    const char *build;
    int argc;
    char **argv;
} ds_options;

/* Runs the selected cases. Returns the exit status (0, 1, 3). */
int ds__run(const ds_options *o, const ds_registry *reg, ds_suite *suite, ds_expectations *ex,
            ds_adapter *ad);
/* spec/README.md: a case counts for a profile when all its features are in the profile, at
 * least one statement it cites applies, and none it cites from the profile's document is
 * outside the profile's version. */
bool ds__case_counts(const ds_registry *reg, const ds_case *c, const ds_profile *p);
/* True when C passes the --case/--feature/--exclude-feature/--profile filters. */
bool ds__case_selected(const ds_options *o, const ds_registry *reg, const ds_case *c);

/* ---- tap.c / junit.c / report.c -------------------------------------------------- */

typedef struct ds_tap ds_tap;
ds_tap *ds__tap_open(FILE *out);
void ds__tap_comment(ds_tap *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ds__tap_result(ds_tap *t, const ds_result *r);
void ds__tap_bail(ds_tap *t, const char *reason);
/* Closes the open subtest, if any, and prints the plan. */
void ds__tap_close(ds_tap *t);

/* STRICT: an xpass is a <failure type="xpass"> (it fails the run with --strict). */
int ds__junit_write(const char *path, const ds_result *results, int n, const cJSON *header,
                    double total_time, bool strict, char *err, size_t errlen);

/* Escapes S for an XML attribute or text node, dropping what XML 1.0 cannot hold. */
void ds__xml_escape(ds_buf *b, const char *s);
/* A YAML double-quoted scalar for S, also safe for TAP's YAMLish reader. */
void ds__yaml_quote(ds_buf *b, const char *s);

#endif
