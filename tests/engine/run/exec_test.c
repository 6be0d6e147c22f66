/*
 * Suite engine_run_exec: the environment every action starts from
 * (exec_env_allowed over rules_env_always).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine/run/exec.h"
#include "rules/rules.h"

/* Every allow-listed variable set, some twice, and one that is not. */
static size_t
full_environ(char store[][64], char **env, size_t cap)
{
	size_t i, n = 0;

	for (i = 0; rules_env_always[i] && n + 3 < cap; i++) {
		snprintf(store[n], 64, "%s=first", rules_env_always[i]);
		env[n] = store[n];
		n++;
		snprintf(store[n], 64, "%s=second", rules_env_always[i]);
		env[n] = store[n];
		n++;
	}
	snprintf(store[n], 64, "SECRET_TOKEN=x");
	env[n] = store[n];
	env[++n] = NULL;
	return i;
}

/*
 * The buffer a caller passes holds the whole list: engine/cli/run.c kept
 * a [16] that nothing tied to the list's length (a 17th name would have
 * been written past it). Here the guard is the list's declared size.
 */
Test(engine_run_exec, allowed_variables_fill_at_most_the_list)
{
	char store[64][64], *env[64];
	const char *out[RULES_ENV_ALWAYS_COUNT + 1];
	size_t listed = full_environ(store, env, 64), n, i;

	cr_assert_eq(listed, RULES_ENV_ALWAYS_COUNT);
	cr_assert_null(rules_env_always[RULES_ENV_ALWAYS_COUNT]);
	out[RULES_ENV_ALWAYS_COUNT] = "canary";
	n = exec_env_allowed(env, out);
	cr_expect_eq(n, RULES_ENV_ALWAYS_COUNT);
	cr_expect_str_eq(out[RULES_ENV_ALWAYS_COUNT], "canary");
	for (i = 0; i < n; i++) {
		cr_expect(strstr(out[i], "=first") != NULL, "%s", out[i]);
		cr_expect(strncmp(out[i], "SECRET", 6), "%s", out[i]);
	}
}
