/*
 * A bounded parallel loop over numbered items: the calling thread and up
 * to `workers - 1` threads (pthreads; mingw-w64's winpthreads on Windows)
 * take the items in increasing order, each through its own worker state.
 * The loop returns when every started item is done, so nothing runs
 * behind the caller's back. Each item writes its result into a slot of
 * its own: what a caller reads must not depend on which thread ran an
 * item, or when.
 */
#ifndef RIPPLE_BASE_POOL_H
#define RIPPLE_BASE_POOL_H

#include <stddef.h>

/*
 * One item: `worker` is the state of the thread running it (one of the
 * pool_run caller's `workers` pointers, used by one thread at a time),
 * `item` its number, `arg` pool_run's. 0, or nonzero for a failure
 * (kept in the item's slot by the function itself).
 */
typedef int (*pool_item_fn)(void *worker, size_t item, void *arg);

/*
 * Run fn(worker[w], i, arg) for the items i = 0 .. n-1 on at most
 * `workers` threads, worker 0 being the calling thread (workers 0 or 1:
 * every item in order on the calling thread, no thread started). A
 * thread that cannot be started leaves its share to the others. Items
 * are started in increasing order; once an item fails, none above it is
 * started (items running finish), so the lowest failure is the same
 * whatever the scheduling: every item below it ran. Returns the lowest
 * failed item, or n when none failed.
 */
size_t pool_run(size_t workers, void *const *worker, size_t n,
		pool_item_fn fn, void *arg);

/*
 * fn(arg)'s result, fn run on a thread of its own whose stack is the
 * 8 MiB the pool's threads get, when the calling thread's may be smaller
 * (`stack`: its size in bytes, e.g. host_stack_limit's soft RLIMIT_STACK
 * after `ulimit -s 512`; 0: unknown or unlimited), else on the calling
 * thread. Deep walks (trees 4,096 folders deep, graph/tree.c's limit)
 * then need no more of the caller than Linux's default gives. A thread
 * that cannot be started leaves fn to the calling thread. fn may fork
 * and exec: it is the only thread of the program then, as the caller
 * waits for it.
 */
int pool_call(size_t stack, int (*fn)(void *), void *arg);

#endif
