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
 * clock 12 (§12: MIDI clock on the note output), pattern 13 (0-128, §9.6)
 * and song 14 (§9.5, on by default). */
#define TACTUS_CLAP_PARAM_FIRST_MUTE 3
#define TACTUS_CLAP_PARAM_MUTE_COUNT 8
#define TACTUS_CLAP_PARAM_MIDI_THRU 11
#define TACTUS_CLAP_PARAM_CLOCK 12
#define TACTUS_CLAP_PARAM_PATTERN 13
#define TACTUS_CLAP_PARAM_SONG 14
bool tactus_clap_param_value(void *instance, clap_id id, double *value);
void tactus_clap_params_flush(void *instance, const clap_input_events_t *in, const clap_output_events_t *out);
/* Tells the host the values changed (clap.params rescan), after a state load. Main thread. */
void tactus_clap_params_rescan(const clap_host_t *host);

/* The host's log extension (CLAP 1.1's ext/log.h, which Debian's dpf-source
 * lacks: declared from the published ABI). Severity 3 is CLAP_LOG_ERROR. */
#define TACTUS_CLAP_LOG_ERROR 3
/* Writes message to the host's log, or to stderr when the host has no log. Main thread. */
void tactus_clap_log(const clap_host_t *host, int32_t severity, const char *message);

/* --- the editor (gui.c): the gui and timer-support extensions, and the calls into the editor ---
 * Main thread. The Swift glue's side (Sources/Formats/CLAP/TactusCLAP/Editor.swift): */
bool tactus_clap_gui_create(void *instance);
void tactus_clap_gui_destroy(void *instance);
bool tactus_clap_gui_set_scale(void *instance, double scale);
/* The editor's size in device pixels, or (minimum) the smallest it takes. */
bool tactus_clap_gui_get_size(void *instance, bool minimum, uint32_t *width, uint32_t *height);
bool tactus_clap_gui_set_size(void *instance, uint32_t width, uint32_t height);
bool tactus_clap_gui_set_parent(void *instance, unsigned long x11_window);
bool tactus_clap_gui_set_visible(void *instance, bool visible);
void tactus_clap_on_timer(void *instance, clap_id timer);
/* The editor's write function (an LV2UI_Write_Function; controller: the instance). */
void tactus_clap_editor_write(void *controller, uint32_t port, uint32_t size, uint32_t format, const void *buffer);

extern const clap_plugin_gui_t tactus_clap_gui;
extern const clap_plugin_timer_support_t tactus_clap_timer_support;
/* Whether the editor is linked in (tactus.clap: yes; the glue's SwiftPM builds: no). */
bool tactus_clap_has_editor(void);
/* The editor (Sources/Formats/LV2/TactusUI/EditorEntry.swift), or nothing when not linked in. */
void *tactus_clap_editor_embed(unsigned long parent, void *instance, double scale);
void tactus_clap_editor_port_event(void *editor, uint32_t port, uint32_t size, uint32_t format, const void *buffer);
void tactus_clap_editor_idle(void *editor);
void tactus_clap_editor_close(void *editor);
void tactus_clap_editor_set_visible(void *editor, bool visible);
void tactus_clap_editor_set_size(void *editor, uint32_t width, uint32_t height);
void tactus_clap_editor_size(void *editor, double scale, bool minimum, uint32_t *width, uint32_t *height);
/* The process's URID map (an LV2_URID_Map), shared by the glue and its editor. */
const void *tactus_clap_urid_map(void);
/* The host's timer-support, params.request_flush and state.mark_dirty, when it has them. */
bool tactus_clap_register_timer(const clap_host_t *host, uint32_t period_ms, clap_id *timer);
void tactus_clap_unregister_timer(const clap_host_t *host, clap_id timer);
void tactus_clap_request_flush(const clap_host_t *host);
void tactus_clap_mark_dirty(const clap_host_t *host);

#endif
