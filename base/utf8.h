/*
 * UTF-8 checks for text that leaves ripple as JSON: git paths and file
 * names are bytes, JSON strings must be UTF-8.
 */
#ifndef RIPPLE_BASE_UTF8_H
#define RIPPLE_BASE_UTF8_H

#include <stddef.h>

/*
 * Length of the valid UTF-8 sequence at s[0..n) (1 to 4 bytes), or 0 when
 * s[0] does not start one (a stray continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF, a truncated sequence). RFC 3629.
 */
size_t utf8_sequence_len(const unsigned char *s, size_t n);

/* 1 when the NUL-terminated s is valid UTF-8, else 0. */
int utf8_is_valid(const char *s);

/*
 * A copy of s (NUL-terminated) in which every byte that is not part of a
 * valid UTF-8 sequence is written as the four characters "\xHH" (lowercase
 * hex), so that the text can go into JSON and still names the bytes.
 * Returns a string to free with mem_free, or NULL when out of memory.
 */
char *utf8_escape(const char *s);

#endif
