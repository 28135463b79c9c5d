#include "CInProcessHost.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TactusLogCapture {
    pthread_mutex_t mutex;
    int echo;
    long count;
    char last[16384];
};

TactusLogCapture *tactus_log_capture_new(int echo)
{
    TactusLogCapture *c = (TactusLogCapture *)calloc(1, sizeof(TactusLogCapture));
    if (!c) return NULL;
    pthread_mutex_init(&c->mutex, NULL);
    c->echo = echo;
    return c;
}

void tactus_log_capture_free(TactusLogCapture *c)
{
    if (!c) return;
    pthread_mutex_destroy(&c->mutex);
    free(c);
}

static int capture_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list args)
{
    (void)type;
    TactusLogCapture *c = (TactusLogCapture *)handle;
    char text[sizeof c->last];
    int n = vsnprintf(text, sizeof text, format, args);
    size_t length = strlen(text);
    while (length > 0 && text[length - 1] == '\n') text[--length] = 0;
    pthread_mutex_lock(&c->mutex);
    c->count++;
    memcpy(c->last, text, length + 1);
    if (c->echo) fprintf(stderr, "[plugin log] %s\n", text);
    pthread_mutex_unlock(&c->mutex);
    return n;
}

static int capture_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = capture_vprintf(handle, type, format, args);
    va_end(args);
    return n;
}

void tactus_log_capture_attach(TactusLogCapture *c, LV2_Log_Log *log)
{
    log->handle = c;
    log->printf = capture_printf;
    log->vprintf = capture_vprintf;
}

long tactus_log_capture_count(TactusLogCapture *c)
{
    pthread_mutex_lock(&c->mutex);
    long n = c->count;
    pthread_mutex_unlock(&c->mutex);
    return n;
}

void tactus_log_capture_last(TactusLogCapture *c, char *copy, long size)
{
    if (size <= 0) return;
    pthread_mutex_lock(&c->mutex);
    strncpy(copy, c->last, (size_t)size - 1);
    copy[size - 1] = 0;
    pthread_mutex_unlock(&c->mutex);
}

void tactus_log_capture_clear(TactusLogCapture *c)
{
    pthread_mutex_lock(&c->mutex);
    c->count = 0;
    c->last[0] = 0;
    pthread_mutex_unlock(&c->mutex);
}
