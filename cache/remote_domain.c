/*
 * Trust domains of the remote cache: a ref's domain id (a safe URL path
 * segment made from data), and where a handle's AC entries go. Which
 * domain a run writes and which it reads is the record source's rule
 * (engine/plan/remote.c); this file only names the paths.
 */
#include "cache/remote.h"
#include "cache/remote_int.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/banned.h"

int
remote_domain_id(const char *ref, char *out, struct error *err)
{
	static const char ns[] = REMOTE_DOMAIN_NAMESPACE;
	char buf[sizeof(ns) + 1024];
	struct remote_digest d;
	const char *p;
	size_t len, k = 0;
	int rc;

	out[0] = '\0';
	if (!ref || !ref[0])
		return error_set(err, ERROR_INVALID, "a trust domain needs a "
				 "ref");
	len = strlen(ref);
	if (len > sizeof(buf) - sizeof(ns))
		return error_set(err, ERROR_INVALID, "ref '%.64s...' is too "
				 "long for a trust domain", ref);
	memcpy(buf, ns, sizeof(ns));	/* with its NUL */
	memcpy(buf + sizeof(ns), ref, len);
	rc = remote_digest_buf(buf, sizeof(ns) + len, &d, err);
	if (rc)
		return rc;
	p = strncmp(ref, "refs/", 5) ? ref : ref + 5;
	for (; *p && k < REMOTE_DOMAIN_SLUG_MAX; p++) {
		char c = *p;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			out[k++] = c;
		else if (k && out[k - 1] != '-')
			out[k++] = '-';
	}
	while (k && out[k - 1] == '-')
		k--;
	if (k)
		out[k++] = '-';
	memcpy(out + k, d.hash, REMOTE_DOMAIN_HASH_LEN);
	out[k + REMOTE_DOMAIN_HASH_LEN] = '\0';
	return 0;
}

int
remote_set_domain(struct remote *r, const char *domain, struct error *err)
{
	if (domain && !remote_domain_valid(domain))
		return error_set(err, ERROR_INVALID, "'%.80s' is not a trust "
				 "domain id", domain);
	remote_ac_space(domain, r->ac_space);
	remote_cas_space(domain, r->cas_space);
	snprintf(r->domain, sizeof(r->domain), "%s", domain ? domain : "");
	return 0;
}

const char *
remote_domain(const struct remote *r)
{
	return r->domain[0] ? r->domain : NULL;
}
