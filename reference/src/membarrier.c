/* membarrier.c: the process-wide half of the fence between a release of an array's only
 * reference and a listing of live arrays (live.c's comment says how the two meet). It knows
 * nothing of contexts: the thread look-up (ctx.c) registers the barrier before a thread's
 * first release may rely on it, and the listing (live.c) fences with it. */
#define _DEFAULT_SOURCE /* syscall, for membarrier */
#include "internal.h"

#ifdef __linux__
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Whether this process has the listing's barrier: set once (ra__listing_barrier_init), read
 * by every release. */
_Atomic bool ra__listing_barrier;
static pthread_once_t listing_barrier_once = PTHREAD_ONCE_INIT;

static void listing_barrier_register(void)
{
#if defined(__linux__) && defined(__NR_membarrier)
    long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
        atomic_store(&ra__listing_barrier, true);
#endif
}

void ra__listing_barrier_init(void)
{
    pthread_once(&listing_barrier_once, listing_barrier_register);
}

/* A full memory barrier on every running thread of the process (the listing's side). The
 * registration is the process's and a forked child keeps it; should the kernel refuse the
 * barrier anyway, it is registered again and asked once more, and if that is refused the
 * global command (every processor, slower) is the barrier. */
void ra__listing_fence(void)
{
#if defined(__linux__) && defined(__NR_membarrier)
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
        syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
        return;
    syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
#endif
}
