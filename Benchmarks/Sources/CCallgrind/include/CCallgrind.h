/*
 * Callgrind's client requests as functions Swift can call (valgrind's
 * <valgrind/callgrind.h> defines them as macros). Outside valgrind, and
 * where that header is not installed, they do nothing.
 */
#ifndef TACTUS_CCALLGRIND_H
#define TACTUS_CCALLGRIND_H

/* Zeroes the counts and starts collecting (run valgrind with --collect-atstart=no). */
void tactus_callgrind_begin(void);

/* Stops collecting and writes a profile whose trigger names `label`. */
void tactus_callgrind_end(const char *label);

#endif
