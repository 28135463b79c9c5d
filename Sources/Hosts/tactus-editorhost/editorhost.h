/*
 * tactus-editorhost: the pattern editor's own test host (Tests/Editor).
 *
 * It loads tactus_ui.so as a GTK-less LV2 host would: dlopen, lv2ui_descriptor(0),
 * the features urid:map, urid:unmap, ui:parent (one X window of its own per
 * instance), ui:resize and ui:idleInterface, idle about 30 times a second, and
 * port_event calls on the notify port carrying what the plugin would send.
 * Every write_function call is recorded, decoded, as one JSON line in a log.
 * Commands come from a script file or standard input (main.c lists them).
 *
 * Single-threaded: commands, idle calls and X requests all run on the main
 * thread, as the UI thread of a real host.
 *
 * The LV2 headers come before Xlib's: Xlib defines a `Bool` macro that breaks
 * lv2/atom/forge.h when it comes first.
 */
#ifndef TACTUS_EDITORHOST_H
#define TACTUS_EDITORHOST_H

#include <lv2/atom/forge.h>
#include <lv2/atom/util.h>
#include <lv2/log/log.h>
#include <lv2/ui/ui.h>
#include <lv2/worker/worker.h>
#include "CLV2.h"

#include <stdarg.h>

#include <stdbool.h>
#include <stdio.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

/* A load that does not assume the buffer is aligned (a UI may pass any). */
#define LOAD(type, pointer) ({ type value_; memcpy(&value_, (pointer), sizeof value_); value_; })

/* Instances are numbered from 1 in commands and in the log. */
#define EDITORHOST_MAX_INSTANCES 8
/* Idle calls timed per instance between two `frames` commands (later ones are not kept). */
#define EDITORHOST_MAX_FRAMES 8192

/* --- URIDs (urid_table.c) ------------------------------------------------------------- */

/* The host's own map: URIDs count up from 1 in the order URIs are first seen. */
LV2_URID urid_map(const char *uri);
/* The URI of a URID, or NULL when it was never mapped. */
const char *urid_unmap(LV2_URID urid);
/* The features' map and unmap (they call the two functions above). */
extern LV2_URID_Map urid_map_feature;
extern LV2_URID_Unmap urid_unmap_feature;
void urid_table_free(void);

/* --- The log of what the UI writes (message_log.c) ------------------------------------ */

/* Opens the log (a path, or "-" for standard output). False with errno when it cannot. */
bool message_log_open(const char *path);
void message_log_close(void);
/* One write_function call as a JSON line: its number, time, instance, port, format
 * URI, size and the value decoded (an atom with its properties, or a float). */
void message_log_write(int instance, uint32_t port, uint32_t size, uint32_t format, const void *buffer);
/* A message the plugin sent on its notify port in the block ending at `frame`
 * (--plugin), as {"event": "notify", "frame": F, "atom": ...}. */
void message_log_notify(int instance, uint64_t frame, const LV2_Atom *atom);
/* The log's file (NULL when none). */
FILE *message_log_file(void);
/* A line for a host-side event: {"event": NAME, "instance": I, ...extra}. `extra`
 * is either empty or a JSON fragment starting with a comma. */
void message_log_event(const char *name, int instance, const char *extra);
/* `text` as a JSON string (quotes included) into `out`. */
void json_write_string(FILE *out, const char *text, size_t length);

/* --- What the plugin would send (notify_messages.c) ----------------------------------- */

/* An atom built for a port_event call: `atom` points into `storage` (malloc'd). */
typedef struct {
    void *storage;
    const LV2_Atom *atom;
} NotifyMessage;

/* patch:Set of urn:tactus:pattern with `text`, and patch:sequenceNumber when
 * `sequence_number` is not 0 (the plugin's own layout: property, number, value). */
bool notify_pattern(NotifyMessage *message, const char *text, size_t length, int32_t sequence_number);
/* patch:Set of urn:tactus:error (an empty text clears it). */
bool notify_error(NotifyMessage *message, const char *text);
/* patch:Set of urn:tactus:patternFile (an atom:Path). */
bool notify_pattern_file(NotifyMessage *message, const char *path);
/* patch:Set of urn:tactus:droppedNoteOns (an atom:Long). */
bool notify_dropped(NotifyMessage *message, int64_t count);
/* urn:tactus:playhead with time:beat, time:beatsPerMinute, time:speed, and
 * time:beatsPerBar unless `beats_per_bar` is NaN. */
bool notify_playhead(NotifyMessage *message, double beat, double bpm, double speed, double beats_per_bar);
/* urn:tactus:scene: tactus:playing, tactus:queued, tactus:switchBeat (not when NaN), tactus:songEntry, tactus:origin. */
bool notify_scene(NotifyMessage *message, int32_t playing, int32_t queued, double switch_beat, int32_t song_entry, double origin);
void notify_message_free(NotifyMessage *message);

/* --- The UI and its instances (editor_instance.c) ------------------------------------- */

/* An echo of an edit, as the plugin would send it back (the loopback command). */
typedef struct PendingEcho {
    double due;  /* monotonic seconds */
    int32_t sequence_number;
    char *text;
    size_t length;
    struct PendingEcho *next;
} PendingEcho;

typedef struct EditorHost EditorHost;

/* --- The plugin behind an editor (plugin_host.c, --plugin) ----------------------------- */

typedef struct {
    uint8_t *data;
    uint32_t size;
} QueuedMessage;

typedef struct {
    QueuedMessage *items;
    size_t count, capacity;
    size_t bytes;
} MessageQueue;

typedef struct {
    const char *path;  /* tactus.so, or NULL: no plugin, the commands play its part */
    uint32_t block;
    double rate;
    uint32_t control_capacity, notify_capacity;
    size_t from_ui_ring, to_ui_ring, worker_ring;
} PluginOptions;

extern PluginOptions plugin_options;

typedef struct {
    LV2_Handle handle;
    const LV2_Worker_Interface *worker;
    const LV2_State_Interface *state;
    LV2_Worker_Schedule schedule;
    LV2_Log_Log log;
    uint8_t *control, *midi, *notify;
    float mutes[TACTUS_PORT_MUTE_COUNT], thru, clock, pattern, song;
    /* The output controls `playing` and `queued` (§9): written by every run(). */
    float playing, queued;
    MessageQueue to_plugin, to_ui, requests, responses;
    double started;
    uint64_t frames, blocks;
    unsigned long refused_requests, dropped_to_ui;
} PluginSide;

bool plugin_library_load(void);
void plugin_library_unload(bool keep_loaded);
PluginSide *plugin_open(const char *bundle_path);
void plugin_close(PluginSide *plugin);
/* A UI write for the control port, queued for the next block. */
void plugin_from_ui(PluginSide *plugin, int instance, const void *atom, uint32_t size);
/* A UI write for a control input (protocol 0: mute1-8, pattern, song), as a host sets the port's value. */
void plugin_control_from_ui(PluginSide *plugin, uint32_t port, float value);
/* Runs the blocks due by `now` (monotonic seconds). */
void plugin_run_due(PluginSide *plugin, int instance, double now);
/* When the next block is due. */
double plugin_next_due(const PluginSide *plugin);
/* The plugin's writes to the state: the pattern text into `path`; its size, or -1. */
long plugin_save_pattern(PluginSide *plugin, const char *path);
/* restore() with `text` as the pattern (a preset loaded, a session opened). */
bool plugin_restore_pattern(PluginSide *plugin, const char *text, size_t length, uint64_t lane_mutes);

typedef struct {
    EditorHost *host;
    int number;        /* 1-based, as in commands */
    bool open;
    bool idle_stopped;  /* idle returned non-zero: the UI asked to be closed */
    LV2UI_Handle handle;
    Window parent;     /* the host's window, on the host's connection */
    Window widget;     /* the UI's window, as returned in `widget` */
    int parent_x, parent_y;
    LV2UI_Resize resize;  /* ui:resize's data: the UI may keep it while it is open */
    int writes;
    /* The loopback: each pattern edit comes back after `loopback_delay` seconds. */
    bool loopback;
    double loopback_delay;
    PendingEcho *echoes;
    /* How long each idle call took (seconds), since the last `frames` command. */
    double frame_seconds[EDITORHOST_MAX_FRAMES];
    int frame_count;
    /* The plugin behind the editor (--plugin), or NULL. */
    PluginSide *plugin;
} EditorInstance;

struct EditorHost {
    /* ui:scaleFactor given (as an LV2 option) to the instances opened from now on; 0: none given. */
    float scale_factor;
    void *library;
    const LV2UI_Descriptor *descriptor;
    const LV2UI_Idle_Interface *idle;
    char *bundle_path;
    Display *display;  /* the host's own connection: parent windows, pixels */
    EditorInstance instances[EDITORHOST_MAX_INSTANCES];
};

/* Loads the UI binary and opens the host's X connection. False, with a message
 * on standard error, when it cannot. */
bool editor_host_load(EditorHost *host, const char *ui_path);
/* Closes every open instance, the X connection and (unless `keep_loaded`) the library. */
void editor_host_unload(EditorHost *host, bool keep_loaded);
/* Instantiates instance `number` under a new parent window. */
bool editor_open(EditorHost *host, int number);
/* cleanup, then the parent window destroyed. */
void editor_close(EditorHost *host, int number);
/* The instance `number`, or NULL (with a message) when it is not open. */
EditorInstance *editor_instance(EditorHost *host, int number);
/* One idle round: every open instance's idle, due loopback echoes, the host's X events. */
void editor_idle_all(EditorHost *host);
/* A port_event on the notify port, format atom:eventTransfer. */
void editor_send(EditorHost *host, EditorInstance *instance, const NotifyMessage *message);
/* A port_event with a control port's value (format 0, a float), as hosts pass every control input on. */
void editor_send_control(EditorHost *host, EditorInstance *instance, uint32_t port, float value);
/* Resizes the parent and the UI's window, as a toolkit's socket does. */
void editor_resize(EditorHost *host, EditorInstance *instance, int width, int height);
/* The plugin's messages due to the UI, as port_event calls (--plugin). */
void plugin_to_ui(PluginSide *plugin, EditorHost *host, EditorInstance *instance);
/* Runs every plugin's due blocks. */
void editor_plugins_run(EditorHost *host);
/* When the next plugin block is due (a large number without plugins). */
double editor_plugins_next_due(EditorHost *host);
/* The editor's text (TactusEditorText) into `path`: its size, or -1 while not editable. */
long editor_text(EditorHost *host, EditorInstance *instance, const char *path);

/* The UI's window: its id, its place on the screen and its size. */
bool editor_window_geometry(EditorHost *host, EditorInstance *instance, int *x, int *y, int *width, int *height);

double monotonic_seconds(void);

/* --- Pixels (window_pixels.c) ---------------------------------------------------------- */

/* The colour at (x, y) in the UI's window, 0-255 each. */
bool window_pixel(Display *display, Window window, int x, int y, int rgb[3]);
/* How many pixels of the rectangle (x, y, width, height) are within `tolerance`
 * of `rgb` in each channel: a colour looked for in a region (text, a line). */
bool window_count(Display *display, Window window, int x, int y, int width, int height, const int rgb[3], int tolerance,
                  long *count);
/* The UI's window as a PNG. */
bool window_screenshot(Display *display, Window window, const char *path);

#endif
