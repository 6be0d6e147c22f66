/*
 * A drip server for tests: a tiny HTTP/1.1 server on a loopback port that
 * serves GET and HEAD of the files under a folder (a t_nginx's root, so it
 * answers like that cache), at full speed except for paths containing a
 * chosen text, whose bodies it sends `rate` bytes a second: the server a
 * client must cut off (low-speed limit, total time) or stop (SIGTERM)
 * without hanging. PUT is refused (405). One process per connection; all
 * die with the test process (PR_SET_PDEATHSIG) or at t_drip_stop.
 */
#ifndef RIPPLE_TESTS_SUPPORT_DRIP_H
#define RIPPLE_TESTS_SUPPORT_DRIP_H

#include <sys/types.h>

struct t_drip {
	int port;		/* loopback port it listens on */
	char url[64];		/* "http://127.0.0.1:PORT" */
	pid_t pid;		/* the listener, 0 once stopped */
};

/*
 * Serve `root` as above; paths containing `slow` (not NULL) drip at
 * `rate` bytes per second. Returns 0, or -1 with a reason in why (n).
 */
int t_drip_start(struct t_drip *d, const char *root, const char *slow,
		 int rate, char *why, size_t n);

/* Stop the listener and every connection it serves. Accepts a stopped one. */
void t_drip_stop(struct t_drip *d);

#endif
