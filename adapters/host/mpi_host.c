/*
 * devspec-adapter-mpi-host: the SPMD form of the out-of-process transport (spec/protocol.md,
 * "SPMD transport"), for libraries that run one process per rank. It runs its N ranks in one
 * of two ways, and merges their replies the same way in both (spmd_merge.c):
 *
 *   mpirun -np 4 devspec-adapter-mpi-host SHIM.so
 *       Under MPI: every rank loads the same in-process adapter; rank 0 reads the requests
 *       from stdin, every request reaches every rank (MPI_Bcast), every rank answers it on
 *       its own library state, and rank 0 writes one reply.
 *   devspec-adapter-mpi-host --ranks 4 [--] COMMAND [ARG...]
 *       Without MPI: the host starts 4 processes of the out-of-process adapter COMMAND
 *       itself, rank r with MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK=r and LOCAL_RANK=r set
 *       (how OneFlow and torch.distributed find their peers), writes every request to every
 *       rank and merges their replies (spmd_launch.c).
 *
 * Rank 0's reply is its own, plus every rank's outcome in "ranks" when some rank's differs
 * from its own; hello's result also says how many ranks run ("ranks").
 *
 * Isolation: the runner kills the job's process group after a timeout, but MPI starts the
 * ranks in process groups of their own; each rank therefore asks the kernel to kill it when
 * its parent (mpirun, or the host) dies (Linux's PR_SET_PDEATHSIG), so a hung rank never
 * outlives its job. A process the library forks inside a rank (the first form) is in the
 * rank's group, which mpirun kills when it aborts a job but not after a normal end nor when
 * mpirun itself is killed; so each such rank first forks a keeper into its group that waits
 * for the rank's death and then kills the group (start_rank_keeper). stdout carries only the merged
 * replies; whatever the library prints goes to stderr. Exit status: 0 at end of input or after
 * `bye`; 1 when a reply cannot be written; 2 usage; 3 when the adapter cannot be loaded or the
 * ranks cannot be started; 4 when a rank ended before the session did (under --ranks; every other
 * rank is killed with it; under MPI, mpirun ends the job).
 */
#define _GNU_SOURCE

#include "devspec_shim.h"
#include "spmd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#ifdef DEVSPEC_HOST_MPI
#include <mpi.h>
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char usage[] =
    "usage: mpirun -np N devspec-adapter-mpi-host SHIM.so\n"
    "       mpirun -np N devspec-adapter-mpi-host -- COMMAND [ARG...]\n"
    "       devspec-adapter-mpi-host --ranks N [--] COMMAND [ARG...]\n"
    "Serves a devspec adapter on N ranks over stdin/stdout (JSON lines): the in-process\n"
    "adapter SHIM.so on every MPI rank, or N processes of the out-of-process adapter COMMAND\n"
    "(one per MPI rank, or started by the host itself) with MASTER_ADDR, MASTER_PORT,\n"
    "WORLD_SIZE, RANK and LOCAL_RANK set.\n";

#ifdef DEVSPEC_HOST_MPI
static int rank, nranks;
static bool command_mode; /* each rank's adapter is a child process (spmd_child_*) */
static devspec_adapter_call_fn lib_call;
static devspec_adapter_free_fn lib_release;

/* The request length rank 0 broadcasts to end the session. */
#define STOP ((int64_t)-1)

/* Calls the adapter and returns a malloc'd copy of its reply. */
static char *call_local(const char *request, size_t len, size_t *reply_len)
{
    size_t n = 0;
    const char *reply = lib_call(request, len, &n);
    if (!reply) { /* only a child process fails to answer: its rank ended */
        spmd_child_ended();
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    char *copy = malloc(n + 1);
    if (copy) {
        memcpy(copy, reply, n);
        copy[n] = '\0';
    }
    lib_release(reply);
    *reply_len = copy ? n : 0;
    return copy;
}

/* Sends one request to every rank and gathers every rank's reply (collective). */
static char **exchange(const char *request, int64_t len)
{
    MPI_Bcast(&len, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (len == STOP) return NULL;
    char *buf = rank == 0 ? (char *)request : malloc((size_t)len + 1);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Bcast(buf, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    size_t n = 0;
    char *mine = call_local(buf, (size_t)len, &n);
    if (!mine) MPI_Abort(MPI_COMM_WORLD, 3);
    if (rank != 0) free(buf);
    /* Every reply to rank 0: lengths, then the bytes. */
    int my_len = (int)n + 1;
    int *lens = rank == 0 ? malloc((size_t)nranks * sizeof *lens) : NULL;
    MPI_Gather(&my_len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        displs = malloc((size_t)nranks * sizeof *displs);
        size_t total = 0;
        for (int r = 0; r < nranks; r++) {
            displs[r] = (int)total;
            total += (size_t)lens[r];
        }
        all = malloc(total);
        if (!displs || !all) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Gatherv(mine, my_len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    free(mine);
    static char *go_on[1];
    if (rank != 0) return go_on; /* not NULL: the session goes on */
    char **replies = malloc((size_t)nranks * sizeof *replies + sizeof(char *));
    if (!replies) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int r = 0; r < nranks; r++)
        replies[r] = all + displs[r];
    replies[nranks] = all; /* the block, for free() */
    free(lens);
    free(displs);
    return replies;
}

/* The entry point ds_shim_serve calls on rank 0. */
static const char *spmd_call(const char *request, size_t len, size_t *reply_len)
{
    char **replies = exchange(request, (int64_t)len);
    char *merged = spmd_merge(request, len, replies, nranks);
    free(replies[nranks]);
    free(replies);
    if (!merged)
        merged = strdup("{\"id\":null,\"ok\":false,\"error\":{\"kind\":\"MemoryError\","
                        "\"message\":\"out of memory\",\"origin\":\"adapter\"}}");
    if (reply_len) *reply_len = strlen(merged);
    return merged;
}

static void spmd_free(const char *reply)
{
    free((char *)reply);
}

/* Loads SHIM.so (a bare file name is looked up in the working directory, not on the
 * library path) and finds its two entry points; returns the handle or NULL. */
static void *load(const char *given, char **owned)
{
    const char *path = given;
    if (strchr(path, '/') == NULL) {
        *owned = malloc(strlen(path) + 3);
        if (*owned == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
        strcpy(*owned, "./");
        strcat(*owned, path);
        path = *owned;
    }
    void *so = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (so) {
        *(void **)(&lib_call) = dlsym(so, "devspec_adapter_call");
        *(void **)(&lib_release) = dlsym(so, "devspec_adapter_free");
    }
    return so;
}

/* Starts this rank's adapter process, COMMAND, with the rank variables OneFlow reads:
 * MASTER_ADDR and MASTER_PORT as rank 0 chose them (kept from its environment, else
 * 127.0.0.1 when every rank runs on one machine or rank 0's host name, and a port free
 * there), WORLD_SIZE, RANK, and LOCAL_RANK, the rank's index on its machine. */
static void start_child(char **command)
{
    MPI_Comm node;
    int local = 0, node_size = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    char addr[256] = "";
    int port = 0;
    if (rank == 0) {
        const char *given = getenv("MASTER_ADDR"), *given_port = getenv("MASTER_PORT");
        if (given)
            snprintf(addr, sizeof addr, "%s", given);
        else if (node_size == nranks)
            strcpy(addr, "127.0.0.1");
        else if (gethostname(addr, sizeof addr - 1) != 0)
            strcpy(addr, "127.0.0.1");
        port = given_port ? atoi(given_port) : spmd_free_port();
    }
    MPI_Bcast(addr, sizeof addr, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    setenv("MASTER_ADDR", addr, 1);
    setenv("MASTER_PORT", port_text, 1);
    if (spmd_child_start(command, rank, nranks, local) == 0) {
        lib_call = spmd_child_call;
        lib_release = spmd_child_free;
    }
}

/* The keeper's whole life: it holds nothing of the rank's (not the reply pipe mpirun
 * forwards, nor anything MPI opens later), ignores the signals a terminal or mpirun sends a
 * whole group first, and waits for the rank's death, of which the kernel tells it by SIGUSR1
 * (its parent-death signal, blocked until sigwaitinfo takes it, so none is missed); then it
 * kills the group: whatever the library forked in the rank, and itself. The rank is already
 * gone by then, its exit status set, so a normal end stays one for mpirun. */
static _Noreturn void rank_keeper_main(pid_t owner)
{
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        sigaction(ignored[i], &ign, NULL);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
    sigset_t death;
    sigemptyset(&death);
    sigaddset(&death, SIGUSR1);
    /* SIGUSR1 is blocked (the rank blocked it before the fork), so it waits here. */
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    while (getppid() == owner)
        if (sigwaitinfo(&death, NULL) < 0 && errno != EINTR) break;
    kill(0, SIGKILL);
    _exit(0);
}

/* Forks the keeper of this rank's process group (see the top of this file), after making
 * the group the rank's own where MPI did not (a group shared with mpirun or a shell must not
 * be killed). Before MPI_Init, so that the keeper holds nothing of MPI's. A failure is said
 * on stderr and leaves the rank without a keeper. */
static void start_rank_keeper(void)
{
    pid_t self = getpid();
    if (getpgrp() != self && setpgid(0, 0) != 0) {
        fprintf(stderr,
                "devspec-adapter-mpi-host: no process group of the rank's own (%s): "
                "processes the adapter starts may outlive the job\n",
                strerror(errno));
        return;
    }
    sigset_t death, old;
    sigemptyset(&death);
    sigaddset(&death, SIGUSR1);
    sigprocmask(SIG_BLOCK, &death, &old);
    pid_t pid = fork();
    if (pid == 0) rank_keeper_main(self);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0)
        fprintf(stderr,
                "devspec-adapter-mpi-host: cannot start the rank's keeper (%s): "
                "processes the adapter starts may outlive the job\n",
                strerror(errno));
}

static int mpi_main(int argc, char **argv)
{
    /* Die with mpirun: a rank must not outlive a job the runner killed. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pid_t parent = getppid();
    /* The module form: whatever the library forks dies with the rank. (With a COMMAND, the
     * child's own keeper does that, spmd_launch.c.) */
    if (!(argc >= 2 && strcmp(argv[1], "--") == 0)) start_rank_keeper();
    MPI_Init(&argc, &argv);
    if (getppid() != parent) return 3; /* mpirun died before the request above took hold */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    command_mode = argc >= 3 && strcmp(argv[1], "--") == 0;
    if (!command_mode && (argc != 2 || argv[1][0] == '\0')) {
        if (rank == 0) fputs(usage, stderr);
        MPI_Finalize();
        return 2;
    }
    /* Close-on-exec: a rank's child process must not hold the runner's reply pipe. */
    int proto_fd = rank == 0 ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0) : -1;
    FILE *out = proto_fd >= 0 ? fdopen(proto_fd, "w") : NULL;
    if ((rank == 0 && out == NULL) || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        perror("devspec-adapter-mpi-host: cannot set up the reply stream");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    char *owned = NULL;
    void *so = NULL;
    if (command_mode)
        start_child(argv + 2);
    else
        so = load(argv[1], &owned);
    int loaded = (command_mode || so) && lib_call && lib_release, all_loaded = 0;
    MPI_Allreduce(&loaded, &all_loaded, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_loaded) {
        if (!loaded)
            fprintf(stderr, "devspec-adapter-mpi-host: rank %d cannot %s '%s' as an adapter: %s\n",
                    rank, command_mode ? "start" : "load", command_mode ? argv[2] : argv[1],
                    command_mode ? "see above"
                    : so         ? "no devspec_adapter_call/free"
                                 : dlerror());
        free(owned);
        MPI_Finalize();
        return 3;
    }
    int status = 0;
    if (rank == 0) {
        status = ds_shim_serve(stdin, out, spmd_call, spmd_free);
        exchange(NULL, STOP);
        if (fclose(out) != 0 && status == 0) status = 1;
    } else {
        while (exchange(NULL, 0) != NULL) {
        }
    }
    /* End the session on every rank so that each library closes cleanly: a child process
     * sees the end of its input. */
    static const char bye[] = "{\"id\":0,\"op\":\"bye\"}";
    if (command_mode) {
        int ended = spmd_child_end();
        if (status == 0) status = ended;
    } else {
        lib_release(lib_call(bye, sizeof bye - 1, NULL));
    }
    free(owned);
    MPI_Finalize();
    return status;
}
#endif /* DEVSPEC_HOST_MPI */

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--ranks") == 0) {
        char *end = NULL;
        long n = argc >= 3 ? strtol(argv[2], &end, 10) : 0;
        int first = 3;
        if (argc > first && strcmp(argv[first], "--") == 0) first++;
        if (!end || *end != '\0' || n < 1 || n > 1024 || argc <= first) {
            fprintf(stderr,
                    "devspec-adapter-mpi-host: --ranks needs a count from 1 to 1024 "
                    "and a command\n%s",
                    usage);
            return 2;
        }
        return spmd_launch_main((int)n, argv + first);
    }
#ifdef DEVSPEC_HOST_MPI
    return mpi_main(argc, argv);
#else
    fprintf(stderr,
            "devspec-adapter-mpi-host: built without MPI; only --ranks N runs "
            "here\n%s",
            usage);
    return 2;
#endif
}
