/*
 * Random bytes from the operating system: getrandom(2) on Linux
 * (base/random_posix.c), BCryptGenRandom with the system's preferred
 * generator on Windows (base/random_win.c). For names and ids that must
 * not collide between processes, never for keys.
 */
#ifndef RIPPLE_BASE_RANDOM_H
#define RIPPLE_BASE_RANDOM_H

#include <stddef.h>

/*
 * Fill buf[0..n) (n at most 256). nonblock: fail with EAGAIN rather than
 * wait for the kernel's pool at early boot (Linux; Windows never waits).
 * Returns 0, or an errno value (EIO for a short read).
 */
int random_bytes(void *buf, size_t n, int nonblock);

#endif
