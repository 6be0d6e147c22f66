/*
 * The rules model's field tables for base/image.h: a model read from a
 * memo (the cache's rules_trees table, by engine/plan/eval_rules.c) is
 * the image of one a load built. Every field of every struct of
 * rules/rules.h is listed in rules/model_image.c; a field added without
 * its line fails image_type_check (rules_image/every_field_is_listed).
 */
#ifndef RIPPLE_RULES_MODEL_IMAGE_H
#define RIPPLE_RULES_MODEL_IMAGE_H

#include "base/image.h"

/* struct rules: its file, text, indexes and arena are written as zeros
 * (the reader sets the name, rebuilds the indexes, owns the arena). */
extern const struct image_type rules_image_rules;
/* What graph/model_memo.c refers to: rules, roots, toolkits by
 * reference; key-value pairs as its nodes hold them. */
extern const struct image_type rules_image_node;
extern const struct image_type rules_image_release;
extern const struct image_type rules_image_root;
extern const struct image_type rules_image_toolkit;
extern const struct image_type rules_image_kv;

#endif
