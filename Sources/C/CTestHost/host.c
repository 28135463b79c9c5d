#define _GNU_SOURCE
#include "CTestHost.h"

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
