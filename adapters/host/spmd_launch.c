/*
 * spmd_launch.c: devspec-adapter-mpi-host without MPI. The host starts its N ranks itself,
 * each a one-rank out-of-process adapter (COMMAND, reading requests on stdin and writing
 * replies on stdout), with the variables that OneFlow and torch.distributed read to find
 * their peers: MASTER_ADDR (kept from the host's environment, else 127.0.0.1), MASTER_PORT
 * (kept, else a port free on this machine now), WORLD_SIZE=N, RANK=r, LOCAL_RANK=r. Every
 * request is written to every rank before any reply is awaited (a collective operation on
 * rank 0 waits for the other ranks to start it); the replies are merged by spmd_merge as
 * under MPI.
 *
 * A rank that ends (its reply stream closes) takes the job down: the host kills every other
 * rank, reaps them, says which rank ended and how on stderr, and exits 4; the runner then
 * charges the case with a crash and restarts the adapter, as when mpirun's job dies.
 *
 * No process a rank starts outlives the job. The ranks run in one process group of their
 * own, led by a keeper: a small process forked from the host before the ranks, which holds
 * the read end of a pipe only the host writes to. When the host dies in any way (SIGKILL by
 * the runner after a timeout, by the runner's own keeper when the runner dies, the OOM
 * killer), the pipe reads as end of file and the keeper kills the whole group, so the
 * ranks' children die with them; the kernel's parent-death signal, which each rank also
 * asks for, reaches only the ranks themselves. When the job ends (normally or because a
 * rank ended), the host kills the group itself. Under mpirun with a COMMAND, each rank's
 * host does the same for its one child.
 */
#define _GNU_SOURCE

#include "spmd.h"

#include "devspec_shim.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The exit status when a rank ends before the session does (mpi_host.c lists them all). */
#define EXIT_RANK_ENDED 4

typedef struct {
    pid_t pid;
    int to;    /* the rank's stdin */
    int from;  /* the rank's stdout */
    char *buf; /* what the rank wrote and was not yet taken as a reply */
    size_t len, cap;
} rank_proc;

static rank_proc *procs;
static int nprocs;

static pid_t keeper = -1; /* the keeper, leader of the ranks' process group; -1 when none */
static int lifeline = -1; /* the write end of the keeper's pipe */

/* Forks the keeper (see the top of this file). Returns 0, or -1 with errno set. */
static int start_keeper(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* Hold nothing of the host's but the pipe: not the runner's pipes on 0, 1 and 2 (the
         * runner must see the host's end), nor anything MPI opened. */
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        if (dup2(p[0], 3) < 0) _exit(127);
        if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
            for (int fd = 4; fd < 1024; fd++)
                close(fd);
        char c;
        while (read(3, &c, 1) < 0 && errno == EINTR) {
        }
        kill(0, SIGKILL); /* the whole group, the keeper last */
        _exit(0);
    }
    setpgid(pid, pid);
    close(p[0]);
    keeper = pid;
    lifeline = p[1];
    return 0;
}

/* Kills the ranks' process group (the keeper, the ranks and whatever they started) and
 * reaps the keeper. The ranks themselves are reaped by their callers. */
static void kill_job(void)
{
    if (keeper <= 0) return;
    kill(-keeper, SIGKILL);
    while (waitpid(keeper, NULL, 0) < 0 && errno == EINTR) {
    }
    close(lifeline);
    keeper = -1;
    lifeline = -1;
}

/* A TCP port free on the loopback interface now, or -1. Another program may take it before
 * rank 0 binds it; then the ranks fail to meet, the job ends and the runner restarts it
 * with a new port. */
int spmd_free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    int port = -1;
    if (bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &alen) == 0)
        port = ntohs(a.sin_port);
    close(s);
    return port;
}

/* Kills every rank still running and waits for each. */
static void kill_all(void)
{
    for (int r = 0; r < nprocs; r++)
        if (procs[r].pid > 0) kill(procs[r].pid, SIGKILL);
    for (int r = 0; r < nprocs; r++)
        if (procs[r].pid > 0) {
            while (waitpid(procs[r].pid, NULL, 0) < 0 && errno == EINTR) {
            }
            procs[r].pid = 0;
        }
    kill_job();
}

/* Says how rank r ended (it is reaped here), takes the job down and exits. */
static void rank_ended(int r, const char *what)
{
    int status = 0;
    pid_t pid = procs[r].pid;
    /* The rank closed its stdout; give it a moment to finish dying so its status can be told. */
    for (int i = 0; i < 40 && pid > 0; i++) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            procs[r].pid = 0;
            break;
        }
        nanosleep(&(struct timespec){.tv_nsec = 25 * 1000 * 1000}, NULL);
    }
    if (procs[r].pid == 0 && WIFSIGNALED(status))
        fprintf(stderr,
                "devspec-adapter-mpi-host: rank %d %s (killed by signal %d); "
                "ending every rank\n",
                r, what, WTERMSIG(status));
    else if (procs[r].pid == 0)
        fprintf(stderr,
                "devspec-adapter-mpi-host: rank %d %s (exit status %d); "
                "ending every rank\n",
                r, what, WEXITSTATUS(status));
    else
        fprintf(stderr, "devspec-adapter-mpi-host: rank %d %s; ending every rank\n", r, what);
    kill_all();
    exit(EXIT_RANK_ENDED);
}

static void set_env_int(const char *name, long value)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", value);
    setenv(name, text, 1);
}

/* Starts rank r of n (local rank `local` on its machine) as a child running command, its
 * stdin and stdout pipes to the host. */
static int spawn(rank_proc *p, int r, int n, int local, char **command)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return -1;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    if (keeper <= 0 && start_keeper() != 0) {
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* Into the keeper's group, which dies with the host. */
        if (setpgid(0, keeper) != 0) _exit(127);
        /* Die with the host: a rank must not outlive a job the runner killed. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        signal(SIGPIPE, SIG_DFL);
        if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0) _exit(127);
        set_env_int("RANK", r);
        set_env_int("LOCAL_RANK", local);
        set_env_int("WORLD_SIZE", n);
        execvp(command[0], command);
        fprintf(stderr, "devspec-adapter-mpi-host: rank %d cannot run '%s': %s\n", r, command[0],
                strerror(errno));
        _exit(127);
    }
    setpgid(pid, keeper); /* also here, so that it holds before the rank runs anything */
    close(in[0]);
    close(out[1]);
    *p = (rank_proc){.pid = pid, .to = in[1], .from = out[0]};
    return 0;
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* The length of the first complete line in rank r's buffer (without its newline), or -1. */
static long line_length(const rank_proc *p)
{
    const char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
    return nl ? (long)(nl - p->buf) : -1;
}

/* Reads what rank r has written; ends the job when its stream has closed. */
static void read_rank(int r)
{
    rank_proc *p = &procs[r];
    if (p->cap - p->len < 65536) {
        size_t cap = p->cap ? p->cap * 2 : 131072;
        if (cap > (size_t)DS_PROTOCOL_MAX_REPLY + 131072)
            rank_ended(r, "wrote a reply longer than the protocol allows");
        char *grown = realloc(p->buf, cap);
        if (!grown) rank_ended(r, "wrote a reply this host has no memory for");
        p->buf = grown;
        p->cap = cap;
    }
    ssize_t got = read(p->from, p->buf + p->len, p->cap - p->len);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (got <= 0) rank_ended(r, "ended before answering");
    p->len += (size_t)got;
}

/* The entry point ds_shim_serve calls: the request to every rank, then every reply. */
static const char *launch_call(const char *request, size_t len, size_t *reply_len)
{
    for (int r = 0; r < nprocs; r++)
        if (!write_all(procs[r].to, request, len) || !write_all(procs[r].to, "\n", 1))
            rank_ended(r, "stopped reading requests");
    size_t count = nprocs < 1 ? 1 : (size_t)nprocs;
    struct pollfd *fds = calloc(count, sizeof *fds);
    char **replies = calloc(count, sizeof *replies);
    if (!fds || !replies) {
        fputs("devspec-adapter-mpi-host: out of memory\n", stderr);
        kill_all();
        exit(EXIT_RANK_ENDED);
    }
    int pending = nprocs;
    while (pending > 0) {
        int k = 0;
        for (int r = 0; r < nprocs; r++) {
            if (replies[r]) continue;
            long n = line_length(&procs[r]);
            if (n >= 0) {
                replies[r] = strndup(procs[r].buf, (size_t)n);
                if (!replies[r]) rank_ended(r, "wrote a reply this host has no memory for");
                procs[r].len -= (size_t)n + 1;
                memmove(procs[r].buf, procs[r].buf + n + 1, procs[r].len);
                pending--;
                continue;
            }
            fds[k++] = (struct pollfd){.fd = procs[r].from, .events = POLLIN};
        }
        if (pending == 0) break;
        if (poll(fds, (nfds_t)k, -1) < 0) {
            if (errno == EINTR) continue;
            perror("devspec-adapter-mpi-host: poll");
            kill_all();
            exit(EXIT_RANK_ENDED);
        }
        for (int i = 0; i < k; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            for (int r = 0; r < nprocs; r++)
                if (procs[r].from == fds[i].fd) read_rank(r);
        }
    }
    char *merged = spmd_merge(request, len, replies, nprocs);
    for (int r = 0; r < nprocs; r++)
        free(replies[r]);
    free(replies);
    free(fds);
    if (!merged)
        merged = strdup("{\"id\":null,\"ok\":false,\"error\":{\"kind\":\"MemoryError\","
                        "\"message\":\"out of memory\",\"origin\":\"adapter\"}}");
    if (reply_len) *reply_len = strlen(merged);
    return merged;
}

static void launch_free(const char *reply)
{
    free((char *)reply);
}

/* After the session: each rank sees the end of its input and exits; one that has not within
 * ten seconds is killed. Returns whether every rank exited with status 0. */
static bool end_ranks(void)
{
    for (int r = 0; r < nprocs; r++)
        close(procs[r].to);
    bool clean = true;
    for (int r = 0; r < nprocs; r++) {
        int status = 0;
        pid_t w = 0;
        for (int i = 0; i < 400 && w == 0; i++) {
            w = waitpid(procs[r].pid, &status, WNOHANG);
            if (w == 0) nanosleep(&(struct timespec){.tv_nsec = 25 * 1000 * 1000}, NULL);
        }
        if (w == 0) {
            fprintf(stderr,
                    "devspec-adapter-mpi-host: rank %d did not exit at the end of the "
                    "session; killed\n",
                    r);
            kill(procs[r].pid, SIGKILL);
            waitpid(procs[r].pid, &status, 0);
            clean = false;
        } else if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "devspec-adapter-mpi-host: rank %d ended the session with %s %d\n", r,
                    w > 0 && WIFSIGNALED(status) ? "signal" : "exit status",
                    w > 0 && WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            clean = false;
        }
        procs[r].pid = 0;
    }
    kill_job();
    return clean;
}

int spmd_launch_main(int nranks, char **command)
{
    /* A rank that dies makes writes to it fail with EPIPE instead of killing the host. */
    signal(SIGPIPE, SIG_IGN);
    if (!getenv("MASTER_ADDR")) setenv("MASTER_ADDR", "127.0.0.1", 1);
    if (!getenv("MASTER_PORT")) {
        int port = spmd_free_port();
        if (port < 0) {
            perror("devspec-adapter-mpi-host: no free port for MASTER_PORT");
            return 3;
        }
        set_env_int("MASTER_PORT", port);
    }
    procs = calloc((size_t)nranks, sizeof *procs);
    if (!procs) return 3;
    nprocs = nranks;
    for (int r = 0; r < nranks; r++)
        if (spawn(&procs[r], r, nranks, r, command) != 0) {
            perror("devspec-adapter-mpi-host: cannot start a rank");
            kill_all();
            return 3;
        }
    /* stdout carries replies only; the ranks' stderr is the host's. */
    int status = ds_shim_serve(stdin, stdout, launch_call, launch_free);
    if (!end_ranks() && status == 0) status = EXIT_RANK_ENDED;
    for (int r = 0; r < nranks; r++)
        free(procs[r].buf);
    free(procs);
    return status;
}

/* -- One rank's adapter process, for the MPI form (mpi_host.c) ------------------------- */

static rank_proc child;
static int child_rank;

int spmd_child_start(char **command, int rank, int world, int local_rank)
{
    signal(SIGPIPE, SIG_IGN);
    child_rank = rank;
    return spawn(&child, rank, world, local_rank, command);
}

const char *spmd_child_call(const char *request, size_t len, size_t *reply_len)
{
    if (!write_all(child.to, request, len) || !write_all(child.to, "\n", 1)) return NULL;
    long n;
    while ((n = line_length(&child)) < 0) {
        if (child.cap - child.len < 65536) {
            size_t cap = child.cap ? child.cap * 2 : 131072;
            if (cap > (size_t)DS_PROTOCOL_MAX_REPLY + 131072) return NULL;
            char *grown = realloc(child.buf, cap);
            if (!grown) return NULL;
            child.buf = grown;
            child.cap = cap;
        }
        ssize_t got = read(child.from, child.buf + child.len, child.cap - child.len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return NULL;
        child.len += (size_t)got;
    }
    char *reply = strndup(child.buf, (size_t)n);
    if (!reply) return NULL;
    child.len -= (size_t)n + 1;
    memmove(child.buf, child.buf + n + 1, child.len);
    if (reply_len) *reply_len = (size_t)n;
    return reply;
}

void spmd_child_free(const char *reply)
{
    free((char *)reply);
}

void spmd_child_ended(void)
{
    int status = 0;
    pid_t w = 0;
    for (int i = 0; i < 40 && w == 0; i++) {
        w = waitpid(child.pid, &status, WNOHANG);
        if (w == 0) nanosleep(&(struct timespec){.tv_nsec = 25 * 1000 * 1000}, NULL);
    }
    if (w == child.pid && WIFSIGNALED(status))
        fprintf(stderr,
                "devspec-adapter-mpi-host: rank %d ended before answering (killed by "
                "signal %d); ending every rank\n",
                child_rank, WTERMSIG(status));
    else if (w == child.pid)
        fprintf(stderr,
                "devspec-adapter-mpi-host: rank %d ended before answering (exit status "
                "%d); ending every rank\n",
                child_rank, WEXITSTATUS(status));
    else
        fprintf(stderr,
                "devspec-adapter-mpi-host: rank %d ended before answering; ending "
                "every rank\n",
                child_rank);
    if (w == 0) kill(child.pid, SIGKILL);
    kill_job();
}

int spmd_child_end(void)
{
    nprocs = 1;
    procs = &child;
    bool clean = end_ranks();
    free(child.buf);
    procs = NULL;
    nprocs = 0;
    return clean ? 0 : EXIT_RANK_ENDED;
}
