/*
 * git-tls-probe: libgit2 linked as the ripple executable links it (with
 * engine/cli/git_certs.o and configure's --wrap flags), for suite
 * engine_cli_git_certs, since ripple itself never opens a TLS stream
 * through libgit2:
 *
 *   git-tls-probe certs          set a CA file (GIT_OPT_SET_SSL_CERT_LOCATIONS)
 *   git-tls-probe connect URL    connect a detached remote to URL
 *   git-tls-probe negotiate URL  the same, offering the default
 *                                credentials (Negotiate, through GSSAPI)
 *
 * Prints "init" once git_libgit2_init returned, then "RC MESSAGE": the
 * call's result and libgit2's error message. Exits 0 unless it could not
 * run the call (2: usage, 1: libgit2 did not initialize).
 */
#include <git2.h>
#include <stdio.h>
#include <string.h>

/* The process's default credentials (Kerberos' ticket), when allowed. */
static int
default_credentials(git_credential **out, const char *url,
		    const char *user, unsigned int allowed, void *payload)
{
	(void)url;
	(void)user;
	(void)payload;
	if (!(allowed & GIT_CREDENTIAL_DEFAULT))
		return GIT_PASSTHROUGH;
	return git_credential_default_new(out);
}

int
main(int argc, char **argv)
{
	git_remote_callbacks cb;
	git_remote *remote = NULL;
	const git_error *e;
	int rc;

	if (argc < 2 || (strcmp(argv[1], "certs") &&
			 ((strcmp(argv[1], "connect") &&
			   strcmp(argv[1], "negotiate")) || argc != 3))) {
		fputs("usage: git-tls-probe certs | connect URL | "
		      "negotiate URL\n", stderr);
		return 2;
	}
	if (git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION) < 0)
		return 1;
	if (!strcmp(argv[1], "negotiate"))
		cb.credentials = default_credentials;
	if (git_libgit2_init() < 0)
		return 1;
	/* Unbuffered: strace shows this write between the two phases. */
	setvbuf(stdout, NULL, _IONBF, 0);
	fputs("init\n", stdout);
	if (!strcmp(argv[1], "certs")) {
		rc = git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS,
				      "/etc/ssl/certs/ca-certificates.crt",
				      NULL);
	} else {
		rc = git_remote_create_detached(&remote, argv[2]);
		if (rc == 0)
			rc = git_remote_connect(remote, GIT_DIRECTION_FETCH,
						&cb, NULL, NULL);
	}
	e = git_error_last();
	printf("%d %s\n", rc, rc < 0 && e ? e->message : "");
	git_remote_free(remote);
	git_libgit2_shutdown();
	return 0;
}
