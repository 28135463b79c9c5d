#define _GNU_SOURCE
#include "CTestHost.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

static int host_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list args)
{
    (void)handle;
    fprintf(stderr, "[plugin log %u] ", type);
    return vfprintf(stderr, format, args);
}

static int host_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = host_vprintf(handle, type, format, args);
    va_end(args);
    return n;
}

void tactus_host_log_init(LV2_Log_Log *log)
{
    log->handle = NULL;
    log->printf = host_printf;
    log->vprintf = host_vprintf;
}

static void (*begin_fn)(void);
static void (*end_fn)(void);
static long (*allocations_fn)(void);
static long (*locks_fn)(void);
static const char *(*first_fn)(void);
static void *(*first_caller_fn)(void);

int tactus_host_rtcheck_available(void)
{
    if (!begin_fn) {
        begin_fn = (void (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_begin");
        end_fn = (void (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_end");
        allocations_fn = (long (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_allocations");
        locks_fn = (long (*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_locks");
        first_fn = (const char *(*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_first");
        first_caller_fn = (void *(*)(void))dlsym(RTLD_DEFAULT, "tactus_rtcheck_first_caller");
    }
    return begin_fn && end_fn && allocations_fn && locks_fn && first_fn;
}

void tactus_host_rtcheck_begin(void) { if (begin_fn) begin_fn(); }
void tactus_host_rtcheck_end(void) { if (end_fn) end_fn(); }
long tactus_host_rtcheck_allocations(void) { return allocations_fn ? allocations_fn() : -1; }
long tactus_host_rtcheck_locks(void) { return locks_fn ? locks_fn() : -1; }
const char *tactus_host_rtcheck_first(void) { return first_fn ? first_fn() : ""; }

static char caller_text[512];

const char *tactus_host_rtcheck_first_caller(void)
{
    void *address = first_caller_fn ? first_caller_fn() : NULL;
    Dl_info info;
    if (!address || !dladdr(address, &info)) return "";
    snprintf(caller_text, sizeof caller_text, "%s in %s", info.dli_sname ? info.dli_sname : "?",
             info.dli_fname ? info.dli_fname : "?");
    return caller_text;
}
