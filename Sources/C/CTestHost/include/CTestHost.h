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


#endif
