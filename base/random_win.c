/*
 * base/random.h on Windows: BCryptGenRandom, the system's preferred
 * generator (no algorithm handle to open or close).
 */
#include "base/random.h"

#include <errno.h>

#include "base/wide_win.h"
#include <bcrypt.h>

#include "base/banned.h"

int
random_bytes(void *buf, size_t n, int nonblock)
{
	(void)nonblock;
	if (n > 256)
		return EINVAL;
	return BCryptGenRandom(NULL, buf, (ULONG)n,
			       BCRYPT_USE_SYSTEM_PREFERRED_RNG) >= 0 ? 0 : EIO;
}
