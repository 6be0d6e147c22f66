/*
 * base/random.h on Linux: getrandom(2).
 */
#include "base/random.h"

#include <errno.h>
#include <sys/random.h>
#include <sys/types.h>

#include "base/banned.h"

int
random_bytes(void *buf, size_t n, int nonblock)
{
	ssize_t got;

	do
		got = getrandom(buf, n, nonblock ? GRND_NONBLOCK : 0);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno;
	return (size_t)got == n ? 0 : EIO;
}
