/* Suites for base/: errors, buffers, arenas, string vectors, spelling. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/spell.h"
#include "base/strmap.h"
#include "base/strv.h"
#include "base/utf8.h"

Test(base_error, first_error_is_kept)
{
	struct error err;

	error_init(&err);
	cr_expect_eq(error_set(&err, ERROR_INVALID, "first %d", 1),
		     ERROR_INVALID);
	cr_expect_eq(error_at(&err, ERROR_IO, "f.yml", 2, 3, "second"),
		     ERROR_IO);
	cr_expect_eq(err.code, ERROR_INVALID);
	cr_expect_str_eq(err.msg, "first 1");
	cr_expect_eq(err.line, 0);
}

Test(base_error, position_node_hint_and_prefix)
{
	struct error err;

	error_init(&err);
	error_at(&err, ERROR_INVALID, "ripple.yml", 12, 5, "unknown key '%s'",
		 "toolkti");
	error_node(&err, "artifact:a");
	error_node(&err, "artifact:b");
	error_hint(&err, "did you mean '%s'?", "toolkit");
	error_prefix(&err, "loading");
	cr_expect_str_eq(err.file, "ripple.yml");
	cr_expect_eq(err.line, 12);
	cr_expect_eq(err.col, 5);
	cr_expect_str_eq(err.node, "artifact:a");
	cr_expect_str_eq(err.hint, "did you mean 'toolkit'?");
	cr_expect_str_eq(err.msg, "loading: unknown key 'toolkti'");
}

/* error_init of a used error leaves "no error": code, message, file,
 * position, node and hint all empty, and the next error is set whole. */
Test(base_error, init_resets_a_used_error)
{
	struct error err;

	memset(&err, 'x', sizeof(err));
	error_init(&err);
	cr_expect_eq(err.code, 0);
	error_at(&err, ERROR_INVALID, "ripple.yml", 3, 4, "bad %s", "thing");
	error_node(&err, "artifact:a");
	error_hint(&err, "fix %d", 1);
	error_init(&err);
	cr_expect_eq(err.code, 0);
	cr_expect_str_eq(err.msg, "");
	cr_expect_str_eq(err.file, "");
	cr_expect_str_eq(err.node, "");
	cr_expect_str_eq(err.hint, "");
	cr_expect_eq(err.line, 0);
	cr_expect_eq(err.col, 0);
	error_set(&err, ERROR_NOT_FOUND, "no");
	cr_expect_eq(err.code, ERROR_NOT_FOUND);
	cr_expect_str_eq(err.msg, "no");
	cr_expect_str_eq(err.file, "");
	cr_expect_str_eq(err.node, "");
	cr_expect_str_eq(err.hint, "");
}

Test(base_error, null_error_still_returns_code)
{
	cr_expect_eq(error_set(NULL, ERROR_NOMEM, "x"), ERROR_NOMEM);
}

Test(base_error, long_message_is_truncated_not_overflowed)
{
	struct error err;
	char big[2000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	error_init(&err);
	error_set(&err, ERROR_INVALID, "%s", big);
	cr_expect_eq(strlen(err.msg), ERROR_MSG_MAX - 1);
}

Test(base_error, list_keeps_limit_and_sorts)
{
	struct error_list list;
	struct error e;
	int i;

	error_list_init(&list, 3);
	for (i = 5; i > 0; i--) {
		error_init(&e);
		error_at(&e, ERROR_INVALID, "a.yml", (unsigned)i, 1, "e%d", i);
		error_list_add(&list, &e);
	}
	cr_expect_eq(list.n, 3);
	cr_expect_eq(list.dropped, 2);
	error_list_sort(&list);
	cr_expect_eq(list.items[0].line, 3);
	cr_expect_eq(list.items[2].line, 5);
	error_list_release(&list);
}

Test(base_buf, appends_and_formats)
{
	struct buf b;

	buf_init(&b, 0);
	cr_expect_str_eq(b.data, "");
	cr_expect_eq(buf_addstr(&b, "ab", NULL), 0);
	cr_expect_eq(buf_addch(&b, 'c', NULL), 0);
	cr_expect_eq(buf_addf(&b, NULL, "%d-%s", 42, "x"), 0);
	cr_expect_str_eq(b.data, "abc42-x");
	cr_expect_eq(b.len, 7);
	buf_reset(&b);
	cr_expect_str_eq(b.data, "");
	buf_release(&b);
}

/* buf_addu64 writes what "%llu" writes. */
Test(base_buf, addu64_is_printf_llu)
{
	static const unsigned long long v[] = {
		0, 1, 9, 10, 99, 100, 4294967295ull, 4294967296ull,
		10000000000000000000ull, 18446744073709551615ull,
	};
	char want[32];
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		buf_reset(&b);
		cr_expect_eq(buf_addch(&b, '<', NULL), 0);
		cr_expect_eq(buf_addu64(&b, v[i], NULL), 0);
		snprintf(want, sizeof(want), "<%llu", v[i]);
		cr_expect_str_eq(b.data, want);
	}
	buf_release(&b);
}

Test(base_buf, cap_refuses_growth)
{
	struct buf b;
	struct error err;

	buf_init(&b, 4);
	error_init(&err);
	cr_expect_eq(buf_addstr(&b, "abcd", &err), 0);
	cr_expect_eq(buf_addch(&b, 'e', &err), ERROR_INVALID);
	cr_expect(strstr(err.msg, "limit of 4 bytes") != NULL);
	cr_expect_str_eq(b.data, "abcd");
	buf_release(&b);
}

Test(base_buf, detach_hands_over_memory)
{
	struct buf b;
	char *s;

	buf_init(&b, 0);
	s = buf_detach(&b);
	cr_expect_str_eq(s, "");
	mem_free(s);
	buf_addstr(&b, "hello", NULL);
	s = buf_detach(&b);
	cr_expect_str_eq(s, "hello");
	cr_expect_eq(b.len, 0);
	mem_free(s);
}

Test(base_buf, allocation_failure_is_reported)
{
	struct buf b;
	struct error err;

	buf_init(&b, 0);
	error_init(&err);
	mem_fault_after(0);
	cr_expect_eq(buf_addstr(&b, "x", &err), ERROR_NOMEM);
	cr_expect(mem_fault_fired());
	mem_fault_after(-1);
	cr_expect_eq(err.code, ERROR_NOMEM);
	cr_expect_eq(b.len, 0);
	buf_release(&b);
}

Test(base_mem, fault_once_fails_one_allocation_only)
{
	void *a, *b, *c;

	mem_fault_once(1);
	a = mem_alloc(8);
	b = mem_alloc(8);
	c = mem_alloc(8);
	cr_expect(mem_fault_fired());
	mem_fault_after(-1);
	cr_expect_not_null(a);
	cr_expect_null(b);
	cr_expect_not_null(c);
	mem_free(a);
	mem_free(c);
}

Test(base_arena, strings_and_big_items)
{
	struct arena a;
	char *s, *big;
	int i;

	arena_init(&a);
	s = arena_printf(&a, "%s:%d", "node", 7);
	cr_expect_str_eq(s, "node:7");
	big = arena_alloc(&a, 100000);
	cr_assert_not_null(big);
	memset(big, 1, 100000);
	for (i = 0; i < 10000; i++)
		cr_assert_not_null(arena_strdup(&a, "some text"));
	cr_expect_str_eq(s, "node:7");
	cr_expect_str_eq(arena_strndup(&a, "abcdef", 3), "abc");
	cr_expect_str_eq(arena_concat(&a, "source:", "pkg", NULL),
			 "source:pkg");
	cr_expect_str_eq(arena_concat(&a, "a", "/", "b"), "a/b");
	cr_expect_str_eq(arena_concat(&a, NULL, "", NULL), "");
	arena_release(&a);
	arena_release(&a);
}

Test(base_strv, sort_unique_is_byte_order)
{
	struct strv sv;

	strv_init(&sv, 1);
	strv_push(&sv, "b", NULL);
	strv_push(&sv, "B", NULL);
	strv_push(&sv, "a", NULL);
	strv_push(&sv, "b", NULL);
	strv_sort_unique(&sv);
	cr_assert_eq(sv.n, 3);
	cr_expect_str_eq(sv.v[0], "B");
	cr_expect_str_eq(sv.v[1], "a");
	cr_expect_str_eq(sv.v[2], "b");
	cr_expect_null(sv.v[3]);
	cr_expect_eq(strv_find(&sv, "a"), 1);
	cr_expect_eq(strv_find(&sv, "z"), -1);
	strv_release(&sv);
}

/* Insertion up to 8 strings, merging past (with its buffer on the stack
 * up to 128, allocated past): one order, equal strings kept in the order
 * they came, on every system (msvcrt's qsort is not stable). */
Test(base_strv, sort_strings_small_and_large_agree)
{
	/* Rows, not literals: the equal ones at distinct addresses. */
	static const char words[12][8] = {
		"pkg/b", "pkg", "pkg/a", "", "pkg/a", "z", "pkg-1", "pkg/",
		"pkg/b/c", "a", "pkg/a", "b",
	};
	static char rows[300][8];
	static const char *v[300], *w[300];
	static const size_t sizes[] = { 9, 12, 17, 64, 128, 129, 257, 300 };
	size_t n, i, s;

	for (i = 0; i < 300; i++)
		memcpy(rows[i], words[(i * 7) % 12], 8);
	for (s = 0; s < 13 + sizeof(sizes) / sizeof(*sizes); s++) {
		n = s <= 12 ? s : sizes[s - 13];
		for (i = 0; i < n; i++)
			v[i] = w[i] = s <= 12 ? words[i] : rows[i];
		sort_strings(v, n);
		/* The reference: a stable insertion by index. */
		for (i = 1; i < n; i++) {
			const char *x = w[i];
			size_t j;

			for (j = i; j > 0 && strcmp(w[j - 1], x) > 0; j--)
				w[j] = w[j - 1];
			w[j] = x;
		}
		for (i = 0; i < n; i++)
			if (v[i] != w[i])
				break;
		cr_expect_eq(i, n, "n %zu: %zu '%s' '%s'", n, i,
			     i < n ? v[i] : "", i < n ? w[i] : "");
	}
}

Test(base_spell, distance_counts_transposition_once)
{
	cr_expect_eq(spell_distance("toolkit", "toolkti", 5), 1);
	cr_expect_eq(spell_distance("abc", "abc", 5), 0);
	cr_expect_eq(spell_distance("", "abc", 5), 3);
	cr_expect_eq(spell_distance("kitten", "sitting", 1), 2);
}

Test(base_spell, suggests_nearest_within_limit)
{
	const char *keys[] = { "toolkits", "roots", "sources", "artifacts" };

	cr_expect_str_eq(spell_suggest("toolkit", keys, 4), "toolkits");
	cr_expect_str_eq(spell_suggest("artefacts", keys, 4), "artifacts");
	cr_expect_null(spell_suggest("zzz", keys, 4));
}

Test(base_utf8, invalid_bytes_are_escaped_and_valid_text_kept)
{
	char *e = utf8_escape("a\xff b\xc3\xa9 \xe2\x82 \xc0\xaf \xed\xa0\x80");

	cr_assert_not_null(e);
	cr_expect_str_eq(e, "a\\xff b\xc3\xa9 \\xe2\\x82 \\xc0\\xaf "
			    "\\xed\\xa0\\x80");
	mem_free(e);
	cr_expect(utf8_is_valid("caf\xc3\xa9 \xf0\x9f\x98\x80"));
	cr_expect(!utf8_is_valid("\xf4\x90\x80\x80"));
}

Test(base_strmap, put_replaces_get_finds_and_growth_keeps_all)
{
	static char names[5000][8];
	struct strmap m = STRMAP_INIT;
	int one = 1, two = 2;
	size_t i;

	cr_expect_null(strmap_get(&m, "a"));
	cr_assert_eq(strmap_put(&m, "a", &one, NULL), 0);
	cr_expect_eq(strmap_get(&m, "a"), &one);
	cr_assert_eq(strmap_put(&m, "a", &two, NULL), 0);
	cr_expect_eq(strmap_get(&m, "a"), &two);
	cr_expect_eq(m.n, 1);
	cr_expect_null(strmap_get(&m, ""));
	for (i = 0; i < 5000; i++) {
		snprintf(names[i], sizeof(names[i]), "k%zu", i);
		cr_assert_eq(strmap_put(&m, names[i], names[i], NULL), 0);
	}
	cr_expect_eq(m.n, 5001);
	for (i = 0; i < 5000; i++)
		cr_expect_eq(strmap_get(&m, names[i]), names[i]);
	cr_expect_null(strmap_get(&m, "k5000"));
	strmap_release(&m);
	cr_expect_null(strmap_get(&m, "a"));
	mem_fault_once(0);
	cr_expect_eq(strmap_put(&m, "a", &one, NULL), ERROR_NOMEM);
	mem_fault_after(-1);
	cr_expect_null(strmap_get(&m, "a"));
	strmap_release(&m);
}
