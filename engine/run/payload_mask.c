/*
 * What payload digests leave out (engine/run/payload_int.h): the
 * package's own version, wherever its bytes spell it, and METADATA's long
 * description. Shared by wheels (payload.c) and conda packages
 * (payload_conda.c).
 */
#include "engine/run/payload_int.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/digest.h"
#include "base/banned.h"

static void
token_add(struct payload_tokens *t, const char *s, size_t n)
{
	if (n < 3 || n >= sizeof(t->text[0]) || t->n == PAYLOAD_TOKENS)
		return;
	memcpy(t->text[t->n], s, n);
	t->text[t->n][n] = '\0';
	t->len[t->n++] = n;
}

void
payload_tokens_of(struct payload_tokens *t, const char *v, size_t n)
{
	const char *plus = memchr(v, '+', n), *dev;
	size_t pub = plus ? (size_t)(plus - v) : n;

	t->n = 0;
	token_add(t, v, n);
	if (plus)
		token_add(t, plus + 1, n - pub - 1);
	for (dev = v; dev + 3 < v + pub; dev++)
		if (!memcmp(dev, "dev", 3) && dev[3] >= '0' && dev[3] <= '9') {
			size_t k = 3;

			while (dev + k < v + pub && dev[k] >= '0' &&
			       dev[k] <= '9')
				k++;
			token_add(t, dev, k);
			break;
		}
}

/* The first `tn` bytes `tok` in p[0..n), or NULL (memmem is not C11 and
 * not on Windows). */
static const char *
find(const char *p, size_t n, const char *tok, size_t tn)
{
	const char *end = p + n;

	while (tn && (size_t)(end - p) >= tn) {
		const char *at = memchr(p, tok[0], (size_t)(end - p) - tn + 1);

		if (!at)
			return NULL;
		if (!memcmp(at, tok, tn))
			return at;
		p = at + 1;
	}
	return NULL;
}

/* Append `len` bytes to b with every token spelled "{version}". */
int
payload_masked(struct buf *b, const struct payload_tokens *t, const char *p, size_t len,
       struct error *err)
{
	const char *end = p + len;
	int rc = 0;

	while (!rc && p < end) {
		const char *best = NULL;
		size_t k, best_len = 0;

		for (k = 0; k < t->n; k++) {
			const char *at = find(p, (size_t)(end - p),
					      t->text[k], t->len[k]);

			if (at && (!best || at < best)) {
				best = at;
				best_len = t->len[k];
			}
		}
		if (!best)
			return buf_add(b, p, (size_t)(end - p), err);
		rc = buf_add(b, p, (size_t)(best - p), err);
		if (!rc)
			rc = buf_add(b, "{version}", 9, err);
		p = best + best_len;
	}
	return rc;
}

/* digest_add_str of s with the version masked. */
int
payload_add_name(struct digest_state *st, const struct payload_tokens *t, const char *s,
	 struct error *err)
{
	struct buf b;
	int rc;

	buf_init(&b, 0);
	rc = payload_masked(&b, t, s, strlen(s), err);
	if (!rc)
		rc = buf_addch(&b, '\0', err);
	if (!rc)
		digest_add_str(st, b.data);
	buf_release(&b);
	return rc;
}

/* METADATA's headers without Description: (folded lines included), into
 * b; the Version header's value into *ver (NULL when none). */
int
payload_metadata_headers(const char *text, size_t len, struct buf *b,
		 const char **ver, size_t *ver_len, struct error *err)
{
	const char *p = text, *end = text + len;
	int skipping = 0, rc = 0;

	*ver = NULL;
	*ver_len = 0;
	while (!rc && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t k = n;

		while (k && (p[k - 1] == '\n' || p[k - 1] == '\r'))
			k--;
		if (!k)
			break;	/* the body: the long description */
		if (p[0] != ' ' && p[0] != '\t')
			skipping = k >= 12 && !strncmp(p, "Description:", 12);
		if (!*ver && k > 8 && !strncmp(p, "Version:", 8)) {
			*ver = p + 8;
			*ver_len = k - 8;
			while (*ver_len && (**ver == ' ' || **ver == '\t')) {
				(*ver)++;
				(*ver_len)--;
			}
		}
		if (!skipping)
			rc = buf_add(b, p, k, err);
		p += n;
	}
	return rc;
}

