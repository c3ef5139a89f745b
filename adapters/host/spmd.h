/*
 * spmd.h: the two halves of devspec-adapter-mpi-host that do not depend on how its ranks
 * run. spmd_merge.c makes rank 0's reply out of every rank's (the SPMD transport's merging,
 * spec/protocol.md); spmd_launch.c starts N rank processes itself, each a one-rank
 * out-of-process adapter, with the rank variables OneFlow and torch.distributed read. The
 * MPI half (mpi_host.c) and the launcher both merge through spmd_merge, so a reply has one
 * form whichever way the ranks were started.
 */
#ifndef DEVSPEC_SPMD_H
#define DEVSPEC_SPMD_H

#include <stddef.h>

/* Rank 0's reply to `request`, made from replies[0..nranks-1] (rank r's reply, a JSON
 * text): rank 0's reply with "ranks" (every rank's outcome, the reply without its id) when
 * some rank's outcome differs from rank 0's, and "ranks": nranks in hello's result. A reply
 * that is not JSON becomes a RuntimeError outcome of origin "adapter". Returns a malloc'd
 * string, or NULL when memory runs out. */
char *spmd_merge(const char *request, size_t request_len, char *const *replies, int nranks);

/* The launcher's main: `devspec-adapter-mpi-host --ranks N [--] COMMAND [ARG...]` with argv
 * pointing at COMMAND. Starts N processes of COMMAND, rank r with MASTER_ADDR, MASTER_PORT,
 * WORLD_SIZE=N, RANK=r and LOCAL_RANK=r in its environment, then serves stdin/stdout: every
 * request to every rank, one merged reply. Returns the exit status (see mpi_host.c). */
int spmd_launch_main(int nranks, char **command);

/* A TCP port free on the loopback interface now, or -1 (MASTER_PORT where none is given). */
int spmd_free_port(void);

/* The MPI form with a COMMAND: each MPI rank runs its own rank of the adapter as a child
 * process, with RANK, LOCAL_RANK and WORLD_SIZE set (MASTER_ADDR and MASTER_PORT are the
 * caller's to set first). spmd_child_call has devspec_adapter_call_fn's shape: it writes the
 * request to the child and returns its reply line (free with spmd_child_free), or NULL when
 * the child has ended (spmd_child_ended then says how, on stderr). spmd_child_end closes the
 * child's input and waits for it; 0 when it exited cleanly. */
int spmd_child_start(char **command, int rank, int world, int local_rank);
const char *spmd_child_call(const char *request, size_t len, size_t *reply_len);
void spmd_child_free(const char *reply);
void spmd_child_ended(void);
int spmd_child_end(void);

#endif
