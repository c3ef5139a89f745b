/* The two transports of spec/protocol.md.
 *
 * In process: the adapter is a shared object; each request is a function call. Fast, and
 * what debuggers and sanitizers want, but not isolated: a crash or a hang of the library is
 * a crash or a hang of the run (which is why an in-process run is a child the runner
 * watches, watch.c).
 *
 * Out of process: the adapter is a program, one persistent worker in its own process
 * group. Requests go to its stdin, replies come from its stdout, one JSON object per line;
 * its stderr is drained all the time (so it can never block on a full pipe) and its tail is
 * kept for crash reports. On a timeout the whole process group is killed.
 *
 * The reply is awaited in a blocking read of stdout: two system calls a request, the write
 * and the read, where a poll() on stdout and stderr before the read cost a fifth of a pipe
 * round trip more, on both sides of the pipe. The read must still end when the case's
 * deadline passes, on SIGINT, when a start is given up (dsr__adapter_cancel) and when the
 * worker exited while a process it started holds its stdout (no end of file comes), and
 * stderr must be drained while it waits. So the thread that reads has wake-ups sent to it,
 * as the signal WAKE_SIGNAL (Linux: SIGIO) aimed at that thread alone: from stderr, which
 * signals it whenever the worker writes there (O_ASYNC, F_SETOWN_EX), and from two timers
 * of the thread (SIGEV_THREAD_ID), one at the deadline and one every 200 ms (SIGINT with
 * --jobs N reaches the main thread only, a start is given up from another thread). As
 * every write to stderr signals, stderr is read only when a wake-up came since it was last
 * drained, and a drain ends at its first short read (drain_stderr): no read that finds
 * nothing, where there was one per case and one per wake-up. No
 * thread is added: a second thread would cost every malloc, free and stdio call of the run
 * a lock, more than the poll it saves.
 *
 * The handler is installed with SA_RESTART, so a wake-up that lands on anything else the
 * thread does (a TAP line written to a full stdout pipe, an fsync) is restarted as if
 * nothing happened. Only a read of stdout is cut, and not by the signal itself: while the
 * thread reads stdout it says so in a thread-local variable, and the handler then puts the
 * read end of an empty, closed pipe in place of the stdout descriptor (dup3), so that the
 * read, restarted, ends at once with end of file; the thread puts the real pipe back (kept
 * as out_keep), drains stderr and checks why it was woken. It checks the reasons before
 * each read too, after saying it reads, so a wake-up just before the read is not lost. A
 * request that does not go out in one write (a full stdin pipe), a system without these
 * calls, or a ThreadSanitizer build (see DSR_TSAN), goes through the poll loop, which
 * multiplexes the three pipes against the deadline itself.
 *
 * Each worker has a keeper: a small process forked from the runner that holds the read end
 * of a pipe only the runner writes to. When the runner dies in any way (SIGKILL, the OOM
 * killer), the pipe reads as end of file and the keeper kills the worker's whole process
 * group, so children of the worker (an `--adapter-cmd` shell's commands) die with it; the
 * kernel's parent-death signal reaches only the worker itself. When the runner stops a
 * worker itself, it releases the keeper first with one byte. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* syscall */
#define _GNU_SOURCE     /* dup3, pipe2 */
#include "devspec.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPLY_LINE DSR_PROTOCOL_MAX_REPLY
#define STDERR_TAIL 4096
/* The lines of stderr that say why a library stopped (see WHY_MARKERS), kept apart from the
 * tail: a long stack trace pushes them out of the last 4 KiB. The last WHY_LINES of them,
 * each cut at WHY_LINE bytes. */
#define WHY_LINES 3
#define WHY_LINE 400

_Atomic int dsr__interrupted; /* atomic: read by the worker threads of --jobs N */

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

typedef const char *(*call_fn)(const char *request, size_t len, size_t *reply_len);
typedef void (*free_fn)(const char *reply);

struct dsr_adapter {
    _Atomic int cancelled; /* dsr__adapter_cancel: the request in flight is given up */
    bool inproc;
    void *dl;
    call_fn call;
    free_fn release;

    char **argv;
    char **env_add;
    pid_t pid;
    pid_t keeper; /* the worker's keeper (see the top of this file), -1 when none */
    int lifeline; /* the write end of the keeper's pipe, -1 when none */
    int in_fd, out_fd, err_fd;
    dsr_buf wbuf;   /* the request being written, its newline added (kept from call to call) */
    dsr_buf rbuf;   /* bytes read from stdout and not yet returned */
    size_t scanned; /* rbuf[0..scanned) holds no '\n' */
    char ring[STDERR_TAIL];
    size_t ring_len;         /* total bytes written into the ring since the last clear */
    char *tail;              /* linearised copy handed out by dsr__adapter_stderr */
    char line[WHY_LINE + 1]; /* the stderr line being read (cut at WHY_LINE bytes) */
    size_t line_len;
    char why[WHY_LINES][WHY_LINE + 1]; /* the last lines that say why, oldest first */
    int nwhy;
    char death[160];
    int death_signal; /* the signal that killed the worker, 0 for none (describe_status) */

    /* The wake-ups of a blocking read (see the top of this file). */
    bool blocking;                 /* out_fd is blocking, out_keep holds the pipe */
    int out_keep;                  /* the stdout pipe itself, put back after a wake-up */
    volatile sig_atomic_t swapped; /* the wake-up handler replaced out_fd */
    pid_t owner;                   /* the thread the wake-ups go to (0: none set up) */
    bool err_async;                /* err_fd signals the owner */
    unsigned drained_wakes;        /* the owner's wake-up count when stderr was last drained */
    timer_t tick, alarm;           /* the owner's 200 ms tick and deadline */
    double armed;                  /* the deadline the alarm is set for (0: none) */
};

dsr_adapter *dsr__adapter_open_so(const char *path, char *err, size_t errlen)
{
    /* dlopen searches the library path for a bare name; a path with a slash is a file. */
    dsr_buf p = {0};
    if (!strchr(path, '/'))
        dsr__buf_printf(&p, "./%s", path);
    else
        dsr__buf_puts(&p, path);
    void *dl = dlopen(p.data, RTLD_NOW | RTLD_LOCAL);
    dsr__buf_free(&p);
    if (!dl) {
        snprintf(err, errlen, "cannot load %s: %s", path, dlerror());
        return NULL;
    }
    call_fn call;
    free_fn release;
    /* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
    *(void **)&call = dlsym(dl, "devspec_adapter_call");
    *(void **)&release = dlsym(dl, "devspec_adapter_free");
    if (!call || !release) {
        snprintf(err, errlen, "%s does not export devspec_adapter_call and devspec_adapter_free",
                 path);
        dlclose(dl);
        return NULL;
    }
    dsr_adapter *a = dsr__xmalloc(sizeof *a);
    memset(a, 0, sizeof *a);
    a->inproc = true;
    a->out_keep = -1;
    a->dl = dl;
    a->call = call;
    a->release = release;
    a->pid = -1;
    return a;
}

static char **copy_list(char *const *l)
{
    int n = 0;
    while (l && l[n])
        n++;
    char **out = dsr__xmalloc(sizeof(char *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        out[i] = dsr__xstrdup(l[i]);
    out[n] = NULL;
    return out;
}

static void free_list(char **l)
{
    for (int i = 0; l && l[i]; i++)
        free(l[i]);
    free(l);
}

dsr_adapter *dsr__adapter_clone(const dsr_adapter *a)
{
    return a->inproc ? NULL : dsr__adapter_open_cmd(a->argv, a->env_add);
}

dsr_adapter *dsr__adapter_open_cmd(char *const *argv, char *const *env_add)
{
    dsr_adapter *a = dsr__xmalloc(sizeof *a);
    memset(a, 0, sizeof *a);
    a->argv = copy_list(argv);
    a->env_add = copy_list(env_add);
    a->pid = -1;
    a->keeper = -1;
    a->lifeline = -1;
    a->in_fd = a->out_fd = a->err_fd = -1;
    a->out_keep = -1;
    return a;
}

bool dsr__adapter_in_process(const dsr_adapter *a)
{
    return a->inproc;
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* What libraries print on the line that says why they stop: a failed check (glog's "Check
 * failed", assert's "Assertion"), an error or exception named (Python's last traceback line
 * "ValueError: ...", C++'s "what():"), a fatal log line or a panic. */
static const char *const WHY_MARKERS[] = {
    "Check failed", "Assertion", "assert",           "Error",   "error:",
    "ERROR",        "Exception", "exception",        "FATAL",   "Fatal",
    "fatal",        "panic",     "terminate called", "what():", "Segmentation fault",
    "Aborted",
};

/* A frame of a stack trace (glog's "    @ 0x...", a backtrace's "#3 0x...", Python's
 * "  File ...", Java's "at ..."): it names functions, some of them "...Fatal...", never why. */
static bool is_frame(const char *line)
{
    line += strspn(line, " \t");
    return line[0] == '@' || line[0] == '#' || !strncmp(line, "0x", 2) ||
           !strncmp(line, "File \"", 6) || !strncmp(line, "at ", 3);
}

static bool says_why(const char *line)
{
    if (is_frame(line)) return false;
    for (size_t i = 0; i < sizeof WHY_MARKERS / sizeof *WHY_MARKERS; i++)
        if (strstr(line, WHY_MARKERS[i])) return true;
    return false;
}

/* The line just read ends: kept when it says why, the oldest kept line dropped. */
static void line_end(dsr_adapter *a)
{
    a->line[a->line_len] = '\0';
    if (a->line_len && says_why(a->line)) {
        if (a->nwhy == WHY_LINES) {
            memmove(a->why[0], a->why[1], sizeof a->why[0] * (WHY_LINES - 1));
            a->nwhy--;
        }
        memcpy(a->why[a->nwhy++], a->line, a->line_len + 1);
    }
    a->line_len = 0;
}

static void ring_add(dsr_adapter *a, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        a->ring[(a->ring_len + i) % STDERR_TAIL] = s[i];
        if (s[i] == '\n')
            line_end(a);
        else if (a->line_len < WHY_LINE)
            a->line[a->line_len++] = s[i];
    }
    a->ring_len += n;
}

static bool err_signals_here(const dsr_adapter *a);
static unsigned wakes_now(void);

/* Reads what stderr holds. When stderr signals this thread (the blocking read's scheme, see
 * the top of this file), a read shorter than the chunk emptied the pipe, and anything
 * written after it wakes the thread, which the wake-up count records: so the drain ends
 * there, and stderr_quiet spares the next drain when no wake-up came since, instead of a
 * read that finds nothing (one per case and one per wake-up before). */
static void drain_stderr(dsr_adapter *a)
{
    char chunk[4096];
    bool signalled = err_signals_here(a);
    if (signalled) a->drained_wakes = wakes_now(); /* before the read: one during it counts */
    while (a->err_fd >= 0) {
        ssize_t r = read(a->err_fd, chunk, sizeof chunk);
        if (r > 0) {
            ring_add(a, chunk, (size_t)r);
            if (signalled && (size_t)r < sizeof chunk) break;
            continue;
        }
        if (r == 0)
            close_fd(&a->err_fd);
        else if (errno == EINTR)
            continue;
        else if (errno != EAGAIN && errno != EWOULDBLOCK)
            close_fd(&a->err_fd);
        break;
    }
}

/* ---- the wake-ups of a blocking read (see the top of this file) ---------------- */

/* ThreadSanitizer runs a signal's handler only once the thread is in a call it knows to
 * block, and read() is not one: the restarted read would never see its wake-up. Its build
 * keeps the poll loop (no thread is added here, so it has nothing to check in this path). */
#if defined(__SANITIZE_THREAD__)
#define DSR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DSR_TSAN 1
#endif
#endif

#if defined(__linux__) && !defined(DSR_TSAN)
static void set_blocking(int fd, bool blocking)
{
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, blocking ? fl & ~O_NONBLOCK : fl | O_NONBLOCK);
}

#define WAKE_SIGNAL SIGIO /* not a real-time signal: a burst of stderr writes cannot queue up */
#define WAKE_TICK_NS 200000000L

/* Read by the handler: initial-exec, so that it allocates nothing. */
#define HANDLER_TLS __attribute__((tls_model("initial-exec")))
static _Thread_local dsr_adapter *volatile reading HANDLER_TLS; /* whose stdout it reads */
static _Thread_local volatile sig_atomic_t woken HANDLER_TLS;   /* since it last looked */
static _Thread_local volatile sig_atomic_t wakes HANDLER_TLS;   /* wake-ups, counted */
static _Thread_local pid_t my_tid;

static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static bool wake_ready; /* the handler is installed and eof_fd open */
static int eof_fd = -1; /* the read end of a pipe whose write end is closed */

static void wake_handler(int sig)
{
    (void)sig;
    woken = 1;
    wakes = wakes + 1; /* the handler alone writes it, and SIGIO waits while it runs */
    dsr_adapter *a = reading;
    if (!a || a->swapped) return;
    int saved = errno;
    if (dup3(eof_fd, a->out_fd, O_CLOEXEC) >= 0) a->swapped = 1;
    errno = saved;
}

static void wake_setup(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    close(p[1]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = wake_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* every other call of the thread goes on as if not woken */
    if (sigaction(WAKE_SIGNAL, &sa, NULL) != 0) {
        close(p[0]);
        return;
    }
    eof_fd = p[0];
    wake_ready = true;
}

/* The owner's timers and stderr's signal are given up (the worker is stopping). */
static void wake_off(dsr_adapter *a)
{
    if (a->owner) {
        timer_delete(a->tick);
        timer_delete(a->alarm);
    }
    a->owner = 0;
    a->err_async = false;
    if (a->swapped) {
        dup3(a->out_keep, a->out_fd, O_CLOEXEC);
        a->swapped = 0;
    }
    close_fd(&a->out_keep);
    if (a->blocking && a->out_fd >= 0) set_blocking(a->out_fd, false);
    a->blocking = false;
}

/* After a start: stdout made blocking, its pipe kept apart. */
static void wake_on(dsr_adapter *a)
{
    pthread_once(&wake_once, wake_setup);
    if (!wake_ready) return;
    a->out_keep = fcntl(a->out_fd, F_DUPFD_CLOEXEC, 0);
    if (a->out_keep < 0) return;
    a->swapped = 0;
    a->blocking = true;
    set_blocking(a->out_fd, true);
}

/* Whether this thread's wake-ups are set up for A (the thread that reads may change: with
 * --jobs N the first worker is started by the main thread and run by another). */
static bool wake_ready_for(dsr_adapter *a)
{
    if (!a->blocking) return false;
    if (!my_tid) my_tid = (pid_t)syscall(SYS_gettid);
    if (a->owner != my_tid) {
        if (a->owner) {
            timer_delete(a->tick);
            timer_delete(a->alarm);
            a->owner = 0;
        }
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = WAKE_SIGNAL;
        ev._sigev_un._tid = my_tid;
        if (timer_create(CLOCK_MONOTONIC, &ev, &a->tick) != 0) return false;
        if (timer_create(CLOCK_MONOTONIC, &ev, &a->alarm) != 0) {
            timer_delete(a->tick);
            return false;
        }
        struct itimerspec every = {{0, WAKE_TICK_NS}, {0, WAKE_TICK_NS}};
        timer_settime(a->tick, 0, &every, NULL);
        a->owner = my_tid;
        a->armed = 0;
        a->err_async = false;
    }
    if (!a->err_async && a->err_fd >= 0) {
        struct f_owner_ex to = {F_OWNER_TID, my_tid};
        if (fcntl(a->err_fd, F_SETOWN_EX, &to) != 0 ||
            fcntl(a->err_fd, F_SETFL, fcntl(a->err_fd, F_GETFL) | O_ASYNC) != 0)
            return false;
        a->err_async = true;
        drain_stderr(a); /* what came before the signal was set up */
    }
    return true;
}

/* Whether A's stderr signals this thread on every write (the thread's wake-up count then
 * says whether anything came since A's last drain). */
static bool err_signals_here(const dsr_adapter *a)
{
    return a->err_async && a->owner == my_tid && a->err_fd >= 0;
}

/* This thread's wake-ups so far. */
static unsigned wakes_now(void)
{
    return (unsigned)wakes;
}

/* The alarm by DEADLINE (<= 0: none). It is set again only when it would ring after the
 * deadline, or has rung: the next case's later deadline keeps the earlier alarm, whose
 * wake-up finds nothing due and sets it then (a system call every --timeout seconds, not
 * every case). Without a deadline an alarm left set only wakes the thread for nothing. */
static void wake_at(dsr_adapter *a, double deadline, double now)
{
    if (deadline <= 0 || (a->armed > 0 && a->armed <= deadline && a->armed > now)) return;
    double t = deadline + 1e-6; /* never a hair before the deadline dsr__now() sees */
    struct itimerspec at;
    memset(&at, 0, sizeof at);
    at.it_value.tv_sec = (time_t)t;
    at.it_value.tv_nsec = (long)((t - (double)at.it_value.tv_sec) * 1e9);
    timer_settime(a->alarm, TIMER_ABSTIME, &at, NULL);
    a->armed = deadline;
}

static bool take_woken(void)
{
    if (!woken) return false;
    woken = 0;
    return true;
}

static void mark_woken(void)
{
    woken = 1;
}

static int replace_fd(int from, int to)
{
    return dup3(from, to, O_CLOEXEC) < 0 ? -1 : 0;
}
#else /* the poll loop only */
static dsr_adapter *reading;
static void wake_off(dsr_adapter *a)
{
    (void)a;
}
static void wake_on(dsr_adapter *a)
{
    (void)a;
}
static bool wake_ready_for(dsr_adapter *a)
{
    (void)a;
    return false;
}
static void wake_at(dsr_adapter *a, double deadline, double now)
{
    (void)a;
    (void)deadline;
    (void)now;
}
static bool take_woken(void)
{
    return false;
}
static void mark_woken(void) {}
static bool err_signals_here(const dsr_adapter *a)
{
    (void)a;
    return false;
}
static unsigned wakes_now(void)
{
    return 0;
}
static int replace_fd(int from, int to)
{
    return dup2(from, to) < 0 ? -1 : 0;
}
#endif

static void describe_status(dsr_adapter *a, int status)
{
    a->death_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *name = sig == SIGSEGV   ? "SIGSEGV"
                           : sig == SIGABRT ? "SIGABRT"
                           : sig == SIGKILL ? "SIGKILL"
                           : sig == SIGBUS  ? "SIGBUS"
                           : sig == SIGFPE  ? "SIGFPE"
                           : sig == SIGILL  ? "SIGILL"
                           : sig == SIGTERM ? "SIGTERM"
                           : sig == SIGHUP  ? "SIGHUP"
                                            : "signal";
        snprintf(a->death, sizeof a->death, "killed by signal %d (%s)", sig, name);
    } else if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        /* A shell between the runner and the adapter (--adapter-cmd) reports a signal
         * death of its child as 128+N. */
        if (code > 128 && code < 128 + 65)
            snprintf(a->death, sizeof a->death,
                     "exited with status %d (a shell's report of signal %d?)", code, code - 128);
        else
            snprintf(a->death, sizeof a->death, "exited with status %d", code);
    }
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Tells the keeper that the runner has dealt with the group itself, and reaps it. */
static void release_keeper(dsr_adapter *a)
{
    if (a->lifeline >= 0) {
        ssize_t w;
        while ((w = write(a->lifeline, "x", 1)) < 0 && errno == EINTR)
            ;
        (void)w; /* a keeper already gone has nothing left to release */
        close_fd(&a->lifeline);
    }
    if (a->keeper > 0)
        while (waitpid(a->keeper, NULL, 0) < 0 && errno == EINTR)
            ;
    a->keeper = -1;
}

/* The keeper's whole life, in a child forked from a threaded process: only
 * async-signal-safe calls. Every descriptor but the lifeline is closed (another worker's
 * pipe held here would never read as end of file, another keeper's lifeline never close);
 * signals meant for the runner's terminal are ignored, so that the keeper outlives the
 * runner's orderly stop and sees how it ended. */
static _Noreturn void keeper_main(int lifeline, pid_t group)
{
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        sigaction(ignored[i], &ign, NULL);
    if (lifeline != 0) {
        dup2(lifeline, 0);
        close(lifeline);
    }
    bool closed = false;
#if defined(__linux__) && defined(SYS_close_range)
    closed = syscall(SYS_close_range, 1u, ~0u, 0u) == 0;
#endif
    if (!closed) {
        long max = sysconf(_SC_OPEN_MAX);
        if (max < 0 || max > 65536) max = 65536;
        for (int fd = 1; fd < max; fd++)
            close(fd);
    }
    char c;
    ssize_t n;
    while ((n = read(0, &c, 1)) < 0 && errno == EINTR)
        ;
    if (n == 0) kill(-group, SIGKILL); /* the runner is gone without a word */
    _exit(0);
}

/* Starts the keeper of the worker whose process group is GROUP; a failure leaves the
 * worker without one (the parent-death signal still reaches the worker itself). Called
 * under start_lock. */
static void start_keeper(dsr_adapter *a, pid_t group)
{
    int lp[2];
    if (pipe(lp) != 0) return;
    fcntl(lp[0], F_SETFD, FD_CLOEXEC);
    fcntl(lp[1], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) keeper_main(lp[0], group);
    close(lp[0]);
    if (pid < 0) {
        close(lp[1]);
        return;
    }
    a->keeper = pid;
    a->lifeline = lp[1];
}

/* Reaps the worker, waiting up to GRACE seconds before killing its process group. */
static void reap(dsr_adapter *a, double grace)
{
    if (a->pid <= 0) return;
    double until = dsr__now() + grace;
    int status = 0;
    pid_t r;
    for (;;) {
        r = waitpid(a->pid, &status, WNOHANG);
        if (r == a->pid || (r < 0 && errno != EINTR)) break;
        if (dsr__now() >= until) {
            kill(-a->pid, SIGKILL);
            while ((r = waitpid(a->pid, &status, 0)) < 0 && errno == EINTR)
                ;
            /* Our SIGKILL, not the out-of-memory killer's: say so (a library that is slow to
             * shut down, such as one that joins its thread pools at exit). */
            if (r == a->pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
                snprintf(a->death, sizeof a->death,
                         "did not exit within %.3g s once its output closed or it was told to "
                         "stop, so devspec killed it (SIGKILL; not the out-of-memory killer)",
                         grace);
                r = 0; /* described */
            }
            break;
        }
        drain_stderr(a);
        sleep_ms(2);
    }
    if (r == a->pid) describe_status(a, status);
    /* Anything the worker left behind in its group goes with it. */
    kill(-a->pid, SIGKILL);
    a->pid = -1;
    release_keeper(a);
}

static void shut(dsr_adapter *a, double grace)
{
    wake_off(a);
    close_fd(&a->in_fd);
    if (a->pid > 0) reap(a, grace);
    drain_stderr(a);
    close_fd(&a->out_fd);
    close_fd(&a->err_fd);
    a->rbuf.len = 0;
    a->scanned = 0;
}

/* Closes both ends of the first N pipes of P. */
static void close_pipes(int p[][2], int n)
{
    for (int i = 0; i < n; i++) {
        close(p[i][0]);
        close(p[i][1]);
    }
}

int dsr__adapter_start(dsr_adapter *a, char *err, size_t errlen)
{
    if (a->inproc) return 0;
    shut(a, 0);
    enum { IN, OUT, ERR }; /* the worker's stdin, stdout and stderr */
    int p[3][2];
    /* With --jobs N several threads start workers: every pipe is close-on-exec (dup2 in the
     * child clears the flag on 0, 1 and 2), and pipe, fcntl and fork happen under one lock,
     * so no worker inherits another's pipes (a dead worker's stdout must read as EOF). */
    pthread_mutex_lock(&start_lock);
    for (int i = 0; i < 3; i++) {
        if (pipe(p[i]) != 0) {
            snprintf(err, errlen, "cannot start the adapter: pipe: %s", dsr__strerror(errno));
            close_pipes(p, i);
            pthread_mutex_unlock(&start_lock);
            return -1;
        }
        fcntl(p[i][0], F_SETFD, FD_CLOEXEC);
        fcntl(p[i][1], F_SETFD, FD_CLOEXEC);
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start the adapter: fork: %s", dsr__strerror(errno));
        close_pipes(p, 3);
        pthread_mutex_unlock(&start_lock);
        return -1;
    }
    if (pid == 0) {
        /* Child: its own process group, so a timeout can kill it and its children. */
        setpgid(0, 0);
#ifdef __linux__
        /* A runner killed outright (SIGKILL, the OOM killer) cannot kill its worker: the
         * kernel does, and the setting survives the exec below. A runner already gone
         * before the call leaves the worker to init: it stops at once. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
#endif
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        dup2(p[IN][0], 0);
        dup2(p[OUT][1], 1);
        dup2(p[ERR][1], 2);
        close_pipes(p, 3);
        for (char **e = a->env_add; e && *e; e++) {
            char *eq = strchr(*e, '='); /* the child's own copy: safe to cut */
            if (eq) {
                *eq = '\0';
                setenv(*e, eq + 1, 1);
            }
        }
        execvp(a->argv[0], a->argv);
        dprintf(2, "devspec: cannot execute %s: %s\n", a->argv[0], dsr__strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also from the parent: no race with the first kill */
    close(p[IN][0]);
    close(p[OUT][1]);
    close(p[ERR][1]);
    start_keeper(a, pid);
    pthread_mutex_unlock(&start_lock);
    a->pid = pid;
    a->in_fd = p[IN][1];
    a->out_fd = p[OUT][0];
    a->err_fd = p[ERR][0];
    set_nonblock(a->in_fd);
    set_nonblock(a->out_fd);
    set_nonblock(a->err_fd);
    a->death[0] = '\0';
    a->death_signal = 0;
    wake_on(a);
    return 0;
}

/* Takes a complete line out of the read buffer, if there is one. */
static bool take_line(dsr_adapter *a, char **reply, size_t *reply_len)
{
    if (a->rbuf.len == 0) return false;
    char *nl = memchr(a->rbuf.data + a->scanned, '\n', a->rbuf.len - a->scanned);
    if (!nl) {
        a->scanned = a->rbuf.len;
        return false;
    }
    /* The buffer itself becomes the line (a reply may be 64 MiB: no copy of it is made);
     * what follows the newline goes to a new buffer. */
    size_t n = (size_t)(nl - a->rbuf.data);
    size_t rest = a->rbuf.len - (n + 1);
    char *line = a->rbuf.data;
    dsr_buf next = {0};
    if (rest) dsr__buf_add(&next, nl + 1, rest);
    a->rbuf = next;
    line[n] = '\0';
    if (n > 0 && line[n - 1] == '\r') line[--n] = '\0';
    a->scanned = 0;
    *reply = line;
    *reply_len = n;
    return true;
}

static dsr_io dead(dsr_adapter *a)
{
    /* stdout closed: collect the rest of stderr and the exit status. */
    wake_off(a);
    close_fd(&a->in_fd);
    double until = dsr__now() + 1.0;
    while (a->err_fd >= 0 && dsr__now() < until) {
        struct pollfd p = {a->err_fd, POLLIN, 0};
        poll(&p, 1, 50);
        drain_stderr(a);
    }
    reap(a, 1.0);
    if (!a->death[0]) snprintf(a->death, sizeof a->death, "closed its stdout");
    if (a->rbuf.len > 0) {
        size_t n = strlen(a->death);
        snprintf(a->death + n, sizeof a->death - n, " after a partial line of %zu bytes",
                 a->rbuf.len);
    }
    shut(a, 0);
    return DSR_IO_DEAD;
}

/* Whether the worker has exited (it stays to be reaped, so that its status is described). */
static bool worker_exited(dsr_adapter *a)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return a->pid > 0 && waitid(P_PID, (id_t)a->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == a->pid;
}

/* Reads what stdout holds now, without waiting (it may be blocking: each read only once
 * poll says it will not wait); true when it reached end of file. */
static bool drain_stdout(dsr_adapter *a)
{
    for (;;) {
        char chunk[65536];
        struct pollfd p = {a->out_fd, POLLIN, 0};
        int r = poll(&p, 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        ssize_t n = read(a->out_fd, chunk, sizeof chunk);
        if (n > 0 && a->rbuf.len <= MAX_REPLY_LINE + 2) {
            dsr__buf_add(&a->rbuf, chunk, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n == 0;
    }
}

static dsr_io call_inproc(dsr_adapter *a, const char *req, size_t len, char **reply,
                          size_t *reply_len)
{
    size_t n = 0;
    const char *r = a->call(req, len, &n);
    if (!r) {
        snprintf(a->death, sizeof a->death, "devspec_adapter_call returned NULL");
        return DSR_IO_DEAD;
    }
    char *copy = dsr__xmalloc(n + 1);
    memcpy(copy, r, n);
    copy[n] = '\0';
    a->release(r);
    *reply = copy;
    *reply_len = n;
    return dsr__interrupted ? DSR_IO_INTERRUPTED : DSR_IO_OK;
}

/* The line in the read buffer, if there is one: DSR_IO_OK or DSR_IO_TOO_LONG, or -1. */
static int line_result(dsr_adapter *a, char **reply, size_t *reply_len)
{
    if (!a->rbuf.len || !take_line(a, reply, reply_len)) return -1;
    if (*reply_len <= MAX_REPLY_LINE) return DSR_IO_OK;
    free(*reply);
    *reply = NULL;
    return DSR_IO_TOO_LONG;
}

/* The worker exited, but a process it started still holds its stdout, so no end of file
 * comes: what it wrote is read, and then it is dead, as after end of file (it was a timeout,
 * and without --timeout the run waited for ever). */
static dsr_io exited(dsr_adapter *a, char **reply, size_t *reply_len)
{
    bool eof = drain_stdout(a);
    int line = line_result(a, reply, reply_len);
    if (line >= 0) return (dsr_io)line;
    dsr_io result = dead(a);
    size_t n = strlen(a->death);
    if (!eof)
        snprintf(a->death + n, sizeof a->death - n,
                 "; a process it started still held its stdout (killed with its group)");
    return result;
}

/* The wait for the reply of a request already written, in a blocking read of stdout that
 * wake-ups interrupt (see the top of this file). */
static dsr_io wait_reply(dsr_adapter *a, double deadline, char **reply, size_t *reply_len)
{
    for (;;) {
        int line = line_result(a, reply, reply_len);
        if (line >= 0) return (dsr_io)line;
        if (a->rbuf.len > MAX_REPLY_LINE) return DSR_IO_TOO_LONG;
        /* Reading from here on: a wake-up ends the read below at once. */
        reading = a;
        atomic_signal_fence(memory_order_seq_cst);
        bool gone = false;
        if (take_woken()) {
            drain_stderr(a);
            gone = worker_exited(a);
        }
        dsr_io stop = DSR_IO_OK;
        double now = deadline > 0 ? dsr__now() : 0;
        if (dsr__interrupted || a->cancelled)
            stop = DSR_IO_INTERRUPTED;
        else if (deadline > 0 && now >= deadline)
            stop = DSR_IO_TIMEOUT;
        else
            wake_at(a, deadline, now);
        char chunk[65536];
        ssize_t n = gone || stop != DSR_IO_OK ? -1 : read(a->out_fd, chunk, sizeof chunk);
        int saved = errno;
        reading = NULL;
        atomic_signal_fence(memory_order_seq_cst);
        if (a->swapped) { /* woken: the real pipe back, and the reasons checked again */
            replace_fd(a->out_keep, a->out_fd);
            a->swapped = 0;
            mark_woken(); /* the mark may have been taken just before this wake-up came */
            if (n == 0) continue;
        }
        if (stop != DSR_IO_OK) return stop;
        if (gone) return exited(a, reply, reply_len);
        if (n > 0) {
            dsr__buf_add(&a->rbuf, chunk, (size_t)n);
            continue;
        }
        if (n < 0 && saved == EINTR) continue; /* SIGINT: checked above */
        return dead(a);                        /* end of file */
    }
}

/* Long: the poll loop of one request: the write, the reply's read to its newline, stderr
 * drained, the deadline and SIGINT, in one place so that no path skips one of them. A
 * request written at once waits for its reply in wait_reply instead. AHEAD (may be NULL) is
 * a second request written after REQ in the same write (dsr__adapter_call_ahead); REQ NULL
 * writes nothing and waits for the reply of the request written ahead. */
static dsr_io call_lines(dsr_adapter *a, const char *req, size_t len, const char *ahead,
                         size_t ahead_len, double deadline, char **reply, size_t *reply_len)
{
    *reply = NULL;
    *reply_len = 0;
    if (a->inproc) return call_inproc(a, req, len, reply, reply_len);
    if (a->pid <= 0 || a->out_fd < 0) return dead(a);

    /* The request and its newline go out in one write where the pipe allows. */
    dsr_buf *out = &a->wbuf;
    out->len = 0;
    if (req) {
        dsr__buf_add(out, req, len);
        dsr__buf_add(out, "\n", 1);
    }
    if (ahead) {
        dsr__buf_add(out, ahead, ahead_len);
        dsr__buf_add(out, "\n", 1);
    }
    size_t sent = 0;
    dsr_io result;
    if (a->in_fd >= 0 && wake_ready_for(a)) {
        ssize_t w = out->len ? write(a->in_fd, out->data, out->len) : 0;
        if (w > 0) sent = (size_t)w;
        if (sent == out->len) {
            result = wait_reply(a, deadline, reply, reply_len);
            if (a->wbuf.cap > 65536) dsr__buf_free(&a->wbuf);
            return result;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR) close_fd(&a->in_fd); /* gone */
    }
    for (;;) {
        if (sent < out->len && a->in_fd >= 0) {
            ssize_t w = write(a->in_fd, out->data + sent, out->len - sent);
            if (w > 0)
                sent += (size_t)w;
            else if (w < 0 && errno == EPIPE)
                close_fd(&a->in_fd); /* it is gone; its stdout will say so */
            else if (w < 0 && errno != EAGAIN && errno != EINTR)
                close_fd(&a->in_fd);
        }
        if (a->rbuf.len && take_line(a, reply, reply_len)) {
            result = *reply_len > MAX_REPLY_LINE ? DSR_IO_TOO_LONG : DSR_IO_OK;
            if (result != DSR_IO_OK) free(*reply);
            break;
        }
        struct pollfd p[3];
        int np = 0;
        p[np++] = (struct pollfd){a->out_fd, POLLIN, 0};
        int errp = -1;
        if (a->err_fd >= 0) {
            errp = np;
            p[np++] = (struct pollfd){a->err_fd, POLLIN, 0};
        }
        if (sent < out->len && a->in_fd >= 0) p[np++] = (struct pollfd){a->in_fd, POLLOUT, 0};
        int wait_ms = -1;
        if (deadline > 0) {
            double left = deadline - dsr__now();
            if (left <= 0) {
                result = DSR_IO_TIMEOUT;
                break;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        /* Woken at least every 200 ms: with --jobs N the SIGINT that sets dsr__interrupted
         * interrupts one thread's poll only. */
        if (wait_ms < 0 || wait_ms > 200) wait_ms = 200;
        int r = poll(p, (nfds_t)np, wait_ms);
        if (dsr__interrupted || a->cancelled) {
            result = DSR_IO_INTERRUPTED;
            break;
        }
        if (r < 0) {
            if (errno == EINTR) continue;
            result = dead(a);
            break;
        }
        /* stderr only when poll says it has something: a read that finds nothing was one
         * system call in four per request, out of process) */
        if (errp >= 0 && p[errp].revents) drain_stderr(a);
        if (p[0].revents) {
            bool eof = false;
            for (;;) {
                char chunk[65536];
                ssize_t n = read(a->out_fd, chunk, sizeof chunk);
                if (n > 0) {
                    dsr__buf_add(&a->rbuf, chunk, (size_t)n);
                    /* stop reading a line that is already too long: memory stays bounded;
                     * a blocking stdout is read once per poll */
                    if ((size_t)n < sizeof chunk || a->rbuf.len > MAX_REPLY_LINE + 2 || a->blocking)
                        break;
                    continue;
                }
                if (n == 0)
                    eof = true;
                else if (errno == EINTR)
                    continue;
                else if (errno != EAGAIN && errno != EWOULDBLOCK)
                    eof = true;
                break;
            }
            /* The limit holds however the line arrived: in one read or in many. */
            if (take_line(a, reply, reply_len)) {
                result = *reply_len > MAX_REPLY_LINE ? DSR_IO_TOO_LONG : DSR_IO_OK;
                if (result != DSR_IO_OK) free(*reply);
                break;
            }
            if (a->rbuf.len > MAX_REPLY_LINE) {
                result = DSR_IO_TOO_LONG;
                break;
            }
            if (eof) {
                result = dead(a);
                break;
            }
        }
        if (worker_exited(a)) {
            result = exited(a, reply, reply_len);
            break;
        }
    }
    /* A long request's buffer is not kept for the rest of the run */
    if (a->wbuf.cap > 65536) dsr__buf_free(&a->wbuf);
    return result;
}

dsr_io dsr__adapter_call(dsr_adapter *a, const char *req, size_t len, double deadline, char **reply,
                         size_t *reply_len)
{
    return call_lines(a, req, len, NULL, 0, deadline, reply, reply_len);
}

bool dsr__adapter_ahead_fits(const dsr_adapter *a, size_t len, size_t ahead_len)
{
    /* At most PIPE_BUF bytes in all: the write is then whole or nothing (POSIX), into a pipe
     * the adapter has emptied, so no reply can come before both requests are written. */
    return !a->inproc && len + ahead_len + 2 <= PIPE_BUF;
}

dsr_io dsr__adapter_call_ahead(dsr_adapter *a, const char *req, size_t len, const char *ahead,
                               size_t ahead_len, double deadline, char **reply, size_t *reply_len)
{
    return call_lines(a, req, len, ahead, ahead_len, deadline, reply, reply_len);
}

void dsr__adapter_cancel(dsr_adapter *a)
{
    a->cancelled = 1;
}

void dsr__adapter_kill(dsr_adapter *a)
{
    if (a->inproc || a->pid <= 0) return;
    kill(-a->pid, SIGKILL);
    shut(a, 5.0);
}

void dsr__adapter_stop(dsr_adapter *a, double grace)
{
    if (!a->inproc) shut(a, grace);
}

void dsr__adapter_destroy(dsr_adapter *a)
{
    if (!a) return;
    if (a->inproc) {
        /* The shared object stays loaded until the process exits: a library may have
         * registered exit handlers or thread-local destructors that would run into
         * unmapped code, and leak reports could no longer name its frames. */
        a->dl = NULL;
    } else {
        shut(a, 0);
        free_list(a->argv);
        free_list(a->env_add);
    }
    dsr__buf_free(&a->rbuf);
    dsr__buf_free(&a->wbuf);
    free(a->tail);
    free(a);
}

const char *dsr__adapter_death(const dsr_adapter *a)
{
    return a->death;
}

int dsr__adapter_death_signal(const dsr_adapter *a)
{
    return a->death_signal;
}

const char *dsr__adapter_why(dsr_adapter *a)
{
    if (!a->inproc && a->err_fd >= 0) drain_stderr(a);
    a->line[a->line_len] = '\0';
    if (a->line_len && says_why(a->line)) line_end(a); /* the last line, unended */
    return a->nwhy ? a->why[a->nwhy - 1] : NULL;
}

const char *dsr__adapter_stderr(dsr_adapter *a)
{
    if (!a->inproc && a->err_fd >= 0) drain_stderr(a);
    size_t n = a->ring_len < STDERR_TAIL ? a->ring_len : STDERR_TAIL;
    size_t start = a->ring_len < STDERR_TAIL ? 0 : a->ring_len % STDERR_TAIL;
    free(a->tail);
    /* The lines that say why and fell out of the tail come first, marked as such. */
    dsr_buf b = {0};
    if (a->ring_len > STDERR_TAIL) {
        for (int i = 0; i < a->nwhy; i++) {
            if (!b.len) dsr__buf_puts(&b, "[earlier lines that say why]\n");
            dsr__buf_printf(&b, "%s\n", a->why[i]);
        }
        if (b.len) dsr__buf_puts(&b, "[the last lines]\n");
    }
    size_t head = b.len;
    a->tail = dsr__xmalloc(head + n + 1);
    if (head) memcpy(a->tail, b.data, head);
    dsr__buf_free(&b);
    for (size_t i = 0; i < n; i++)
        a->tail[head + i] = a->ring[(start + i) % STDERR_TAIL];
    a->tail[head + n] = '\0';
    /* A character split by the ring's start is cut below; the head is whole lines. */
    if (head) {
        size_t off = head;
        while (off < head + n && ((unsigned char)a->tail[off] & 0xC0) == 0x80)
            off++;
        memmove(a->tail + head, a->tail + off, head + n - off + 1);
        n = head + n - off;
    }
    /* The tail goes into JSON and XML: cut a split character at the start and replace
     * anything that is not UTF-8 or is a control character other than newline and tab. */
    size_t off = 0;
    while (off < n && ((unsigned char)a->tail[off] & 0xC0) == 0x80)
        off++;
    memmove(a->tail, a->tail + off, n - off + 1);
    n -= off;
    long bad;
    while ((bad = dsr__utf8_invalid_at(a->tail, n)) >= 0)
        a->tail[bad] = '?';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)a->tail[i] < 0x20 && a->tail[i] != '\n' && a->tail[i] != '\t')
            a->tail[i] = '?';
    return a->tail;
}

/* Whether stderr holds nothing: it signals this thread, and no wake-up came since it was
 * last drained (see drain_stderr). */
static bool stderr_quiet(const dsr_adapter *a)
{
    return err_signals_here(a) && a->drained_wakes == wakes_now();
}

void dsr__adapter_stderr_clear(dsr_adapter *a)
{
    if (!a->inproc && a->err_fd >= 0 && !stderr_quiet(a)) drain_stderr(a);
    a->ring_len = 0;
    a->line_len = 0;
    a->nwhy = 0;
}
