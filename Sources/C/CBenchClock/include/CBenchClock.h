/*
 * Time stamps for timing one plugin run() at a time, for tactus-lv2bench.
 *
 * A run() of a MIDI sequencer takes tens of nanoseconds: CLOCK_MONOTONIC
 * ticks in 10 ns steps on some virtual machines, too coarse for that. On
 * x86-64 these read the time-stamp counter instead (constant-rate on every
 * x86-64 CPU of the last decade), fenced as Intel's benchmarking note does so
 * that the timed code cannot drift out of the interval; elsewhere they read
 * CLOCK_MONOTONIC in nanoseconds.
 */
#ifndef TACTUS_CBENCHCLOCK_H
#define TACTUS_CBENCHCLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* The stamp before the timed code. */
static inline uint64_t tactus_bench_ticks_begin(void)
{
#if defined(__x86_64__)
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* The stamp after the timed code. */
static inline uint64_t tactus_bench_ticks_end(void)
{
#if defined(__x86_64__)
    unsigned int core;
    uint64_t t = __rdtscp(&core);
    _mm_lfence();
    return t;
#else
    return tactus_bench_ticks_begin();
#endif
}

/* Nanoseconds per tick, measured against CLOCK_MONOTONIC over about `milliseconds`. */
double tactus_bench_ns_per_tick(int milliseconds);

/* What the stamps count: "TSC" or "CLOCK_MONOTONIC". */
const char *tactus_bench_clock_name(void);

#endif
