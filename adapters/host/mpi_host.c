/*
 * devspec-adapter-mpi-host: the SPMD form of the out-of-process transport (spec/protocol.md,
 * "SPMD transport"). Started under MPI, every rank loads the same in-process adapter; rank 0
 * reads the requests from stdin, every request reaches every rank (MPI_Bcast), every rank
 * answers it on its own library state, and rank 0 writes one reply: its own, plus every
 * rank's outcome in "ranks" when some rank's differs from its own. hello's result also says
 * how many ranks run ("ranks").
 *
 *   mpirun -np 4 devspec-adapter-mpi-host SHIM.so
 *
 * Isolation: the runner kills mpirun's process group after a timeout, but MPI starts the
 * ranks in process groups of their own; each rank therefore asks the kernel to kill it when
 * its parent (mpirun) dies (Linux's PR_SET_PDEATHSIG), so a hung rank never outlives its
 * job. stdout carries only rank 0's replies; whatever the library prints goes to stderr.
 * Exit status as devspec-adapter-host's.
 */
#define _GNU_SOURCE

#include "devspec_shim.h"

#include <cjson/cJSON.h>
#include "dsjson.h"
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int rank, nranks;
static devspec_adapter_call_fn lib_call;
static devspec_adapter_free_fn lib_release;

/* The request length rank 0 broadcasts to end the session. */
#define STOP ((int64_t)-1)

/* Calls the adapter and returns a malloc'd copy of its reply. */
static char *call_local(const char *request, size_t len, size_t *reply_len)
{
    size_t n = 0;
    const char *reply = lib_call(request, len, &n);
    char *copy = malloc(n + 1);
    if (copy) {
        memcpy(copy, reply, n);
        copy[n] = '\0';
    }
    lib_release(reply);
    *reply_len = copy ? n : 0;
    return copy;
}

/* A rank's outcome: the reply without its id. */
static cJSON *outcome(const char *reply)
{
    cJSON *doc = dsj_parse(reply, strlen(reply), NULL);
    if (!doc) {
        doc = cJSON_CreateObject();
        cJSON_AddFalseToObject(doc, "ok");
        cJSON *e = cJSON_AddObjectToObject(doc, "error");
        cJSON_AddStringToObject(e, "kind", "RuntimeError");
        cJSON_AddStringToObject(e, "message", "the rank's reply is not JSON");
        cJSON_AddStringToObject(e, "origin", "adapter");
        return doc;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "id");
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "ranks");
    return doc;
}

/* Whether two outcomes are the same JSON, compared as dsjson prints them: exact numbers
 * (cJSON_Compare compares doubles, so two int64 values past 2^53 could look equal). */
static bool same_outcome(const cJSON *a, const cJSON *b)
{
    char *ta = dsj_print(a, false, NULL), *tb = dsj_print(b, false, NULL);
    bool same = ta && tb && strcmp(ta, tb) == 0;
    cJSON_free(ta);
    cJSON_free(tb);
    return same;
}

/* Rank 0's reply, with "ranks" when the ranks' outcomes differ and "ranks" in hello's
 * result. all holds nranks NUL-separated replies. */
static char *merge(const char *request, size_t request_len, char *const *replies)
{
    cJSON *doc = dsj_parse(replies[0], strlen(replies[0]), NULL);
    if (!doc) return strdup(replies[0]);
    bool differ = false;
    cJSON *first = outcome(replies[0]);
    cJSON *list = cJSON_CreateArray();
    cJSON_AddItemToArray(list, first);
    for (int r = 1; r < nranks; r++) {
        cJSON *o = outcome(replies[r]);
        if (!same_outcome(o, first)) differ = true;
        cJSON_AddItemToArray(list, o);
    }
    if (differ)
        cJSON_AddItemToObject(doc, "ranks", list);
    else
        cJSON_Delete(list);
    /* hello: say how many ranks serve the session. */
    cJSON *req = dsj_parse(request, request_len, NULL);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    cJSON *result = cJSON_GetObjectItemCaseSensitive(doc, "result");
    if (cJSON_IsString(op) && strcmp(op->valuestring, "hello") == 0 && cJSON_IsObject(result)) {
        cJSON_DeleteItemFromObjectCaseSensitive(result, "ranks");
        cJSON_AddNumberToObject(result, "ranks", nranks);
    }
    cJSON_Delete(req);
    char *text = dsj_print(doc, false, NULL);
    cJSON_Delete(doc);
    char *out = text ? strdup(text) : strdup(replies[0]);
    cJSON_free(text);
    return out;
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
    char *merged = merge(request, len, replies);
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

int main(int argc, char **argv)
{
    /* Die with mpirun: a rank must not outlive a job the runner killed. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pid_t parent = getppid();
    MPI_Init(&argc, &argv);
    if (getppid() != parent) return 3; /* mpirun died before the request above took hold */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2 || argv[1][0] == '\0') {
        if (rank == 0)
            fputs("usage: mpirun -np N devspec-adapter-mpi-host SHIM.so\n"
                  "Serves the in-process devspec adapter SHIM.so on N ranks over "
                  "stdin/stdout (JSON lines).\n",
                  stderr);
        MPI_Finalize();
        return 2;
    }
    int proto_fd = rank == 0 ? dup(STDOUT_FILENO) : -1;
    FILE *out = proto_fd >= 0 ? fdopen(proto_fd, "w") : NULL;
    if ((rank == 0 && out == NULL) || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        perror("devspec-adapter-mpi-host: cannot set up the reply stream");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    char *path = argv[1];
    char *owned = NULL;
    if (strchr(path, '/') == NULL) {
        owned = malloc(strlen(path) + 3);
        if (owned == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
        strcpy(owned, "./");
        strcat(owned, path);
        path = owned;
    }
    void *so = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (so) {
        *(void **)(&lib_call) = dlsym(so, "devspec_adapter_call");
        *(void **)(&lib_release) = dlsym(so, "devspec_adapter_free");
    }
    int loaded = so && lib_call && lib_release, all_loaded = 0;
    MPI_Allreduce(&loaded, &all_loaded, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_loaded) {
        if (!loaded)
            fprintf(stderr,
                    "devspec-adapter-mpi-host: rank %d cannot load '%s' as an adapter: %s\n", rank,
                    argv[1], so ? "no devspec_adapter_call/free" : dlerror());
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
    /* End the session on every rank so that each library closes cleanly. */
    static const char bye[] = "{\"id\":0,\"op\":\"bye\"}";
    lib_release(lib_call(bye, sizeof bye - 1, NULL));
    free(owned);
    MPI_Finalize();
    return status;
}
