#include "CBenchClock.h"

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double tactus_bench_ns_per_tick(int milliseconds)
{
#if defined(__x86_64__)
    uint64_t ns0 = monotonic_ns();
    uint64_t t0 = tactus_bench_ticks_begin();
    uint64_t ns1;
    do {
        ns1 = monotonic_ns();
    } while (ns1 - ns0 < (uint64_t)milliseconds * 1000000u);
    uint64_t t1 = tactus_bench_ticks_end();
    return (double)(ns1 - ns0) / (double)(t1 - t0);
#else
    (void)milliseconds;
    return 1.0;
#endif
}

const char *tactus_bench_clock_name(void)
{
#if defined(__x86_64__)
    return "TSC";
#else
    return "CLOCK_MONOTONIC";
#endif
}
