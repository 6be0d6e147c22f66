/*
 * The parallel loop of base/pool.h: one mutex guards the next item and the
 * lowest failure; items are handed out one at a time, so a thread that
 * draws long items does not hold back the others.
 */
#include "base/pool.h"

#include <pthread.h>

#include "base/mem.h"
#include "base/banned.h"

#define POOL_STACK ((size_t)8 << 20)

struct loop {
	pthread_mutex_t lock;
	size_t next;		/* the next item to hand out */
	size_t failed;		/* the lowest failed item, or n */
	size_t n;
	pool_item_fn fn;
	void *arg;
};

struct seat {
	struct loop *loop;
	void *worker;
};

/* The next item, or n when none is left (or one below it failed). */
static size_t
draw(struct loop *l)
{
	size_t i;

	pthread_mutex_lock(&l->lock);
	i = l->next < l->n && l->next < l->failed ? l->next++ : l->n;
	pthread_mutex_unlock(&l->lock);
	return i;
}

static void
fail(struct loop *l, size_t i)
{
	pthread_mutex_lock(&l->lock);
	if (i < l->failed)
		l->failed = i;
	pthread_mutex_unlock(&l->lock);
}

static void *
serve(void *p)
{
	struct seat *s = p;
	struct loop *l = s->loop;
	size_t i;

	while ((i = draw(l)) < l->n)
		if (l->fn(s->worker, i, l->arg))
			fail(l, i);
	return NULL;
}

size_t
pool_run(size_t workers, void *const *worker, size_t n, pool_item_fn fn,
	 void *arg)
{
	struct loop l;
	struct seat *seats;
	pthread_t *threads;
	pthread_attr_t attr;
	size_t i, started = 0;
	int have_attr, sized;

	if (workers > n)
		workers = n;
	if (workers <= 1) {
		for (i = 0; i < n; i++)
			if (fn(worker ? worker[0] : NULL, i, arg))
				return i;
		return n;
	}
	seats = mem_calloc(workers, sizeof(*seats));
	threads = mem_calloc(workers, sizeof(*threads));
	l.next = 0;
	l.failed = l.n = n;
	l.fn = fn;
	l.arg = arg;
	if (!seats || !threads || pthread_mutex_init(&l.lock, NULL)) {
		/* No room for threads: the caller's alone, still in order. */
		mem_free(seats);
		mem_free(threads);
		return pool_run(1, worker, n, fn, arg);
	}
	for (i = 0; i < workers; i++) {
		seats[i].loop = &l;
		seats[i].worker = worker ? worker[i] : NULL;
	}
	/* The stack Linux gives its main thread (8 MiB, reserved, not
	 * committed): items may recurse as deep as they would there. */
	have_attr = !pthread_attr_init(&attr);
	sized = have_attr && !pthread_attr_setstacksize(&attr, POOL_STACK);
	for (i = 1; i < workers; i++)
		if (!pthread_create(&threads[started], sized ? &attr : NULL,
				    serve, &seats[i]))
			started++;
	if (have_attr)
		pthread_attr_destroy(&attr);
	serve(&seats[0]);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&l.lock);
	mem_free(seats);
	mem_free(threads);
	return l.failed;
}

struct call {
	int (*fn)(void *);
	void *arg;
	int rc;
};

static void *
call_fn(void *p)
{
	struct call *c = p;

	c->rc = c->fn(c->arg);
	return NULL;
}

int
pool_call(size_t stack, int (*fn)(void *), void *arg)
{
	struct call c = { fn, arg, 0 };
	pthread_attr_t attr;
	pthread_t t;
	int started;

	if (!stack || stack >= POOL_STACK || pthread_attr_init(&attr))
		return fn(arg);
	started = !pthread_attr_setstacksize(&attr, POOL_STACK) &&
		  !pthread_create(&t, &attr, call_fn, &c);
	pthread_attr_destroy(&attr);
	if (!started)
		return fn(arg);
	pthread_join(t, NULL);
	return c.rc;
}
