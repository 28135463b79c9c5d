#define _GNU_SOURCE
#include "CRTCheckHooks.h"

#include <dlfcn.h>
#include <stdio.h>

void (*tactus_rtcheck_hooks_begin_fn)(void);
void (*tactus_rtcheck_hooks_end_fn)(void);
static long (*allocations_fn)(void);
static long (*locks_fn)(void);
static const char *(*first_fn)(void);
static void *(*first_caller_fn)(void);

int tactus_rtcheck_hooks_init(void)
{
    if (!tactus_rtcheck_hooks_begin_fn) {
        tactus_rtcheck_hooks_begin_fn = (void (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_begin");
        tactus_rtcheck_hooks_end_fn = (void (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_end");
        allocations_fn = (long (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_allocations");
        locks_fn = (long (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_locks");
        first_fn = (const char *(*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_first");
        first_caller_fn = (void *(*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_first_caller");
    }
    return tactus_rtcheck_hooks_begin_fn && tactus_rtcheck_hooks_end_fn && allocations_fn && locks_fn && first_fn;
}

long tactus_rtcheck_hooks_allocations(void) { return allocations_fn ? allocations_fn() : -1; }
long tactus_rtcheck_hooks_locks(void) { return locks_fn ? locks_fn() : -1; }
const char *tactus_rtcheck_hooks_first(void) { return first_fn ? first_fn() : ""; }

static char caller_text[512];

const char *tactus_rtcheck_hooks_first_caller(void)
{
    void *address = first_caller_fn ? first_caller_fn() : NULL;
    Dl_info info;
    if (!address || !dladdr(address, &info)) return "";
    snprintf(caller_text, sizeof caller_text, "%s in %s", info.dli_sname ? info.dli_sname : "?",
             info.dli_fname ? info.dli_fname : "?");
    return caller_text;
}
