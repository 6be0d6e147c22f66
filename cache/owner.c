/*
 * Who is running a run: each process that runs it (`ripple run`; several
 * runners may share a run id) holds a lock on its own file in
 * PATH.owners/<run id>/ for as long as it works on it. The kernel drops a
 * lock when its process dies, however it dies, so a file nobody holds is a
 * runner that died without finishing (SIGKILL, a machine that rebooted). A
 * run marked running with such a file and no live owner lost its runners:
 * the next command that opens the cache read-write marks it interrupted,
 * and readers show it so; when live owners remain, the last to finish
 * makes it interrupted. A run without owner files (made by `ripple
 * record`, whose CI job finishes it with --finish) stays as it is.
 *
 * The locks are base/lock.h's (open-file-description locks on POSIX,
 * LockFileEx on Windows): they conflict between two handles of one
 * process too (tests, one process with two caches), and closing another
 * descriptor of the file does not drop them. An owner's file is
 * locked under a temporary name and renamed into place, so nobody ever
 * sees it unlocked. run.c and cache.c call this file; it calls only
 * sql.c.
 */
#include "cache/cache.h"
#include "cache/internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsys.h"
#include "base/lock.h"
#include "base/mem.h"
#include "base/banned.h"

/*
 * PATH.owners/NAME for a run id: letters, digits, '-', '_' and a '.' not
 * first are kept, other bytes written %XX; a name longer than
 * NAME_MAX_KEEP is cut there and ends in the id's FNV-1a hash.
 */
#define NAME_MAX_KEEP 180

static int
run_dir(const struct cache *c, const char *id, char **out,
	struct error *err)
{
	size_t n = strlen(c->path) + 3 * strlen(id) + 64, len, base, i;
	uint64_t h = 1469598103934665603ULL;
	char *p = mem_alloc(n);

	*out = p;
	if (!p)
		return error_set(err, ERROR_NOMEM, "out of memory");
	len = base = (size_t)snprintf(p, n, "%s.owners/", c->path);
	for (i = 0; id[i]; i++) {
		unsigned char ch = (unsigned char)id[i];

		h = (h ^ ch) * 1099511628211ULL;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
		    (ch == '.' && i > 0))
			p[len++] = (char)ch;
		else
			len += (size_t)snprintf(p + len, n - len, "%%%02X",
						ch);
	}
	p[len] = '\0';
	if (len - base > NAME_MAX_KEEP) {
		len = base + NAME_MAX_KEEP;
		snprintf(p + len, n - len, "-%016llx", (unsigned long long)h);
	}
	return 0;
}

/* Make PATH.owners/ID/ and in it our locked file; 0 or an errno. */
static int
make_owner_file(char *dir, char *path, size_t n, int *fd_out)
{
	char tmp[4200];
	struct timespec ts;
	int fd, e, tries;

	for (tries = 0; tries < 100; tries++) {
		char *slash = strrchr(dir, '/');

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(path, n, "%s/%ld.%lld%09ld.lock", dir, (long)getpid(),
			 (long long)ts.tv_sec, ts.tv_nsec);
		snprintf(tmp, sizeof(tmp), "%s/%ld.%lld%09ld.new", dir,
			 (long)getpid(), (long long)ts.tv_sec, ts.tv_nsec);
		*slash = '\0';
		e = fsys_mkdir(dir);
		*slash = '/';
		e = e == EEXIST ? 0 : e;
		if (!e && (e = fsys_mkdir(dir)) == EEXIST)
			e = 0;
		if (e)
			return e;
		e = lock_open(tmp, LOCK_OPEN_WRITE | LOCK_OPEN_CREATE, &fd);
		if (e == EEXIST || e == ENOENT)
			continue;	/* taken, or the folder just went */
		if (e)
			return e;
		e = lock_try(fd);
		if (!e && !rename(tmp, path)) {
			*fd_out = fd;
			return 0;
		}
		e = e ? e : errno;
		unlink(tmp);
		close(fd);
		if (e != ENOENT)
			return e;
	}
	return EAGAIN;
}

int
cache_run_own(struct cache *c, const char *id, struct error *err)
{
	char *dir = NULL, path[4300];
	int fd = -1, e;

	if (c->readonly)
		return error_set(err, ERROR_INVALID, "cannot own run '%s' "
				 "through a read-only cache", id);
	if (c->owner_id)
		return error_set(err, ERROR_INVALID, "this cache handle owns "
				 "run '%s' already", c->owner_id);
	if (run_dir(c, id, &dir, err))
		return ERROR_NOMEM;
	e = make_owner_file(dir, path, sizeof(path), &fd);
	if (e) {
		error_at(err, ERROR_IO, dir, 0, 0, "cannot lock run '%s' "
			 "for this process: %s", id, strerror(e));
		mem_free(dir);
		return ERROR_IO;
	}
	c->owner_id = mem_strdup(id);
	c->owner_path = mem_strdup(path);
	mem_free(dir);
	c->owner_fd = fd;
	if (!c->owner_id || !c->owner_path) {
		cache_owner_drop(c, 1);
		return error_set(err, ERROR_NOMEM, "out of memory");
	}
	return 0;
}

int
cache_owner_holds(const struct cache *c, const char *id)
{
	return c->owner_id && !strcmp(c->owner_id, id);
}

void
cache_owner_drop(struct cache *c, int remove)
{
	if (c->owner_fd >= 0 && remove)
		unlink(c->owner_path);
	if (c->owner_fd >= 0)
		close(c->owner_fd);
	c->owner_fd = -1;
	mem_free(c->owner_id);
	mem_free(c->owner_path);
	c->owner_id = NULL;
	c->owner_path = NULL;
}

void
cache_owners_release(struct cache_owners *o, int remove)
{
	size_t i;

	/* scanned without lock, dead owners are only counted */
	for (i = 0; o->dead && i < o->n_dead; i++) {
		if (remove)
			unlink(o->dead[i].path);
		close(o->dead[i].fd);
		mem_free(o->dead[i].path);
	}
	if (remove && o->dir)
		rmdir(o->dir);	/* fails while a new owner is in it */
	mem_free(o->dead);
	mem_free(o->dir);
	memset(o, 0, sizeof(*o));
}

int
cache_owners_scan(struct cache *c, const char *id, int lock,
		  struct cache_owners *o, struct error *err)
{
	DIR *d;
	struct dirent *e;
	size_t cap = 0, dl;
	int rc = 0;

	memset(o, 0, sizeof(*o));
	if (run_dir(c, id, &o->dir, err))
		return ERROR_NOMEM;
	d = opendir(o->dir);
	if (!d)
		return 0;	/* no owner files: nobody to lose */
	dl = strlen(o->dir);
	while (!rc && (e = readdir(d)) != NULL) {
		size_t nl = strlen(e->d_name);
		char *path;
		int fd;

		if (nl < 6 || strcmp(e->d_name + nl - 5, ".lock"))
			continue;
		path = mem_alloc(dl + nl + 2);
		if (!path) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			break;
		}
		snprintf(path, dl + nl + 2, "%s/%s", o->dir, e->d_name);
		if (c->owner_path && !strcmp(path, c->owner_path)) {
			mem_free(path);
			continue;	/* ourselves */
		}
		if (lock_open(path, lock ? LOCK_OPEN_WRITE : 0, &fd))
			fd = -1;
		if (fd < 0 || (lock ? lock_try(fd) != 0 : lock_held(fd))) {
			o->alive += fd >= 0;
			if (fd >= 0)
				close(fd);
			mem_free(path);
			continue;
		}
		if (!lock) {
			o->n_dead++;
			close(fd);
			mem_free(path);
			continue;
		}
		if (o->n_dead == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			void *p = mem_realloc(o->dead,
					      ncap * sizeof(*o->dead));

			if (!p) {
				close(fd);
				mem_free(path);
				rc = error_set(err, ERROR_NOMEM,
					       "out of memory");
				break;
			}
			o->dead = p;
			cap = ncap;
		}
		o->dead[o->n_dead].path = path;
		o->dead[o->n_dead].fd = fd;
		o->n_dead++;
	}
	closedir(d);
	if (rc)
		cache_owners_release(o, 0);
	return rc;
}

int
cache_owner_gone(struct cache *c, const char *id)
{
	struct cache_owners o;
	int gone;

	if (cache_owner_holds(c, id) || cache_owners_scan(c, id, 0, &o, NULL))
		return 0;
	gone = !o.alive && o.n_dead > 0;
	cache_owners_release(&o, 0);
	return gone;
}

/* Mark one run interrupted at now_ms if it is still marked running. */
static int
interrupt(struct cache *c, const char *id, int64_t now_ms, struct error *err)
{
	sqlite3_stmt *st = cache_stmt_get(c, CACHE_STMT_RUN_INTERRUPT, err);
	int rc;

	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	if ((rc = cache_bind_text(c, st, 1, id, err)) ||
	    (rc = cache_bind_int(c, st, 2, now_ms, err)))
		return rc;
	rc = cache_stmt_step(c, st, err);
	return rc < 0 ? rc : 0;
}

/* The ids of the runs marked running (an owned strv). */
static int
running_runs(struct cache *c, struct strv *ids, struct error *err)
{
	sqlite3_stmt *st = cache_stmt_get(c, CACHE_STMT_RUN_RUNNING, err);
	int rc;

	if (!st)
		return err ? err->code : ERROR_INTERNAL;
	while ((rc = cache_stmt_step(c, st, err)) == 1) {
		const char *id = (const char *)sqlite3_column_text(st, 0);

		if (id && (rc = strv_push(ids, id, err)))
			break;
	}
	if (rc)
		sqlite3_reset(st);
	return rc < 0 ? rc : 0;
}

int
cache_owner_sweep(struct cache *c, int64_t now_ms, struct error *err)
{
	struct strv ids = STRV_INIT;
	struct cache_owners o;
	size_t i;
	int rc;

	if (c->readonly)
		return 0;
	rc = running_runs(c, &ids, err);
	for (i = 0; !rc && i < ids.n; i++) {
		rc = cache_owners_scan(c, ids.v[i], 1, &o, err);
		if (rc)
			break;
		if (o.alive || !o.n_dead) {
			cache_owners_release(&o, 0);
			continue;
		}
		/* every owner is gone, and we hold their files: no race */
		rc = cache_txn_begin(c, err);
		if (!rc)
			rc = interrupt(c, ids.v[i], now_ms, err);
		if (!rc)
			rc = cache_txn_commit(c, err);
		else
			cache_txn_rollback(c);
		cache_owners_release(&o, rc == 0);
	}
	strv_release(&ids);
	return rc;
}
