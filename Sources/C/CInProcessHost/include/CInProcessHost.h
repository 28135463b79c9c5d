/*
 * The C part of the in-process LV2 host (TactusLV2Hosted): a log:log whose
 * printf is variadic, which Swift cannot provide. It keeps the last message
 * and counts messages by type, so that tests and fuzzers can check what the
 * plugin told the user, without printing (fuzzers run millions of inputs).
 */
#ifndef TACTUS_CINPROCESSHOST_H
#define TACTUS_CINPROCESSHOST_H

#include <stdint.h>
#include <lv2/log/log.h>

typedef struct TactusLogCapture TactusLogCapture;

/* A capture; `echo` nonzero also prints each message to standard error. */
TactusLogCapture *tactus_log_capture_new(int echo);
void tactus_log_capture_free(TactusLogCapture *capture);

/* Fills `log` so that the plugin's messages go to `capture` (thread-safe: a mutex). */
void tactus_log_capture_attach(TactusLogCapture *capture, LV2_Log_Log *log);

/* Messages logged so far, and the last one (formatted, without the trailing newline).
 * `copy` receives at most `size` bytes including a terminating NUL. */
long tactus_log_capture_count(TactusLogCapture *capture);
void tactus_log_capture_last(TactusLogCapture *capture, char *copy, long size);
void tactus_log_capture_clear(TactusLogCapture *capture);

#endif
