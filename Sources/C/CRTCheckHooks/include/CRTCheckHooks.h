/*
 * The hooks of the realtime check (libTactusRTCheck.so, when preloaded into a
 * host: tactus-lv2host, tactus jack). Counting is switched on and off around
 * the audio-thread calls. The hooks are looked up once, off the audio thread
 * (tactus_rtcheck_hooks_init); calling them is a store to a thread-local
 * flag, so begin and end are marked `@_noLocks` for the checker.
 */
#ifndef TACTUS_CRTCHECKHOOKS_H
#define TACTUS_CRTCHECKHOOKS_H

/* Returns 1 when the interposer is loaded (looks the hooks up on the first call). */
int tactus_rtcheck_hooks_init(void);

extern void (*tactus_rtcheck_hooks_begin_fn)(void);
extern void (*tactus_rtcheck_hooks_end_fn)(void);
__attribute__((swift_attr("@_noLocks"))) static inline void tactus_rtcheck_hooks_begin(void)
{
    if (tactus_rtcheck_hooks_begin_fn) tactus_rtcheck_hooks_begin_fn();
}
__attribute__((swift_attr("@_noLocks"))) static inline void tactus_rtcheck_hooks_end(void)
{
    if (tactus_rtcheck_hooks_end_fn) tactus_rtcheck_hooks_end_fn();
}

/* Counts since the start, or -1 when the interposer is not loaded: allocator
 * calls (malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
 * memalign, valloc) and lock calls (pthread mutex, rwlock, sem_wait, cond wait). */
long tactus_rtcheck_hooks_allocations(void);
long tactus_rtcheck_hooks_locks(void);
/* The name of the first counted call, for the report ("" when none). */
const char *tactus_rtcheck_hooks_first(void);
/* The function (and library) that made the first counted call, when it can be named. */
const char *tactus_rtcheck_hooks_first_caller(void);

#endif
