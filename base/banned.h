/*
 * Functions ripple does not use, after git's banned.h: unbounded copies,
 * non-reentrant parsers and clocks. Include last in every .c file.
 */
#ifndef RIPPLE_BASE_BANNED_H
#define RIPPLE_BASE_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_ripple

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)

#endif
