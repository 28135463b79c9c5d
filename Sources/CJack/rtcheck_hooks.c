#define _GNU_SOURCE
#include "CJack.h"

#include <dlfcn.h>

void (*tactus_jack_rtcheck_begin_fn)(void);
void (*tactus_jack_rtcheck_end_fn)(void);
static long (*allocations_fn)(void);
static long (*locks_fn)(void);
static const char *(*first_fn)(void);

int tactus_jack_rtcheck_init(void)
{
    tactus_jack_rtcheck_begin_fn = (void (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_begin");
    tactus_jack_rtcheck_end_fn = (void (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_end");
    allocations_fn = (long (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_allocations");
    locks_fn = (long (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_locks");
    first_fn = (const char *(*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_first");
    return tactus_jack_rtcheck_begin_fn && tactus_jack_rtcheck_end_fn && allocations_fn && locks_fn && first_fn;
}

long tactus_jack_rtcheck_allocations(void) { return allocations_fn ? allocations_fn() : -1; }
long tactus_jack_rtcheck_locks(void) { return locks_fn ? locks_fn() : -1; }
const char *tactus_jack_rtcheck_first(void) { return first_fn ? first_fn() : ""; }
