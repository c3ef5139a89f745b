/* devspec runner: private declarations shared by the runner's modules.
 *
 * The runner loads case files (case_load.c), the spec registries (registry.c) and an
 * expectations file (expectations.c), talks to an adapter through the protocol client
 * (client.c) over one of two transports (adapter.c), judges each step (judge.c), decides
 * what counts for a profile (profile.c), and tells its reporters: TAP (tap.c), the JSON
 * report (report.c), JUnit XML (junit.c), the summary (summary.c). run.c schedules a run;
 * main.c is the command line.
 * Nothing here knows any array library: the adapter protocol (spec/protocol.md) is the only
 * way in. */
#ifndef DEVSPEC_H
#define DEVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* The project's version, from its one source (the file VERSION), defined by the build. */
#ifndef DEVSPEC_VERSION
#error "DEVSPEC_VERSION is defined by the build from the file VERSION"
#endif

/* Every number and string the runner reads or writes goes through dsjson (common/). */
#include "dsjson.h"

#define DSR_PROTOCOL_VERSION 1
#define DSR_REPORT_VERSION 1
#define DSR_MAX_DEVICES 10 /* $D0..$D9 */
/* The longest reply line, without its newline (spec/protocol.md, "Limits"). */
#define DSR_PROTOCOL_MAX_REPLY (64u << 20)
/* The most values (and keys) a reply may hold outside the data of typed arrays, which are
 * read packed (spec/protocol.md, "Limits"); written out for the messages. */
#define DSR_PROTOCOL_MAX_REPLY_VALUES 65536
#define DSR_STR_(x) #x
#define DSR_STR(x) DSR_STR_(x)

/* The exit status of every command (conformance/README.md, "Exit status"). */
typedef enum dsr_exit {
    DSR_EXIT_OK = 0,         /* nothing unexpected */
    DSR_EXIT_UNEXPECTED = 1, /* an unexpected result (with --strict also an xpass or a stale
                              * expectation); coverage: a statement that gates is uncovered */
    DSR_EXIT_USAGE = 2,      /* a usage error, invalid case files or expectations file, a report
                              * that cannot be read */
    DSR_EXIT_INCOMPLETE = 3  /* the adapter could not start, the run is incomplete, a file could
                              * not be written, memory ran out */
} dsr_exit;

/* ---- util.c ---------------------------------------------------------------------- */

typedef struct dsr_buf {
    char *data;
    size_t len;
    size_t cap;
} dsr_buf;

void *dsr__xmalloc(size_t n);
void *dsr__xrealloc(void *p, size_t n);
char *dsr__xstrdup(const char *s);
void dsr__buf_add(dsr_buf *b, const char *s, size_t n);
void dsr__buf_puts(dsr_buf *b, const char *s);
void dsr__buf_printf(dsr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dsr__buf_free(dsr_buf *b);

/* A growing list of owned strings, kept NULL-terminated so that items is an argv once
 * something is added. */
typedef struct dsr_strlist {
    char **items;
    int n;
} dsr_strlist;

void dsr__strlist_add(dsr_strlist *l, const char *s);
void dsr__strlist_free(dsr_strlist *l);

/* A usage error: "devspec: COMMAND: " (COMMAND NULL: "devspec: ") and FMT with ARG on stderr,
 * then where the usage is; returns 2, the exit status of a usage error. */
int dsr__usage_error(const char *command, const char *fmt, const char *arg);
/* Reads a whole regular file (/dev/null reads as empty); NULL with errno set on failure
 * (EISDIR, DSR_ENOTREG for a FIFO, socket or other device). The result is NUL-terminated. */
char *dsr__read_file(const char *path, size_t *len);
/* Where an output path leads: the runner's own descriptor (/dev/stdout, /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N, or a link to one: written to directly); something written in
 * place (a device, a FIFO, anything under /dev or /proc, a link that cannot be resolved:
 * never unlinked, renamed over or given a journal beside it); or a regular file, *TARGET
 * its path with links resolved (free it), replaced atomically. */
typedef enum dsr_output { DSR_OUT_FILE, DSR_OUT_IN_PLACE, DSR_OUT_FD } dsr_output;
dsr_output dsr__output_kind(const char *path, char **target, int *fd);
/* Writes a file atomically: a temporary file beside it, then rename; through a link, the
 * file it names (the link stays); in place or to the descriptor as dsr__output_kind says.
 * Returns 0 or -1 with errno set. */
int dsr__write_file_atomic(const char *path, const char *data, size_t len);
/* Locks the output PATH (its parent folders made, the file created empty when missing, never
 * truncated) as a run's report journal is locked: flock on the file PATH names, held by
 * *LOCK_FD until it is closed. Returns 0 (*LOCK_FD -1 for an output written in place or to
 * a stream, which is not locked), 1 when another process holds the lock, -1 with errno set
 * when the file cannot be opened. */
int dsr__output_lock(const char *path, int *lock_fd);
/* The process that holds an flock on the file PATH names (Linux: /proc/locks), so that a
 * refusal names the run it yields to; 0 when it cannot be told. */
long dsr__lock_holder(const char *path);
/* Creates the parent directories of PATH. Returns 0 or -1 with errno set. */
int dsr__mkdir_parents(const char *path);
/* V as JSON text through dsj_print (exact numbers, NULs kept), compact or FORMATTED as
 * cJSON_Print lays it out; free it with cJSON_free. Exits when memory runs out; NULL only
 * when V is NULL. */
char *dsr__print(const cJSON *v, bool formatted);
/* Appends V's compact text to OUT, byte for byte dsr__print(v, false): objects, arrays,
 * literals and strings that need no escape written directly, anything else by dsj_print. A
 * case's record, a few dozen plain strings, is written so at about a fifth of dsj_print's
 * cost. Exits when memory runs out, as dsr__print does. */
void dsr__print_compact(dsr_buf *out, const cJSON *v);
/* Appends to OUT the compact JSON text TEXT (LEN bytes, as dsr__print(v, false) writes it) laid
 * out as dsr__print(v, true) lays out the same value DEPTH levels deep: byte for byte the
 * formatted text, without a second tree or print (the consolidated report reuses the
 * journal's records so). Not for a value that holds a raw node (a packed array): the
 * printer writes its text as it came in both layouts. */
void dsr__json_reindent(const char *text, size_t len, int depth, dsr_buf *out);
/* A new JSON array of copies of the N strings L (the caller owns it). */
cJSON *dsr__json_strings(const char *const *l, int n);
/* Lowercase hex SHA-256 of DATA into out[65]. */
void dsr__sha256_hex(const void *data, size_t len, char out[65]);
double dsr__now(void);           /* monotonic seconds */
void dsr__utc_iso(char out[32]); /* wall clock, ISO 8601 UTC */
/* Returns the byte offset of the first invalid UTF-8 sequence, or -1 when valid. */
long dsr__utf8_invalid_at(const char *s, size_t len);
bool dsr__is_dir(const char *path);
/* The length of a character at S that a terminal or a page would act on rather than show,
 * beyond the C0 controls: a C1 control (U+0080..U+009F; U+009B starts a terminal escape), a
 * bidirectional control (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, which
 * reorder the text around them) or a line or paragraph separator (U+2028, U+2029: YAML and
 * many editors end a line there); *CP gets its code point. 0 for anything else. Whatever
 * shows a library's text writes these as \uXXXX. */
size_t dsr__hidden_char(const char *s, unsigned *cp);
/* PATH made absolute with its links resolved (realpath); for a path that does not exist,
 * its nearest existing ancestor resolved and the rest as written. Free it. */
char *dsr__resolve_path(const char *path);
/* Whether A and B name one file: by device and inode when both exist, else by their
 * resolved paths (an output that is not written yet against an input). */
bool dsr__same_file(const char *a, const char *b);
/* Whether PATH (existing or not) lies under the directory DIR, links resolved. */
bool dsr__path_inside(const char *path, const char *dir);
/* The files and folders a command reads, which none of its outputs may replace
 * (dsr__check_output): the case files and folders, the expectations file, the spec folder,
 * the adapters files, the adapter's program, shared object and interpreter. */
typedef struct dsr_input {
    char *path;       /* owned */
    const char *what; /* "case", "adapter program": messages say "the WHAT file PATH" */
    bool tree;        /* a folder guards everything inside it (the cases, the spec) */
} dsr_input;
typedef struct dsr_inputs {
    dsr_input *items;
    int n;
} dsr_inputs;
/* Adds the file PATH (copied; NULL or "" adds nothing). */
void dsr__inputs_add(dsr_inputs *l, const char *path, const char *what);
/* Adds PATH, a file or a folder whose every file is read (the case folders, the spec). */
void dsr__inputs_add_tree(dsr_inputs *l, const char *path, const char *what);
/* Adds the program PROGRAM runs as: PROGRAM itself when it holds a '/', else the first
 * executable of that name on PATH (nothing when there is none). */
void dsr__inputs_add_program(dsr_inputs *l, const char *program, const char *what);
/* Adds each word of the shell command CMD (split at blanks, one pair of quotes around a
 * word taken off) that names an existing regular file: the files a command line names are
 * known this far, not past the shell's own parsing. */
void dsr__inputs_add_words(dsr_inputs *l, const char *cmd, const char *what);
void dsr__inputs_free(dsr_inputs *l);
/* Outputs never destroy inputs: the output OUT (WHAT names it: "--report") is refused when
 * it is one of the files IN names or lies inside one of its folders, said on stderr as
 * "devspec: COMMAND: WHAT OUT is the case file F" (COMMAND NULL: none); returns
 * DSR_EXIT_USAGE, else 0. An output written in place or to a stream (/dev/null,
 * /dev/stdout) replaces nothing and is not checked; neither is OUT NULL. */
int dsr__check_output(const char *command, const char *out, const char *what, const dsr_inputs *in);
/* errno value of dsr__read_file and dsr__write_file_atomic for a path that exists but is not
 * a regular file (a FIFO, a socket, a device): only regular files are read as input, and
 * nothing the runner writes replaces something else. dsr__strerror names it. */
#define DSR_ENOTREG 4096
/* strerror, knowing DSR_ENOTREG. */
const char *dsr__strerror(int e);
/* Whether a write to F failed so far (ferror) or fails on flushing; the caller reports it. */
bool dsr__flush_failed(FILE *f);

/* A hash map from strings to ints, for the checks that must stay linear on large inputs
 * (duplicate keys and case IDs, directories already visited). Keys are borrowed unless the
 * map is freed with FREE_KEYS. Zero-initialise it. */
typedef struct dsr_strmap {
    const char **keys;
    int *vals;
    size_t cap, n;
} dsr_strmap;
/* Stores VAL under KEY unless KEY is present; returns the value already there, or -1 (VAL
 * was stored). Values must be >= 0. */
int dsr__strmap_put(dsr_strmap *m, const char *key, int val);
/* The value stored under KEY, or -1. */
int dsr__strmap_get(const dsr_strmap *m, const char *key);
void dsr__strmap_free(dsr_strmap *m, bool free_keys);

/* ---- schedule.c: the order --jobs N workers take the cases in ----------------------- */

/* The places of SEL's TOTAL cases in the order JOBS workers take them (the cases that name
 * the same dtypes together, the groups in the order of their first case), and in *GROUP_END,
 * per place, where its piece of the group ends (a piece is at most TOTAL / JOBS places).
 * Both are the caller's to free. */
struct dsr_case;
int *dsr__schedule(const struct dsr_case **sel, int total, int jobs, int **group_end);

/* ---- options.c: the command line's options tables ------------------------------------ */

/* What an option does with its value: LIST adds it to a dsr_strlist, STRING keeps it, SECONDS
 * and COUNT parse it (COUNT within [lo, hi]); FLAG_ON and FLAG_OFF take no value and set a
 * bool; PASS and PASS_FLAG add the option (and its value) to a dsr_strlist, for a command
 * run later; HELP is --help; TEXT is no option, only a line of the help. */
typedef enum dsr_opt_kind {
    DSR_OPT_LIST,
    DSR_OPT_STRING,
    DSR_OPT_SECONDS,
    DSR_OPT_COUNT,
    DSR_OPT_FLAG_ON,
    DSR_OPT_FLAG_OFF,
    DSR_OPT_PASS,
    DSR_OPT_PASS_FLAG,
    DSR_OPT_HELP,
    DSR_OPT_TEXT
} dsr_opt_kind;

#define DSR_OPT_COUNT_MAX 1000000

typedef struct dsr_option {
    const char *name; /* "--cases" ("--cases=V" is also read); NULL for a TEXT line */
    dsr_opt_kind kind;
    size_t field; /* where in the command's struct it goes (offsetof) */
    /* The help's line: USAGE in the option column (NULL: not listed, e.g. an alias that
     * another line names), HELP in the text column ('\n' continues it there). A TEXT entry
     * with no USAGE prints HELP as it is (a heading). */
    const char *usage, *help;
    /* NULL, or a check of the value: NULL when it is good, else a format with one %s for
     * the value that says why not ("--by takes statement, case or feature, not '%s'"). */
    const char *(*check)(const char *value);
    int lo, hi; /* COUNT's range */
} dsr_option;

typedef struct dsr_command {
    const char *prefix; /* the command in its usage errors ("devspec: compare: ..."), or NULL */
    const dsr_option *options;
    size_t noptions;
    /* Arguments that are no option go to a dsr_strlist at POSITIONAL_FIELD, at most
     * MAX_POSITIONAL of them (0: any number); POSITIONAL NULL: none are taken. */
    const char *positional;
    size_t positional_field;
    int max_positional;
    const char *intro, *notes; /* the help before and after the options */
} dsr_command;

/* dsr__options_parse's answer when it printed the help (the command then exits 0). */
#define DSR_OPT_HELP_SHOWN (-1)

/* Reads ARGV[FIRST..ARGC) into OUT by the table of C. Returns 0; DSR_OPT_HELP_SHOWN when
 * --help or -h is among them (the help is printed on stdout); or the exit status of a usage
 * error (2), said on stderr: an unknown option or argument, an option without its value, a
 * value that is not one the option takes, each named with the reason. */
int dsr__options_parse(const dsr_command *c, int argc, char **argv, int first, void *out);
/* The help of C: its intro, a line per listed option, its notes. */
void dsr__options_help(const dsr_command *c, FILE *out);

/* ---- jsonloc.c ------------------------------------------------------------------- */

/* One step of a path into a JSON document: an object key (nth occurrence, 0 for the
 * first) or an array index. */
typedef struct dsr_seg {
    const char *key; /* NULL for an index */
    int index;
    int nth;
    bool at_key; /* locate the key itself rather than its value */
} dsr_seg;

void dsr__offset_to_linecol(const char *text, size_t offset, int *line, int *col);
/* Offset of the value (or key) at PATH in the valid JSON TEXT; as deep as it gets. */
size_t dsr__json_locate(const char *text, const dsr_seg *path, int depth);
/* The offset of the first byte of TEXT that cannot continue a valid JSON document. */
size_t dsr__json_error_offset(const char *text, size_t len);
/* "cases[3].steps[0].op" */
void dsr__path_format(const dsr_seg *path, int depth, dsr_buf *out);

/* ---- registry.c: spec/ and adapters/adapters.json --------------------------------- */

typedef struct dsr_feature {
    char *name;
    char **statements;
    int nstatements;
    bool optional;
} dsr_feature;

typedef struct dsr_profile {
    char *name;
    char *description;
    char **required;
    int nrequired;
    char **optional;
    int noptional;
    bool core;
    char *document; /* NULL: statements of every document apply */
    char *version;
    /* feature -> 0 required, 1 optional (the first listing): the report's footer asks it of
     * every case for every profile */
    dsr_strmap feature_index;
} dsr_profile;

typedef struct dsr_statement {
    char *id;
    char *level;
    char *text;
    char *document; /* source.document; may be NULL */
    char **versions;
    int nversions;
    bool testable;
    cJSON *levels; /* {version: level} where it differs from level (owned); or NULL */
} dsr_statement;

typedef struct dsr_registry {
    char *spec_dir;
    dsr_feature *features;
    int nfeatures;
    dsr_profile *profiles;
    int nprofiles;
    dsr_statement *statements;
    int nstatements;
    dsr_strmap statement_index; /* id -> index in STATEMENTS (the first of an id) */
    char **retired;
    int nretired;
    bool have_statements;
    bool have_profiles;
    /* signatures.json, when the spec has one: its versions in order, and each function's
     * name with the index in VERSIONS of the version that introduced it */
    bool have_signatures;
    char **versions;
    int nversions;
    char **functions;
    int *introduced;
    char **function_features; /* the feature of each function's family, or NULL */
    int nfunctions;
    /* step-features.json's "ops" (optional): the features each op of a step uses */
    cJSON *step_rules;
} dsr_registry;

/* Loads features.json (required), profiles.json, statements.json and signatures.json
 * (optional) from SPEC_DIR. On failure prints the reason on stderr and returns -1. */
int dsr__registry_load(dsr_registry *r, const char *spec_dir);
void dsr__registry_free(dsr_registry *r);
const dsr_feature *dsr__registry_feature(const dsr_registry *r, const char *name);
const dsr_profile *dsr__registry_profile(const dsr_registry *r, const char *name);
const dsr_statement *dsr__registry_statement(const dsr_registry *r, const char *id);
bool dsr__registry_retired(const dsr_registry *r, const char *id);
/* The index in R->versions of the version that introduced the function or method FN of
 * signatures.json ("where", "linalg.solve", "Array.__add__"), or -1 when it has none. */
int dsr__registry_function(const dsr_registry *r, const char *fn);
/* The index of VERSION in R->versions, or -1. */
int dsr__registry_version(const dsr_registry *r, const char *version);
/* The feature of the family of function FN in signatures.json ("functions-elementwise" for
 * "add", "array-methods" for "Array.__add__"), or NULL. */
const char *dsr__registry_function_feature(const dsr_registry *r, const char *fn);
bool dsr__profile_has_feature(const dsr_profile *p, const char *feature, bool *optional);
/* spec/README.md: a statement applies to a profile when it comes from the profile's
 * document and the profile's version is one of its versions. */
bool dsr__statement_applies(const dsr_statement *s, const dsr_profile *p);

/* A named adapter from adapters/adapters.json, variables already substituted. */
typedef struct dsr_named_adapter {
    char *name;
    char **command;            /* NULL-terminated */
    char *shared_object;       /* may be NULL */
    char **env;                /* "K=V", NULL-terminated */
    char *expectations;        /* absolute, may be NULL */
    int jobs;                  /* the most workers the library allows in one run (0: no limit) */
    double timeout;            /* the least per-case timeout its library needs (0: none) */
    char *file;                /* an adapters file of one's own it came from (NULL: the suite's);
                                * after -2, the file that could not be used */
    bool replaces_suite_entry; /* the suite's adapters.json has an adapter of that name too */
} dsr_named_adapter;

/* Finds NAME in the adapters files of one's own, then in adapters/adapters.json, each
 * checked first (every problem printed with its place). Returns 0, -1 when no adapter has
 * that name, -2 when a file cannot be read or is not valid (OUT->file names it). An adapter
 * of one's own that takes over a name of the suite's is said on stderr. */
int dsr__named_adapter_find(const char *source, const char *build, const char *name,
                            dsr_named_adapter *out);
void dsr__named_adapter_free(dsr_named_adapter *a);
/* Adds the files the adapter A is made of to IN: its program (found on PATH when a bare
 * name), each argument of its command that names a file, its shared object and its
 * expectations file. */
void dsr__named_adapter_inputs(const dsr_named_adapter *a, dsr_inputs *in);
/* Registers adapters files of one's own (FILES stay owned by the caller), searched before
 * the suite's adapters/adapters.json; their relative paths are relative to their folder. */
void dsr__named_adapter_files(char *const *files, int n);
/* Prints the names in adapters.json (and the files of one's own), one per line, an entry
 * whose program is a path that is not there (an installation has no .venv) marked
 * "[unavailable: PATH does not exist]". */
int dsr__named_adapter_list(const char *source, const char *build, FILE *out);
/* Why the adapter A cannot run here (its program is a path that does not exist or cannot be
 * run), or NULL; free it. */
char *dsr__named_adapter_unavailable(const dsr_named_adapter *a);

/* ---- case_load.c ----------------------------------------------------------------- */

enum dsr_outcome_kind {
    DSR_OUTCOME_NONE,
    DSR_OUTCOME_EXPECT,
    DSR_OUTCOME_RAISES,
    DSR_OUTCOME_EITHER,
    DSR_OUTCOME_EXPECT_RANKS /* value: one expected value per rank */
};

typedef struct dsr_step {
    const char *op;
    cJSON *args; /* may be NULL; borrowed from the file's tree */
    const char *as;
    enum dsr_outcome_kind outcome;
    cJSON *value; /* expect value, raises string or either list */
} dsr_step;

struct dsr_file;

typedef struct dsr_case {
    const char *id;
    const char *description;
    struct dsr_file *file;
    int index; /* within the file */
    const char **spec;
    int nspec;
    const char **features;
    int nfeatures;
    int devices;
    bool needs_data; /* it reads elements back (array.read, array.exchange): every device it
                      * binds must hold data (derived from the steps) */
    unsigned dtypes_on[DSR_MAX_DEVICES]; /* the dtypes (bits by dsr__dtype_names) it makes on
                                          * $D0..$D9, derived from its steps: a device whose
                                          * info.dtypes leaves one out skips the case */
    int ranks;            /* how many ranks an SPMD adapter must run (1 unless the case says) */
    const char *decision; /* the devspec decision its expectation rests on; or NULL */
    dsr_step *steps;
    int nsteps;
} dsr_case;

typedef struct dsr_file {
    char *path; /* as found */
    char *name; /* shown in reports: relative to the cases root */
    char *text;
    size_t len;       /* of text, which may hold NUL bytes (an error) */
    cJSON *root;      /* read-only: its nodes are in ARENA (common/dsjson.h) */
    dsj_arena *arena; /* freed with the file, never ROOT itself */
    dsr_case *cases;
    int ncases;
} dsr_file;

typedef struct dsr_suite {
    dsr_file *files;
    int nfiles;
    int ncases;
    double load_seconds; /* reading and checking the spec and the case files (main.c) */
} dsr_suite;

/* The dtypes of the standard, NULL-terminated: bit i of a dtype mask is dsr__dtype_names[i]. */
extern const char *const dsr__dtype_names[];
/* The bit of dtype NAME in a dtype mask, 0 for a name that is none of them. */
unsigned dsr__dtype_bit(const char *name);

/* Loads every case file under each of PATHS (files, or directories searched recursively
 * for *.json, sorted by name) and validates them all. Each problem is printed on ERR as
 * "FILE:LINE:COL: FIELD: reason". Returns the number of problems (0: the suite is good). */
int dsr__suite_load(dsr_suite *s, const dsr_registry *reg, char *const *paths, int npaths,
                    FILE *err);
/* Loads one case file held in memory (LEN bytes of TEXT, shown as NAME), as dsr__suite_load
 * does a file; for the tests and the fuzzing harness. */
int dsr__suite_load_text(dsr_suite *s, const dsr_registry *reg, const char *name, const char *text,
                         size_t len, FILE *err);
void dsr__suite_free(dsr_suite *s);

/* ---- expectations.c -------------------------------------------------------------- */

typedef enum dsr_status {
    DSR_PASS,
    DSR_FAIL,
    DSR_ERROR,
    DSR_SKIP,
    DSR_XFAIL,
    DSR_XPASS,
    DSR_CRASH,
    DSR_TIMEOUT,
    DSR_LACKS, /* the library lacks what a step needs (the error's "lacks") */
    DSR_STATUS_COUNT
} dsr_status;

const char *dsr__status_name(dsr_status s);
/* True for the statuses that fail a run: fail, error, crash, timeout, lacks. */
bool dsr__status_unexpected(dsr_status s);
int dsr__status_parse(const char *name); /* -1 when unknown */

typedef struct dsr_expectation {
    char *pattern;
    dsr_status status; /* crash for an intermittent-crash entry */
    bool intermittent; /* intermittent-crash: a crash of a case it names is run once more on
                        * a fresh worker (run.c); matched apart from the other entries */
    char *reason;      /* may be empty */
    int line;
    int matches;
    int shadowed_by; /* the line of an earlier entry that took a case this one matches; 0 */
} dsr_expectation;

typedef struct dsr_expectations {
    char *path;
    char sha256[65];
    dsr_expectation *items;
    int count;
} dsr_expectations;

/* Parses an expectations file. Problems are printed on ERR as "FILE:LINE: reason";
 * returns their number. */
int dsr__expectations_load(dsr_expectations *e, const char *path, FILE *err);
/* The same for LEN bytes of TEXT in memory, shown as PATH. */
int dsr__expectations_parse(dsr_expectations *e, const char *path, const char *text, size_t len,
                            FILE *err);
void dsr__expectations_free(dsr_expectations *e);
/* The first entry whose pattern matches ID, or NULL; intermittent-crash entries are not
 * among them. Counts the match, and that of the first intermittent-crash entry that matches
 * ID (an entry that matches no case is stale, whichever kind it is). */
dsr_expectation *dsr__expectations_match(dsr_expectations *e, const char *id);
/* The first intermittent-crash entry whose pattern matches ID, or NULL. Counts nothing: the
 * runner's workers ask it while they run. */
const dsr_expectation *dsr__expectations_intermittent(const dsr_expectations *e, const char *id);
/* X's status as the file writes it: "intermittent-crash", or the status's name. */
const char *dsr__expectation_status_name(const dsr_expectation *x);

/* ---- adapter.c ------------------------------------------------------------------- */

typedef enum dsr_io {
    DSR_IO_OK,
    DSR_IO_DEAD,        /* the worker exited or closed its stdout */
    DSR_IO_TIMEOUT,     /* the deadline passed */
    DSR_IO_INTERRUPTED, /* SIGINT */
    DSR_IO_TOO_LONG     /* a reply line over the limit */
} dsr_io;

typedef struct dsr_adapter dsr_adapter;

/* In process: dlopens PATH and looks up devspec_adapter_call / devspec_adapter_free. */
dsr_adapter *dsr__adapter_open_so(const char *path, char *err, size_t errlen);
/* Out of process: ARGV (NULL-terminated) with ENV_ADD ("K=V") added to the environment.
 * Nothing starts until dsr__adapter_start. */
dsr_adapter *dsr__adapter_open_cmd(char *const *argv, char *const *env_add);
/* Another adapter with A's command and environment (for --jobs); NULL in process. */
dsr_adapter *dsr__adapter_clone(const dsr_adapter *a);
/* Starts (or restarts) the worker. Returns 0 or -1 with the reason in ERR. */
int dsr__adapter_start(dsr_adapter *a, char *err, size_t errlen);
/* Sends one request line (without '\n') and waits for one reply line until DEADLINE
 * (dsr__now() seconds; <= 0: none). On DSR_IO_OK *reply is malloc'd, NUL-terminated. REQ NULL
 * sends nothing: the reply awaited is that of a request written ahead. */
dsr_io dsr__adapter_call(dsr_adapter *a, const char *req, size_t len, double deadline, char **reply,
                         size_t *reply_len);
/* Whether a request of LEN bytes and a second of AHEAD_LEN can go out in one write,
 * dsr__adapter_call_ahead: out of process, and PIPE_BUF bytes at most together (so that no
 * reply can come before both are written). */
bool dsr__adapter_ahead_fits(const dsr_adapter *a, size_t len, size_t ahead_len);
/* dsr__adapter_call of REQ with AHEAD, a second request line, written after it in the same
 * write (where dsr__adapter_ahead_fits): the result and *REPLY are REQ's; AHEAD's reply is read
 * by a dsr__adapter_call with REQ NULL, which writes nothing. */
dsr_io dsr__adapter_call_ahead(dsr_adapter *a, const char *req, size_t len, const char *ahead,
                               size_t ahead_len, double deadline, char **reply, size_t *reply_len);
/* Gives up the request A is waiting for, from another thread: dsr__adapter_call returns
 * DSR_IO_INTERRUPTED within 200 ms, and so does every later call. */
void dsr__adapter_cancel(dsr_adapter *a);
/* Kills the worker's process group and reaps it; no-op in process. */
void dsr__adapter_kill(dsr_adapter *a);
/* Closes stdin, waits up to GRACE seconds, then kills. */
void dsr__adapter_stop(dsr_adapter *a, double grace);
void dsr__adapter_destroy(dsr_adapter *a);
bool dsr__adapter_in_process(const dsr_adapter *a);
/* After DSR_IO_DEAD: how the worker ended, e.g. "killed by signal 11 (SIGSEGV)". */
const char *dsr__adapter_death(const dsr_adapter *a);
/* The signal that killed the worker, 0 when none did (it exited, or closed its stdout). */
int dsr__adapter_death_signal(const dsr_adapter *a);
/* The last few KiB of the worker's stderr (since the last dsr__adapter_stderr_clear),
 * preceded by the lines that say why (dsr__adapter_why) when they fell out of it. */
const char *dsr__adapter_stderr(dsr_adapter *a);
/* The last line of the worker's stderr since the last clear that says why it stopped (a
 * failed check, an error or exception named, a fatal log line), or NULL. */
const char *dsr__adapter_why(dsr_adapter *a);
void dsr__adapter_stderr_clear(dsr_adapter *a);
/* Set from the SIGINT handler; the transports return DSR_IO_INTERRUPTED when set. */
extern _Atomic int dsr__interrupted;

/* ---- judge.c --------------------------------------------------------------------- */

/* How a request, a step or a case ended. */
typedef enum dsr_end {
    DSR_END_OK,
    DSR_END_FAIL,    /* the step did not hold */
    DSR_END_ERROR,   /* the adapter broke the protocol */
    DSR_END_CRASH,   /* the worker died */
    DSR_END_TIMEOUT, /* past the deadline; the worker was killed */
    DSR_END_STOP,    /* interrupted (SIGINT, SIGTERM) */
    DSR_END_LACKS    /* the library lacks what the step needs */
} dsr_end;

/* Asks the adapter whether two device handles are equal: 1 yes, 0 no, -1 the question
 * itself failed (the reason is in ERR). */
typedef int (*dsr_device_equal_fn)(void *ctx, const char *a, const char *b, dsr_buf *err);

typedef struct dsr_judge {
    dsr_device_equal_fn device_equal;
    void *ctx;
    const cJSON *bindings; /* what "$name" refers to (an object by name); NULL: nothing bound */
    dsr_end io; /* set by DEVICE_EQUAL when its request failed in transport (judge_step.c) */
} dsr_judge;

/* 1: OBSERVED matches EXPECTED (spec/case-format.md, "Matching expect"); 0: it does not,
 * and WHY says where; -1: a device comparison could not be made (WHY says why). EXPECTED is
 * the case's own value: its "$name" references are resolved from J's bindings, its
 * matchers applied, its "$$" escapes undone. */
int dsr__judge_match(const dsr_judge *j, const cJSON *expected, const cJSON *observed,
                     dsr_buf *why);
bool dsr__is_typed_array(const cJSON *v);
bool dsr__is_device_handle(const cJSON *v);
/* An object key that makes its object a matcher: one "$", not "$$" (spec/case-format.md). */
bool dsr__is_matcher_key(const char *key);
/* The matchers ("$len_min", ...) and the names $type accepts; NULL-terminated. */
extern const char *const dsr__matcher_names[];
extern const char *const dsr__matcher_types[];
/* Two JSON numbers by value, exactly whatever their size (integers by their source text):
 * -1, 0 or 1 as A is below, equal to or above B; 2 when either is no number. */
int dsr__number_cmp(const cJSON *a, const cJSON *b);
/* A copy of V with every "$name" string replaced by its binding (null when unbound) and
 * "$$text" by "$text"; object keys are copied as they are. The caller deletes it. */
cJSON *dsr__resolve(const cJSON *bindings, const cJSON *v);

/* ---- results and options: what a run is asked and what it found -------------------- */

/* What a case's expectation rests on (spec/decisions.md, Runner and reports 35). */
typedef enum dsr_basis { DSR_BASIS_MUST, DSR_BASIS_SHOULD, DSR_BASIS_DECISION } dsr_basis;

/* The first run of a case that crashed where an intermittent-crash entry covers it, and was
 * run once more on a fresh worker (run.c): what the report keeps of it (report.json,
 * case.first_run). */
typedef struct dsr_first_run {
    char *reason;      /* the crash's message */
    char *death;       /* how the worker ended ("killed by signal 8 (SIGFPE)") */
    int signal;        /* the signal that ended it, 0 for none */
    int step;          /* the step in flight; -1: the reset before the case's first step */
    const char *after; /* when in the reset: the case the worker ran before (its id), or NULL */
    char *stderr_tail; /* may be NULL */
    double duration;
    const dsr_expectation *entry; /* the intermittent-crash entry that covered it */
} dsr_first_run;

typedef struct dsr_result {
    const dsr_case *c;
    dsr_status status;
    dsr_status raw_status; /* before the expectations file was applied */
    const dsr_expectation *expectation;
    char *reason;      /* skip reason or failure message; may be NULL */
    char *skip_source; /* "unsupported", "devices", "ranks", "expectations", "interrupted";
                        * may be NULL */
    int step;          /* failing step index, -1 if none */
    cJSON *expected;   /* what the step wanted (owned), may be NULL */
    cJSON *observed;   /* what came back (owned), may be NULL */
    char *stderr_tail; /* may be NULL */
    char *lacks;       /* what the library lacks (status lacks before expectations); or NULL */
    cJSON *steps;      /* the steps that held and how (report.json, case.steps; owned) */
    int stopped_at;    /* the step whose stop alternative ended the case as a pass; -1 */
    char *stop_reason; /* why it stopped there; or NULL */
    dsr_basis basis;   /* what its expectation rests on, at the newest levels (profile.c) */
    char *call;        /* a failed step as the library saw it (explain.c); or NULL */
    cJSON *devices;    /* {handle: the library's name} for the handles it mentions; or NULL */
    /* The crash of a first run, when the case was run again (run.c); or NULL. */
    dsr_first_run *first;
    double duration;
} dsr_result;
/* Applies the expectations file to a result that ran (or was skipped for a reason other
 * than the file): pass against an expected failure is xpass, the expected failure itself
 * xfail (expectations.c). */
void dsr__expectation_apply(dsr_result *res);

typedef struct dsr_options {
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
    const dsr_inputs *inputs; /* every file the run reads (dsr__check_run_outputs) */
    const char *report;
    const char *junit;
    const char *trace; /* every request and reply line, for the tests' schema checks */
    bool tap;
    int tap_version; /* 13 (the default) or 14 */
    bool strict;
    bool skip_crashes; /* --skip-expected-crashes: an expected crash is left out, not run */
    bool progress;
    bool color;
    double timeout;
    double start_timeout;      /* for hello, first and replayed: libraries can be slow to load */
    int max_restarts;          /* of all the workers together */
    int max_reruns;            /* cases run once more after an intermittent crash, per run */
    int jobs;                  /* out-of-process workers (--jobs); in process always 1 */
    const char *adapter_label; /* shown in reports */
    const char *adapter_spec;  /* --adapter as given, or the command */
    const char *adapters_file; /* the adapters file of one's own the adapter came from */
    bool adapter_replaces_suite_entry;
    const char *transport; /* "in-process" / "out-of-process" */
    const char *source;
    const char *build;
    int argc;
    char **argv;
} dsr_options;

/* ---- profile.c: the profile rules, below the runner and its reports ------------------ */

/* spec/README.md: a case counts for a profile when all its features are in the profile, at
 * least one statement it cites applies, and none it cites from the profile's document is
 * outside the profile's version. */
bool dsr__case_counts(const dsr_registry *reg, const dsr_case *c, const dsr_profile *p);
/* "must", "should", "decision", by dsr_basis. */
extern const char *const dsr__basis_names[];
/* C's basis for profile P (NULL: at each statement's newest level): a decision where the case
 * names one; else "should" where a statement it cites that applies is at most a should (or a
 * may) at P's version, "must" where every one is a must (or implementation-defined). */
dsr_basis dsr__case_basis(const dsr_registry *reg, const dsr_case *c, const dsr_profile *p);
/* True when C passes the --case/--feature/--exclude-feature/--profile filters. */
bool dsr__case_selected(const dsr_options *o, const dsr_registry *reg, const dsr_case *c);
/* True when the hello result HELLO claims FEATURE; false when HELLO is NULL. */
bool dsr__claimed(const cJSON *hello, const char *feature);
/* A feature that step ST uses by spec/step-features.json and HELLO does not claim (of an
 * any_of, its first when HELLO claims none of them), written into BUF (of N bytes); NULL
 * when it uses none such, or the spec has no step-features.json. A step the library cannot
 * express under such a feature is a skip; under features it claims, it lacks what the step
 * needs (spec/decisions.md, Protocol and adapters). */
const char *dsr__step_unclaimed(const dsr_registry *reg, const dsr_step *st, const cJSON *hello,
                                char *buf, size_t n);
/* The array API version the library declares (hello's library.array_api_version) when a
 * profile of the registry has that version, else NULL: a library is judged by the version
 * it declares (spec/decisions.md, Runner and reports). */
const char *dsr__declared_version(const dsr_registry *reg, const cJSON *hello);
/* The first statement of the array API standard that C cites and that VERSION does not
 * have (C checks what a later or earlier version says), or NULL. */
const dsr_statement *dsr__case_beyond_version(const dsr_registry *reg, const dsr_case *c,
                                              const char *version);

/* How the cases that count for a profile ended. */
typedef struct dsr_tally {
    int cases, passed, failed, skipped, not_run;
    int should_failed; /* failed cases resting on a should (never a verdict's failures) */
    int differs;       /* failed cases resting on a devspec decision: the reference reading */
} dsr_tally;

typedef enum dsr_verdict_kind {
    DSR_CONFORMS,
    DSR_DOES_NOT_CONFORM,
    DSR_UNDETERMINED
} dsr_verdict_kind;
/* "conforms", "does-not-conform", "undetermined", by dsr_verdict_kind. */
extern const char *const dsr__verdict_names[];

typedef struct dsr_verdict {
    dsr_verdict_kind verdict;
    const char **missing; /* the required features the library does not claim (borrowed) */
    int nmissing;
    const char **lacks; /* what the library lacks in the required cases (borrowed, distinct) */
    int nlacks;
    dsr_tally required; /* cases of required features only: these decide */
    dsr_tally optional; /* cases of an optional feature, reported beside */
} dsr_verdict;

/* Profile P's verdict over NRESULTS RESULTS of a run of SUITE whose adapter said HELLO
 * (NULL: it did not answer); COMPLETE: the run was not cut short. Free with
 * dsr__verdict_free. */
void dsr__profile_verdict(const dsr_registry *reg, const dsr_suite *suite, const cJSON *hello,
                          const dsr_result *results, int nresults, const dsr_profile *p,
                          bool complete, dsr_verdict *v);
void dsr__verdict_free(dsr_verdict *v);
/* V as a report's footer writes a profile's verdict (report.json, footer.profiles). */
cJSON *dsr__verdict_json(const dsr_verdict *v);

/* ---- client.c: the protocol client ------------------------------------------------ */

/* A reply that kept the protocol. */
typedef struct dsr_reply {
    bool ok;
    cJSON *doc;                          /* the whole reply (owned) */
    const cJSON *result;                 /* when ok */
    const char *kind, *message, *origin; /* when not ok */
    const char *lacks; /* when not ok: what the library lacks, as the standard names it; or NULL */
} dsr_reply;

/* One adapter as the runner speaks to it: its worker, the handshake's result and the
 * devices bound from it, request ids and the deadline, and why the last request failed. */
typedef struct dsr_client {
    dsr_adapter *ad;
    const dsr_options *o; /* the timeouts and --max-restarts */
    long next_id;
    double deadline;                /* of the request being sent (dsr__now() seconds; <= 0: none) */
    cJSON *hello;                   /* the hello result */
    double max_line;                /* hello's max_line, read once per hello; < 0: none */
    char *devices[DSR_MAX_DEVICES]; /* $D0 (the default device) first */
    int ndevices;
    bool no_data[DSR_MAX_DEVICES]; /* devices[i] holds no data (hello's devices_without_data) */
    int ndata;                     /* how many of devices hold data */
    int nranks;                    /* an SPMD adapter's ranks (hello's "ranks"), 1 otherwise */
    bool need_reset;               /* a case ran since the last hello */
    int *restarts;                 /* shared by the clients of a run (--jobs N) */
    int own_restarts;
    bool broken; /* the worker could not be restarted: nothing more can be sent */
    char why_broken[1200];
    dsr_buf req;      /* the request being sent */
    dsr_buf ahead;    /* a request composed to go out with the next one (dsr__client_ahead) */
    long ahead_id;    /* its id */
    bool ahead_sent;  /* it went out: the next dsr__client_request reads its reply */
    dsr_buf msg;      /* why the last request failed */
    cJSON *violation; /* the reply that broke the protocol (owned; the caller may take it) */
    cJSON *reference; /* the run's first hello, for another worker (owned); NULL: the first */
} dsr_client;

/* A client of AD; RESTARTS (NULL: its own count) is shared with the run's other clients. */
void dsr__client_init(dsr_client *c, dsr_adapter *ad, const dsr_options *o, int *restarts);
/* Starts the worker and says hello (within --start-timeout): 0, or -1 with the reason. */
int dsr__client_start(dsr_client *c, char *err, size_t errlen);
/* Sends OP with ARGS (taken over) and reads the reply. On DSR_END_OK *REP is filled (the
 * caller deletes rep->doc); any other end has set c->msg, and c->violation after a reply that
 * broke the protocol. RESTART_ON_ERROR: a worker that broke the protocol is restarted. */
dsr_end dsr__client_request(dsr_client *c, const char *op, cJSON *args, dsr_reply *rep,
                            bool restart_on_error);
/* OP with ARGS (taken over) and ID, composed now to be written in the same write as the next
 * request, and answered after it (spec/protocol.md, "Transports": a case's first step goes
 * out with the reset before it). True: the next dsr__client_request after that one must be
 * OP (with ARGS NULL) and reads its reply; false: nothing is kept (in process, no hello, or
 * the line too long for hello's max_line), the caller sends OP as usual. */
bool dsr__client_ahead(dsr_client *c, long id, const char *op, cJSON *args);
/* Drops a request written ahead whose reply will not be read by a step (the request before it
 * failed): its reply is read and discarded; a worker that dies or breaks the protocol
 * meanwhile is restarted, so that the next case begins on a sound one. */
void dsr__client_drop_ahead(dsr_client *c);
/* Starts a fresh worker after a crash, a timeout or a protocol violation and replays the
 * handshake; past --max-restarts, or when that fails, the client is broken. */
void dsr__client_restart(dsr_client *c);
/* A polite goodbye within 2 s (an in-process adapter releases its library here). */
void dsr__client_bye(dsr_client *c);
void dsr__client_free(dsr_client *c);
/* --trace PATH: from now on every request and reply line goes to PATH, "> " or "< " first.
 * Returns 0, or -1 with errno set. */
int dsr__client_trace_open(const char *path);
/* --trace: TEXT as a line of its own, "# " first (newlines made spaces): what the runner
 * learnt about a handle (the library's name of a device), for a reader of the trace. */
void dsr__client_trace_note(const char *text);
/* Closes the trace; false when a write to it failed. */
bool dsr__client_trace_close(void);

/* ---- judge_step.c: a step's reply against its outcome ------------------------------- */

/* Why the last request or step of a case did not hold, for the case's result: the message
 * and the expected and observed values (owned). */
typedef struct dsr_failure {
    dsr_buf msg;
    cJSON *expected;
    cJSON *observed;
    char *lacks; /* what the library lacks, from the step that said so */
} dsr_failure;

void dsr__failure_say(dsr_failure *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Replaces F's expected and observed values (taken over; NULL for none). */
void dsr__failure_io(dsr_failure *f, cJSON *expected, cJSON *observed);
void dsr__failure_free(dsr_failure *f);
/* Judges step ST's reply REP against its outcome (spec/case-format.md): DSR_END_OK when it
 * held, else DSR_END_FAIL, DSR_END_ERROR (a protocol error, a device comparison that could
 * not be made), DSR_END_LACKS or the transport's end of a device.equal, with F saying why.
 * *ALT_HELD is the either alternative that held (1 the first; 0 for a step without
 * alternatives); *STOP is set when it carries "stop": true: the case ends there as a pass. */
dsr_end dsr__judge_step(dsr_judge *j, const dsr_step *st, const dsr_reply *rep, dsr_failure *f,
                        int *alt_held, bool *stop);
/* Records in RES how step S of C held (report.json, case.steps): what the library did and,
 * for an either step, the alternative ALT; a STOP alternative ends the case there, and why. */
void dsr__judge_held(dsr_result *res, const dsr_case *c, int s, const dsr_reply *rep, int alt,
                     bool stop);

/* ---- explain.c ------------------------------------------------------------------- */

/* After RES, a failure at step RES->step of C, asks CL what the handles it mentions are
 * (device.describe, array.describe), with BINDINGS the case's: sets RES->call (the step with
 * devices and arrays by the library's names), RES->devices (each device handle's name) and
 * rewrites RES->reason with the names and the library's innermost traceback frame. */
void dsr__explain_failure(dsr_client *cl, const dsr_case *c, const cJSON *bindings,
                          dsr_result *res);

/* ---- run.c ----------------------------------------------------------------------- */

/* Runs the selected cases. Returns the exit status (0, 1, 3). */
int dsr__run(const dsr_options *o, const dsr_registry *reg, dsr_suite *suite, dsr_expectations *ex,
             dsr_adapter *ad);

/* ---- values.c: large values, bounded ------------------------------------------------ */

#define DSR_SHOWN_MAX 1024      /* bytes of a value quoted in a message */
#define DSR_SUMMARY_ELEMENTS 64 /* a longer list is kept as its summary */
#define DSR_SUMMARY_ENDS 8      /* elements a summary keeps from each end */
#define DSR_SUMMARY_TEXT 4096   /* a longer string is kept as its summary */
#define DSR_SUMMARY_WHOLE 65536 /* a value still longer (as text) becomes one summary */
/* Appends V's compact text to B, cut after MAX bytes (at a UTF-8 boundary) and then saying
 * how long it was: "[0,0,0,... (67108864 bytes, 33554432 elements)". A packed array is not
 * printed again for it. */
void dsr__show_value(dsr_buf *b, const cJSON *v, size_t max);
/* Takes V and returns it with every list of more than DSR_SUMMARY_ELEMENTS elements and
 * every string of more than DSR_SUMMARY_TEXT bytes replaced by
 * {"$summary": {"count", "bytes", "sha256", "first", "last"}} (strings: "bytes", "sha256"
 * and "first", their first DSR_SUMMARY_TEXT bytes), the SHA-256 over the compact JSON text;
 * a value whose text is still over DSR_SUMMARY_WHOLE bytes becomes the summary of that
 * text. NULL stays NULL. */
cJSON *dsr__bound_value(cJSON *v);
/* A bounded copy of V (dsr__bound_value of a copy), made without copying a large string or
 * list whole first: what a failed step keeps of a reply costs no second reply. */
cJSON *dsr__bounded_copy(const cJSON *v);
/* Sets the allocator up so that the memory of a large reply goes back when it is freed
 * (main calls it first). */
void dsr__memory_setup(void);
/* Set when an allocation of cJSON's failed while dsr__json_watch_memory(true) is in force
 * (one thread only: the hooks are global); cleared by it. */
extern _Atomic int dsr__json_out_of_memory;
void dsr__json_watch_memory(bool on);
/* Reads a reply line as the protocol's limits allow: the data of typed arrays packed
 * (common/dsjson.h), at most DSR_PROTOCOL_MAX_REPLY_VALUES other values. NULL when it is not
 * JSON or passes a limit; *WHY then says which limit (NULL: not JSON). LINE[LEN] must be a
 * NUL (it is read in place where nothing in it is rewritten). */
cJSON *dsr__parse_reply(const char *line, size_t len, const char **why);
/* A small reply read in one pass, as the tree dsr__parse_reply would give it (the same nodes,
 * types, values, number texts, keys and links), or NULL where this reader declines it: it
 * knows only objects and arrays nested at most 8 deep, of at most 16 keys, none "data" and
 * none twice; strings of printable ASCII without escapes; integers of at most 15 digits;
 * true, false and null; lines of at most 4096 bytes. A reply it reads is valid UTF-8 and has
 * no duplicate key. Whatever it declines goes to dsr__parse_reply and its checks, so every
 * refusal and its message stay theirs. */
cJSON *dsr__read_small_reply(const char *line, size_t len);
/* The first member of an object of V (depth first) whose key an earlier member of the same
 * object has, or NULL. JSON leaves duplicate keys to the reader and readers differ (cJSON
 * finds the first copy, Python's json keeps the last), so a reply that has one is refused
 * (spec/protocol.md, "Replies"). */
const cJSON *dsr__duplicate_key(const cJSON *v);
/* Bounds a finished result's expected and observed values (dsr__bound_value). */
void dsr__bound_result(dsr_result *res);

/* ---- report.c -------------------------------------------------------------------- */

/* A run as its report describes it; run.c fills it from its own state. */
typedef struct dsr_run_state {
    const dsr_options *o;
    const dsr_registry *reg;
    const dsr_suite *suite;
    const dsr_expectations *ex;
    const cJSON *hello;   /* the hello result; NULL when the adapter did not answer */
    char *const *devices; /* the bound handles, $D0 first */
    int ndevices;
    const dsr_result *results;
    int nresults;
    int restarts;
    bool interrupted;
    bool complete;              /* every selected case ran, nothing cut the run short */
    const char *why_incomplete; /* when not complete */
} dsr_run_state;

/* An in-process run, watched (watch.c): the run goes on in a child, and a child ended by a
 * signal (the library aborted or faulted) still leaves a report. The page the child shares
 * with the parent: the selected case it runs (-1: none), and its journal and report. */
typedef struct dsr_watch {
    volatile int index;
    char jsonl[4096];
    char report[4096];
} dsr_watch;
extern dsr_watch *dsr__watch; /* NULL when the run is not watched */
typedef struct dsr_watch_run {
    const dsr_options *o;
    const dsr_registry *reg;
    const dsr_suite *suite;
    const dsr_expectations *ex;
    const dsr_case *const *sel;            /* the selected cases, in order */
    const dsr_expectation *const *sel_exp; /* the expectation of each */
    int total;
} dsr_watch_run;
/* Forks: 0 in the child (the run), 1 in the parent (the watcher), -1 when not watched
 * (DEVSPEC_NO_WATCH=1, or the fork failed). */
int dsr__watch_begin(void);
/* The parent waits for the child: its exit status, *SIG the signal that ended it or 0. */
int dsr__watch_wait(int *sig);
/* A child ended by SIG: the journal gets the case it was running as a crash and a footer,
 * the consolidated report is written from it, stderr says so. Returns 3. */
int dsr__watch_recover(const dsr_watch_run *run, int sig, double elapsed);

/* ---- the reporters: what a run tells as it goes --------------------------------------- */

/* One output of a run. The scheduler (run.c) calls every reporter with the same events, in
 * order, as Bowtie's reporter hears ready or startup_failed, then each case, then the end:
 *   begin     the run begins: HEADER is the report's header record; ADAPTER_ERROR (NULL when
 *             the adapter answered hello) says why the adapter did not start, and then no
 *             case follows. false: this run must not go on (another run holds its report),
 *             and no further event comes to any reporter;
 *   case_done one case's result, in suite order, left in the output's buffer;
 *   flush     what case_done left buffered goes out (TAP's stream, the journal; NULL where
 *             nothing is): after every case with one worker, after each batch of results
 *             with --jobs N (run.c);
 *   end       the run is over (FOOTER: its counts, verdicts and gate); false: a file could
 *             not be written (said on stderr), which makes the exit status 3.
 * The TAP stream (tap.c), the JSON Lines journal and its consolidated report (report.c), the
 * JUnit XML (junit.c) and the summary (summary.c) are reporters. */
typedef struct dsr_reporter dsr_reporter;
struct dsr_reporter {
    bool (*begin)(dsr_reporter *self, const dsr_run_state *r, const cJSON *header,
                  const char *adapter_error);
    void (*case_done)(dsr_reporter *self, const dsr_result *res);
    void (*flush)(dsr_reporter *self);
    bool (*end)(dsr_reporter *self, const dsr_run_state *r, const cJSON *footer, double elapsed);
    void (*destroy)(dsr_reporter *self);
};

/* TAP on OUT (tap.c); VERSION 13 or 14. The version line is written at once. */
dsr_reporter *dsr__tap_reporter(FILE *out, int version);
/* The JSON Lines journal and the consolidated JSON report (report.c). */
dsr_reporter *dsr__journal_reporter(void);
/* The paths of a journal reporter's files once it has begun (NULL before; JSONL NULL when the
 * adapter did not start); *WRITTEN false once a write to either has failed. */
void dsr__journal_paths(const dsr_reporter *journal, const char **report, const char **jsonl,
                        bool *written);
/* JUnit XML at PATH (junit.c); STRICT: an xpass is a failure. */
dsr_reporter *dsr__junit_reporter(const char *path, bool strict);
/* The summary on OUT (summary.c), with the paths of JOURNAL's files. */
dsr_reporter *dsr__summary_reporter(FILE *out, const dsr_reporter *journal);

/* The report's files: the JSON Lines journal written as the run goes, and the path of the
 * consolidated document written at the end. */
typedef struct dsr_report {
    char *report_path;
    char *jsonl_path;
    FILE *jsonl;   /* NULL when it could not be opened */
    cJSON *header; /* the header record (owned) */
    int lock_fd;   /* holds the journal's lock until the run's files are written; -1: none */
    bool busy;     /* another run holds the lock: this run must not start */
    bool failed;   /* a write to the journal failed */
    /* The case records as the journal printed them, without "type", one after another with
     * a NUL after each: the consolidated report lays them out again rather than building and
     * printing each case a second time. Per case reported, in order: its result and where
     * its record starts, or SIZE_MAX where the record is not kept (it holds a raw node, or
     * it gets a reproducer) and is built again. */
    dsr_buf kept;
    const dsr_result **kept_res;
    size_t *kept_at;
    int nkept, cap_kept;
} dsr_report;

/* The header record; ADAPTER_ERROR (may be NULL) says why the adapter did not start. */
cJSON *dsr__report_header(const dsr_run_state *r, const char *adapter_error);
/* The record of one case's result. It borrows RES's strings and values (reference nodes):
 * delete it before RES is freed or changed. */
cJSON *dsr__report_case(const dsr_result *res);
/* The footer record: counts, profile verdicts and the gate, whose exit status goes to *GATE. */
cJSON *dsr__report_footer(const dsr_run_state *r, bool complete, double elapsed, int *gate);
/* reports/runs/LABEL.json, LABEL (NULL: "adapter") reduced to characters safe in a file
 * name (malloc'd): the report's path when --report is not given. */
char *dsr__report_default_path(const char *label);
/* Outputs never destroy inputs: REPORT (REPORT_WHAT names it in messages: "--report"), its
 * journal, JUNIT and TRACE (each may be NULL) onto a file or into a folder of INPUTS
 * (dsr__check_output) or onto each other are refused, each refusal said on stderr: returns
 * DSR_EXIT_USAGE, else 0. */
int dsr__check_run_outputs(const char *report, const char *report_what, const char *junit,
                           const char *trace, const dsr_inputs *inputs);
/* Chooses the paths (--report, or reports/runs/LABEL.json), locks and opens the journal,
 * removes a stale report and writes HEADER to the journal; REP keeps a copy of HEADER. When
 * another run holds the journal's lock, or the default report named after the library's
 * hello is one of the run's inputs (dsr__check_run_outputs), REP->busy is set and nothing is
 * touched. A report
 * path that exists and is not a regular file (/dev/null, a FIFO) gets no journal. Other
 * problems are printed on stderr; the run goes on without the journal. */
void dsr__report_open(dsr_report *rep, const dsr_run_state *r, const cJSON *header);
/* Appends one record to the journal, if open. */
void dsr__report_record(dsr_report *rep, const cJSON *record);
/* Writes FOOTER to the journal and closes it, then writes the consolidated report. Sets
 * *WRITE_FAILED when a file could not be written. */
void dsr__report_finish(dsr_report *rep, const dsr_run_state *r, const cJSON *footer,
                        bool *write_failed);
void dsr__report_free(dsr_report *rep);
/* An output named PATH could not be written: FOOTER's gate, when it says exit 0, says 3 and
 * why, as the process's exit status will. */
void dsr__footer_write_failed(cJSON *footer, const char *path);

/* ---- summary.c ------------------------------------------------------------------- */

/* The summary a person reads at the end of a run (unexpected results with their reasons,
 * profile verdicts, the report paths, the closing counts line) on OUT. REPORT and JSONL
 * are the report's paths (JSONL may be NULL). */
void dsr__summary(FILE *out, const dsr_run_state *r, const cJSON *footer, const char *report,
                  const char *jsonl, double elapsed);

/* ---- coverage.c ------------------------------------------------------------------ */

/* Prints, per profile, every statement of its features and the cases of SUITE that cite
 * it: text, or a JSON array with JSON. The profiles are those named in PROFILES, those
 * marked core with CORE, or all when neither is given. FAIL_UNCOVERED (may be NULL) is a
 * comma-separated list of levels, already checked: returns 1 when a testable statement of
 * a required feature at one of those levels has no case, else 0. */
int dsr__coverage(const dsr_registry *reg, const dsr_suite *suite, char *const *profiles,
                  int nprofiles, bool core, bool json, const char *fail_uncovered);

/* ---- tap.c / junit.c ----------------------------------------------------------- */

typedef struct dsr_tap dsr_tap;
/* VERSION: 13 or 14, the first line's version (tap.c). */
dsr_tap *dsr__tap_open(FILE *out, int version);
void dsr__tap_comment(dsr_tap *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dsr__tap_result(dsr_tap *t, const dsr_result *r);
void dsr__tap_bail(dsr_tap *t, const char *reason);
/* Closes the open subtest, if any, and prints the plan. */
void dsr__tap_close(dsr_tap *t);

/* STRICT: an xpass is a <failure type="xpass"> (it fails the run with --strict). */
int dsr__junit_write(const char *path, const dsr_result *results, int n, const cJSON *header,
                     double total_time, bool strict, char *err, size_t errlen);

/* Escapes S for an XML attribute or text node, dropping what XML 1.0 cannot hold. */
void dsr__xml_escape(dsr_buf *b, const char *s);
/* A YAML double-quoted scalar for S, also safe for TAP's YAMLish reader. */
void dsr__yaml_quote(dsr_buf *b, const char *s);

/* ---- compare.c / compare_html.c / probe.c: the differential matrix (compare_model.h) - */

/* devspec compare (ARGV[0] is "compare"); SOURCE is the default for the spec and the case
 * files. Returns the exit status: 0, 2 (usage, a report that cannot be read), 3 (the page
 * could not be written). */
int dsr__compare_main(int argc, char **argv, const char *source);
/* devspec probe (ARGV[0] is "probe"): runs case files against every named adapter, then
 * compares the reports. Returns the exit status (0, 2, 3). */
int dsr__probe_main(int argc, char **argv, const char *source, const char *build);

/* Writes the self-contained HTML page of a compare model to PATH (atomically, parent
 * folders created). Returns 0, or -1 with errno set. */
int dsr__compare_html_write(const char *path, const cJSON *model);
/* Appends JSON text to B so that it can sit inside a <script> element: '<', '>', '&',
 * U+2028 and U+2029 as \u escapes. */
void dsr__compare_json_for_html(dsr_buf *b, const char *json);
/* The page template, compiled in from compare_page.html; its data goes where the comment
 * <!--DEVSPEC-DATA--> stands. */
extern const char *const dsr__compare_page;
extern const size_t dsr__compare_page_len;

/* ---- repro.c --------------------------------------------------------------------- */

/* devspec repro REPORT.json [--out DIR]: a reproducer for each failing case of a report (a
 * Python script, or a replay file of requests for a C adapter). Returns the exit status. */
int dsr__repro_main(int argc, char **argv, const char *source, const char *build);
/* devspec verdict (ARGV[0] is "verdict"): one library's verdict per profile from the reports
 * of several runs (verdict.c). Returns the exit status: 0, or 2. */
int dsr__verdict_main(int argc, char **argv, const char *source);
/* Adds to each case record of CASES (a report's) whose observed status gets a reproducer its
 * "reproducer": {"command": the devspec repro line for it, "file": where that writes it}. */
void dsr__repro_annotate(cJSON *cases, const cJSON *header, const char *report);
/* Whether a case whose observed status is named OBSERVED gets a reproducer. */
bool dsr__repro_wanted(const char *observed);
/* The summary's line naming the reproducers of R's failures (none when there are none). */
void dsr__repro_summary(FILE *out, const dsr_run_state *r, const char *report);

#endif
