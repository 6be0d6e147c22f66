/*
 * Suite base_pool: the bounded parallel loop (base/pool.h). Every item
 * runs once, each worker state is one thread's at a time, the calling
 * thread takes part, and a failure stops the items above the lowest
 * failed one whatever the scheduling; an item may recurse on a worker
 * thread as deep as on Linux's main thread, whatever the platform's
 * default thread stack.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE	/* pthread_setattr_default_np */
#endif
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/pool.h"

#define ITEMS 2000
#define WORKERS 4

struct worker {
	atomic_int busy;	/* 1 while an item of this worker runs */
	pthread_t thread;	/* the thread that last used it */
	int shared;		/* a worker seen busy by another item */
	size_t items;		/* items it ran */
};

struct loop {
	atomic_int runs[ITEMS];	/* how many times each item ran */
	atomic_size_t started;	/* items started */
	long fail_at[3];	/* items that fail, or -1 */
	pthread_t caller;
	atomic_int caller_ran;	/* the calling thread ran an item */
	long spin;		/* busy work per item */
	int wait_caller;	/* items off the caller wait until it ran
				   one, or until `until` */
	time_t until;
};

static void
nap(long spin)
{
	volatile long i, x = 0;

	for (i = 0; i < spin; i++)
		x += i;
}

static int
item(void *worker, size_t i, void *arg)
{
	struct worker *w = worker;
	struct loop *l = arg;
	size_t k;

	if (atomic_exchange(&w->busy, 1))
		w->shared = 1;
	w->thread = pthread_self();
	w->items++;
	atomic_fetch_add(&l->runs[i], 1);
	atomic_fetch_add(&l->started, 1);
	if (pthread_equal(pthread_self(), l->caller)) {
		atomic_store(&l->caller_ran, 1);
	} else if (l->wait_caller) {
		while (!atomic_load(&l->caller_ran) && time(NULL) < l->until)
			nap(1000);
	}
	nap(l->spin + (long)(i % 7) * 50);
	atomic_store(&w->busy, 0);
	for (k = 0; k < 3; k++)
		if (l->fail_at[k] == (long)i)
			return 1;
	return 0;
}

static void
setup(struct loop *l, struct worker *w, void **ws)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	l->fail_at[0] = l->fail_at[1] = l->fail_at[2] = -1;
	l->caller = pthread_self();
	l->spin = 200;
	memset(w, 0, WORKERS * sizeof(*w));
	for (i = 0; i < WORKERS; i++)
		ws[i] = &w[i];
}

Test(base_pool, every_item_runs_once_each_worker_one_thread_at_a_time)
{
	static struct loop l;
	struct worker w[WORKERS];
	void *ws[WORKERS];
	size_t i, total = 0;

	setup(&l, w, ws);
	/* The threads wait for the caller's first item: however slowly it
	 * starts the others (Wine under load: seen draining all 2,000
	 * items first, 1 run in 12), it must take part. */
	l.spin = 20000;
	l.wait_caller = 1;
	l.until = time(NULL) + 10;
	cr_assert_eq(pool_run(WORKERS, ws, ITEMS, item, &l), ITEMS,
		     "no item failed: the result is n");
	for (i = 0; i < ITEMS; i++)
		cr_expect_eq(atomic_load(&l.runs[i]), 1, "item %zu ran %d "
			     "times", i, atomic_load(&l.runs[i]));
	for (i = 0; i < WORKERS; i++) {
		cr_expect(!w[i].shared, "worker %zu was used by two items at "
			  "once", i);
		total += w[i].items;
	}
	cr_expect_eq(total, ITEMS);
	cr_expect(atomic_load(&l.caller_ran), "the calling thread is a "
		  "worker (worker 0)");
	cr_expect(w[0].items > 0 && pthread_equal(w[0].thread, l.caller),
		  "worker 0's state is the calling thread's (%zu items, %d)",
		  w[0].items, (int)pthread_equal(w[0].thread, l.caller));
}

Test(base_pool, the_lowest_failure_wins_whatever_the_order)
{
	static struct loop l;
	struct worker w[WORKERS];
	void *ws[WORKERS];
	size_t i, rep, failed;

	/* Failures at 700, 300 and 1500: 300 is returned every time, and
	 * every item below it ran (once). */
	for (rep = 0; rep < 20; rep++) {
		setup(&l, w, ws);
		l.fail_at[0] = 700;
		l.fail_at[1] = 300;
		l.fail_at[2] = 1500;
		failed = pool_run(WORKERS, ws, ITEMS, item, &l);
		cr_assert_eq(failed, 300, "rep %zu: the lowest failed item is "
			     "returned, not %zu", rep, failed);
		for (i = 0; i <= 300; i++)
			cr_assert_eq(atomic_load(&l.runs[i]), 1, "rep %zu: "
				     "item %zu below the failure ran", rep, i);
		for (i = 0; i < ITEMS; i++)
			cr_assert_leq(atomic_load(&l.runs[i]), 1);
	}
}

Test(base_pool, a_failure_stops_the_items_not_yet_started)
{
	static struct loop l;
	struct worker w[WORKERS];
	void *ws[WORKERS];

	/* Item 0 fails at once; the others take a while (nap): the other
	 * threads draw a few items each before the failure is seen, not
	 * the thousands left. */
	setup(&l, w, ws);
	l.fail_at[0] = 0;
	l.spin = 200000;
	cr_assert_eq(pool_run(WORKERS, ws, ITEMS, item, &l), 0);
	cr_expect_lt(atomic_load(&l.started), ITEMS / 4, "%zu items started "
		     "after item 0 failed", atomic_load(&l.started));
}

Test(base_pool, one_worker_runs_in_order_on_the_caller_and_stops_at_a_failure)
{
	static struct loop l;
	struct worker w[WORKERS];
	void *ws[WORKERS];
	size_t i;

	setup(&l, w, ws);
	l.fail_at[0] = 10;
	cr_assert_eq(pool_run(1, ws, ITEMS, item, &l), 10);
	for (i = 0; i < ITEMS; i++)
		cr_expect_eq(atomic_load(&l.runs[i]), i <= 10 ? 1 : 0,
			     "item %zu", i);
	cr_expect_eq(w[0].items, 11, "worker 0 alone");
	cr_expect(pthread_equal(w[0].thread, l.caller));
	/* workers 0 counts as one; no item: nothing runs. */
	setup(&l, w, ws);
	cr_expect_eq(pool_run(0, ws, 5, item, &l), 5);
	cr_expect_eq(atomic_load(&l.started), 5);
	cr_expect_eq(pool_run(WORKERS, ws, 0, item, &l), 0);
	cr_expect_eq(atomic_load(&l.started), 5);
}

Test(base_pool, more_workers_than_items_start_no_idle_threads)
{
	static struct loop l;
	struct worker w[WORKERS];
	void *ws[WORKERS];
	size_t i, used = 0;

	setup(&l, w, ws);
	l.spin = 200000;
	cr_assert_eq(pool_run(WORKERS, ws, 2, item, &l), 2);
	for (i = 0; i < WORKERS; i++)
		used += w[i].items > 0;
	cr_expect_leq(used, 2, "a worker state beyond the items was used");
	cr_expect_eq(w[2].items + w[3].items, 0);
}

/*
 * Stack an item recurses through on a worker thread: 4,096 frames of at
 * least 1 KiB, about 4.5 MiB. graph/tree.c's walks recurse once per
 * folder, up to GRAPH_MAX_TREE_DEPTH (4,096) folders, and a plan runs
 * them on the pool's threads; this is more than the walks need (about
 * 1.1 MiB under Wine, 1 MiB on Linux) and more than a thread gets by
 * default on Windows (the program's stack reserve: 2 MiB with mingw-w64),
 * less than the pool's 8 MiB.
 */
#define DEEP_FRAMES 4096

struct deep {
	pthread_t caller;
	atomic_int deep_done;	/* deep items done, off the caller */
	atomic_int sums_ok;	/* of them, those that summed right */
};

static __attribute__((noinline)) long
recurse(int n)
{
	volatile char pad[1024];
	long below;

	pad[0] = (char)(n & 0x7f);
	pad[sizeof(pad) - 1] = 1;
	if (n == 0)
		return 0;
	below = recurse(n - 1);
	return below + pad[0] + pad[sizeof(pad) - 1];
}

static long
deep_sum(int n)
{
	long s = 0;
	int i;

	for (i = 1; i <= n; i++)
		s += (i & 0x7f) + 1;
	return s;
}

static int
deep_item(void *worker, size_t i, void *arg)
{
	struct deep *d = arg;
	time_t until;

	(void)worker;
	(void)i;
	if (pthread_equal(pthread_self(), d->caller)) {
		/* Worker 0, the calling thread, has the stack its program
		 * was given: it waits for the others to recurse. */
		until = time(NULL) + 20;
		while (!atomic_load(&d->deep_done) && time(NULL) < until)
			nap(10000);
		return 0;
	}
	if (recurse(DEEP_FRAMES) == deep_sum(DEEP_FRAMES))
		atomic_fetch_add(&d->sums_ok, 1);
	atomic_fetch_add(&d->deep_done, 1);
	return 0;
}

Test(base_pool, an_item_recurses_deep_on_a_worker_thread)
{
	static struct deep d;
	void *ws[WORKERS] = { NULL, NULL, NULL, NULL };
#ifdef __GLIBC__
	pthread_attr_t small;

	/* glibc gives threads RLIMIT_STACK by default (often 8 MiB):
	 * make the default 1 MiB, as small as Windows' or smaller, so
	 * only the pool's own stack size lets the items recurse. */
	cr_assert_eq(pthread_attr_init(&small), 0);
	cr_assert_eq(pthread_attr_setstacksize(&small, (size_t)1 << 20), 0);
	cr_assert_eq(pthread_setattr_default_np(&small), 0);
	pthread_attr_destroy(&small);
#endif
	memset(&d, 0, sizeof(d));
	d.caller = pthread_self();
	cr_assert_eq(pool_run(WORKERS, ws, 8, deep_item, &d), 8);
	cr_expect_gt(atomic_load(&d.deep_done), 0, "no item ran off the "
		     "calling thread");
	cr_expect_eq(atomic_load(&d.sums_ok), atomic_load(&d.deep_done),
		     "a deep item summed wrong");
}
