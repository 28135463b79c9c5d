/*
 * The CLAP plugin's entry, factory, plugin table and note ports (entry.c),
 * and the Swift glue's entry points they call (the @_cdecl functions in
 * Sources/Formats/CLAP/TactusCLAP/Plugin.swift).
 */
#ifndef TACTUS_CCLAPENTRY_H
#define TACTUS_CCLAPENTRY_H

#include <CCLAP.h>

#define TACTUS_CLAP_ID "org.tactus.sequencer"

void *tactus_clap_new(const clap_host_t *host);
void tactus_clap_free(void *instance);
bool tactus_clap_activate(void *instance, double sample_rate, uint32_t min_frames, uint32_t max_frames);
void tactus_clap_deactivate(void *instance);
void tactus_clap_reset(void *instance);
clap_process_status tactus_clap_process(void *instance, const clap_process_t *process);
bool tactus_clap_state_save(void *instance, const clap_ostream_t *stream);
bool tactus_clap_state_load(void *instance, const clap_istream_t *stream);

/* The parameters (timing contract §11.4): the LV2 plugin's control ports,
 * their LV2 port indices as ids: mute1 ... mute8 are 3 to 10, midi_thru 11,
 * clock 12 (§12: MIDI clock on the note output). */
#define TACTUS_CLAP_PARAM_FIRST_MUTE 3
#define TACTUS_CLAP_PARAM_MUTE_COUNT 8
#define TACTUS_CLAP_PARAM_MIDI_THRU 11
#define TACTUS_CLAP_PARAM_CLOCK 12
bool tactus_clap_param_value(void *instance, clap_id id, double *value);
void tactus_clap_params_flush(void *instance, const clap_input_events_t *in);
/* Tells the host the values changed (clap.params rescan), after a state load. Main thread. */
void tactus_clap_params_rescan(const clap_host_t *host);

/* The host's log extension (CLAP 1.1's ext/log.h, which Debian's dpf-source
 * lacks: declared from the published ABI). Severity 3 is CLAP_LOG_ERROR. */
#define TACTUS_CLAP_LOG_ERROR 3
/* Writes message to the host's log, or to stderr when the host has no log. Main thread. */
void tactus_clap_log(const clap_host_t *host, int32_t severity, const char *message);

#endif
