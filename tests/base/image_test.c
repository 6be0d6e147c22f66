/*
 * Suite base_image: typed images (base/image.h). A table that leaves room
 * for an unlisted pointer is refused; a tree reads back as written, NULLs
 * and empty lists kept apart; an image whose offsets, counts or
 * references point anywhere but where the writer put them is refused,
 * never followed.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/image.h"

TestSuite(base_image);

struct leaf {
	const char *name;
	int n;
};

struct item {
	const char *s;
	const char **v;
	size_t n_v;
	struct leaf *leaves;
	size_t n_leaves;
	const struct leaf *pick;	/* into top's leaves */
	unsigned kind;
};

struct top {
	struct leaf *leaves;
	size_t n_leaves;
	struct item *items;
	size_t n_items;
	void *scratch;			/* the reader's */
};

static const struct image_field leaf_f[] = {
	IMAGE_STR_F(struct leaf, name), IMAGE_POD_F(struct leaf, n),
};
static const struct image_type leaf_t =
	IMAGE_TYPE(struct leaf, "leaf", leaf_f, 1);

static const struct image_field item_f[] = {
	IMAGE_STR_F(struct item, s), IMAGE_STRS_F(struct item, v, n_v),
	IMAGE_POD_F(struct item, n_v),
	IMAGE_ARRAY_F(struct item, leaves, leaf_t, n_leaves),
	IMAGE_POD_F(struct item, n_leaves),
	IMAGE_REF_F(struct item, pick, leaf_t),
	IMAGE_ENUM_F(struct item, kind, 3),
};
static const struct image_type item_t =
	IMAGE_TYPE(struct item, "item", item_f, 0);

static const struct image_field top_f[] = {
	IMAGE_ARRAY_F(struct top, leaves, leaf_t, n_leaves),
	IMAGE_POD_F(struct top, n_leaves),
	IMAGE_ARRAY_F(struct top, items, item_t, n_items),
	IMAGE_POD_F(struct top, n_items),
	IMAGE_ZERO_F(struct top, scratch),
};
static const struct image_type top_t =
	IMAGE_TYPE(struct top, "top", top_f, 0);

/* item without its `leaves` line: room for a pointer nobody walks */
static const struct image_field short_f[] = {
	IMAGE_STR_F(struct item, s), IMAGE_STRS_F(struct item, v, n_v),
	IMAGE_POD_F(struct item, n_v),
	IMAGE_POD_F(struct item, n_leaves),
	IMAGE_REF_F(struct item, pick, leaf_t),
	IMAGE_ENUM_F(struct item, kind, 3),
};
static const struct image_type short_t =
	IMAGE_TYPE(struct item, "item", short_f, 0);

static struct leaf leaves[3] = { { "a", 1 }, { NULL, 2 }, { "c", 3 } };
static struct leaf own[1] = { { "a", 9 } };
static const char *strs[3] = { "x", NULL, "a" };
static const char *none[1];
static struct item items[2] = {
	{ "a", strs, 3, own, 1, &leaves[2], 2 },
	{ NULL, none, 0, NULL, 0, NULL, 0 },
};
static struct top tree = { leaves, 3, items, 2, &tree };

/* tree written, packed into *packed */
static void
write_tree(struct buf *packed)
{
	struct image_writer w;

	image_writer_init(&w);
	cr_assert_eq(image_write(&w, &top_t, &tree), 0);
	cr_assert_eq(image_finish(&w, packed), 0);
	image_writer_release(&w);
}

Test(base_image, a_table_with_room_for_a_pointer_is_refused)
{
	char why[160] = "";

	cr_expect_eq(image_type_check(&top_t, why, sizeof(why)), 0, "%s",
		     why);
	cr_expect_eq(image_type_check(&short_t, why, sizeof(why)), -1);
	cr_expect(strstr(why, "item"), "%s", why);
	cr_expect_neq(image_types_digest((const struct image_type *[]){
					 &item_t }, 1),
		      image_types_digest((const struct image_type *[]){
					 &short_t }, 1));
}

Test(base_image, a_tree_reads_back_as_written)
{
	struct buf packed = BUF_INIT;
	struct image_reader r;
	struct arena a;
	struct top *t;
	void *p;

	write_tree(&packed);
	arena_init(&a);
	cr_assert_eq(image_unpack(&r, packed.data, packed.len, &a), 0);
	cr_assert_eq(image_read(&r, &top_t, &p), 0);
	cr_assert_eq(image_read_end(&r), 0);
	t = p;
	cr_assert_eq(t->n_leaves, 3);
	cr_expect_str_eq(t->leaves[0].name, "a");
	cr_expect_null(t->leaves[1].name);
	cr_expect_eq(t->leaves[2].n, 3);
	cr_expect_null(t->scratch);
	cr_assert_eq(t->n_items, 2);
	cr_expect_str_eq(t->items[0].s, "a");
	cr_expect_eq(t->items[0].n_v, 3);
	cr_expect_str_eq(t->items[0].v[0], "x");
	cr_expect_null(t->items[0].v[1]);
	cr_expect_str_eq(t->items[0].v[2], "a");
	cr_expect_eq(t->items[0].leaves[0].n, 9);
	cr_expect_eq(t->items[0].pick, &t->leaves[2], "a reference");
	cr_expect_eq(t->items[0].kind, 2);
	cr_expect_null(t->items[1].s);
	cr_expect_not_null(t->items[1].v, "an empty list is not NULL");
	cr_expect_null(t->items[1].leaves);
	cr_expect_null(t->items[1].pick);
	arena_release(&a);
	buf_release(&packed);
}

/* The tree unpacked; set_slot changes one word of it; read must fail. */
static void
expect_refused(size_t word, uint64_t v, const char *what)
{
	struct buf packed = BUF_INIT;
	struct image_reader r;
	struct arena a;
	void *p;

	write_tree(&packed);
	arena_init(&a);
	cr_assert_eq(image_unpack(&r, packed.data, packed.len, &a), 0);
	cr_assert_lt(word * 8, r.strings_at);
	memcpy(r.img + word * 8, &v, 8);
	cr_expect(image_read(&r, &top_t, &p) || image_read_end(&r), "%s",
		  what);
	arena_release(&a);
	buf_release(&packed);
}

Test(base_image, offsets_counts_and_references_out_of_place_are_refused)
{
	/* words of the image: top (5 words) from 0, its leaves (3 x 2)
	 * from 5, its items (2 x 7) from 11 */
	expect_refused(0, 1, "leaves at the top itself");
	expect_refused(0, 8 * 40 + 1, "leaves past where they are");
	expect_refused(1, 1000000, "more leaves than the image holds");
	expect_refused(1, 2, "fewer leaves: the next array out of place");
	expect_refused(5, UINT64_C(1) << 40, "a string past the end");
	expect_refused(11 + 5, 5 * 8 + 3, "a reference inside a leaf");
	expect_refused(11 + 5, 11 * 8 + 1, "a reference to an item");
	expect_refused(11 + 6, 4, "an enum past its largest value");
	expect_refused(11 + 1, 0, "NULL with a count");
}

Test(base_image, a_cut_or_padded_image_does_not_unpack)
{
	struct buf packed = BUF_INIT;
	struct image_reader r;
	struct arena a;
	size_t i;

	write_tree(&packed);
	arena_init(&a);
	for (i = 0; i < packed.len; i++)
		cr_expect_neq(image_unpack(&r, packed.data, i, &a), 0,
			      "cut at %zu", i);
	buf_addch(&packed, 'x', NULL);
	cr_expect_neq(image_unpack(&r, packed.data, packed.len, &a), 0);
	arena_release(&a);
	buf_release(&packed);
}
