/*
 * What the test host needs in C: a log:log implementation (its printf is
 * variadic, which Swift cannot provide), and access to the realtime-check
 * interposer when it is preloaded.
 */
#ifndef TACTUS_CTESTHOST_H
#define TACTUS_CTESTHOST_H

#include <stdint.h>
#include <lv2/log/log.h>

/* Fills `log` with functions printing "[plugin TYPE] message" to standard error. */
void tactus_host_log_init(LV2_Log_Log *log);

/* The interposer's counters (libTactusRTCheck.so, preloaded), or 0 when it is not loaded. */
int tactus_host_rtcheck_available(void);
void tactus_host_rtcheck_begin(void);
void tactus_host_rtcheck_end(void);
/* Counts since the start: allocator calls (malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc, memalign, valloc) and lock calls (pthread mutex, rwlock, sem_wait, cond wait). */
long tactus_host_rtcheck_allocations(void);
long tactus_host_rtcheck_locks(void);
/* The name of the first counted call, for the report ("" when none). */
const char *tactus_host_rtcheck_first(void);
/* The function (and library) that made the first counted call, when it can be named. */
const char *tactus_host_rtcheck_first_caller(void);

#endif
