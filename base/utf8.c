/*
 * UTF-8 validation (RFC 3629) and the "\xHH" escaping of invalid bytes for
 * text that must go into JSON.
 */
#include "base/utf8.h"

#include <stdio.h>
#include <string.h>

#include "base/mem.h"

#include "base/banned.h"

size_t
utf8_sequence_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned long cp;

	if (!n)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int
utf8_is_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), k;

	while (n) {
		k = utf8_sequence_len(p, n);
		if (!k)
			return 0;
		p += k;
		n -= k;
	}
	return 1;
}

char *
utf8_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), k, o = 0;
	char *out = mem_alloc(4 * n + 1);

	if (!out)
		return NULL;
	while (n) {
		k = utf8_sequence_len(p, n);
		if (k) {
			memcpy(out + o, p, k);
			o += k;
		} else {
			snprintf(out + o, 5, "\\x%02x", *p);
			o += 4;
			k = 1;
		}
		p += k;
		n -= k;
	}
	out[o] = '\0';
	return out;
}
