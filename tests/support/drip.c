/* Test support: a loopback HTTP server that drips chosen bodies. */
#include "tests/support/drip.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One request's head into buf (NUL-terminated); -1 at EOF or error. */
static int
read_head(int fd, char *buf, size_t n)
{
	size_t len = 0;

	while (len + 1 < n) {
		ssize_t r = recv(fd, buf + len, 1, 0);

		if (r <= 0)
			return -1;
		len++;
		buf[len] = '\0';
		if (len >= 4 && !memcmp(buf + len - 4, "\r\n\r\n", 4))
			return 0;
	}
	return -1;
}

static void
answer(int fd, int code, const char *text)
{
	char h[256];

	snprintf(h, sizeof(h), "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n\r\n",
		 code, text);
	send_all(fd, h, strlen(h));
}

/* Serve requests on one connection until the client closes it. */
static void
serve(int fd, const char *root, const char *slow, int rate)
{
	char head[8192], method[16], path[4096], file[8192], h[256];

	for (;;) {
		struct stat st;
		char *body;
		int in;
		off_t off;

		if (read_head(fd, head, sizeof(head)) ||
		    sscanf(head, "%15s %4095s", method, path) != 2)
			return;
		if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
			answer(fd, 405, "Not Allowed");
			return;	/* the body, if any, is not read */
		}
		snprintf(file, sizeof(file), "%s%s", root, path);
		if (strstr(path, "..") || stat(file, &st) ||
		    !S_ISREG(st.st_mode)) {
			answer(fd, 404, "Not Found");
			continue;
		}
		snprintf(h, sizeof(h), "HTTP/1.1 200 OK\r\nContent-Length: "
			 "%lld\r\n\r\n", (long long)st.st_size);
		if (send_all(fd, h, strlen(h)))
			return;
		if (!strcmp(method, "HEAD"))
			continue;
		body = malloc((size_t)st.st_size + 1);
		in = open(file, O_RDONLY);
		if (!body || in < 0 ||
		    read(in, body, (size_t)st.st_size) != st.st_size)
			_exit(1);
		close(in);
		for (off = 0; off < st.st_size;) {
			size_t k = (size_t)(st.st_size - off);

			if (slow && strstr(path, slow) && k > (size_t)rate)
				k = (size_t)rate;
			if (send_all(fd, body + off, k))
				return;
			off += (off_t)k;
			if (slow && strstr(path, slow) && off < st.st_size)
				sleep(1);
		}
		free(body);
	}
}

int
t_drip_start(struct t_drip *d, const char *root, const char *slow, int rate,
	     char *why, size_t n)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	pid_t parent = getpid();

	memset(d, 0, sizeof(*d));
	if (fd < 0) {
		snprintf(why, n, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		snprintf(why, n, "cannot listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	d->port = ntohs(a.sin_port);
	snprintf(d->url, sizeof(d->url), "http://127.0.0.1:%d", d->port);
	d->pid = fork();
	if (d->pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!d->pid) {
		/* The listener leads its own group: t_drip_stop kills it. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		signal(SIGCHLD, SIG_IGN);
		for (;;) {
			int c = accept(fd, NULL, NULL);

			if (c < 0)
				continue;
			if (!fork()) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				close(fd);
				serve(c, root, slow, rate);
				_exit(0);
			}
			close(c);
		}
	}
	setpgid(d->pid, d->pid);
	close(fd);
	return 0;
}

void
t_drip_stop(struct t_drip *d)
{
	if (!d->pid)
		return;
	kill(-d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	d->pid = 0;
}
