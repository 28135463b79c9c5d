/*
 * The LV2 headers the plugin glue needs, and what Swift cannot import from them.
 *
 * LV2's URI macros are string concatenations, which Swift does not import, so
 * every URI the plugin maps is re-exported here as a constant. The LV2 log
 * interface is variadic, which Swift cannot call, and the worker's
 * schedule_work is a function pointer, which `@_noLocks` cannot see through:
 * both get a small inline wrapper. schedule_work is realtime-safe by the LV2
 * worker specification (it exists to be called from run()), so its wrapper is
 * marked `@_noLocks` for the checker.
 */
#ifndef TACTUS_CLV2_H
#define TACTUS_CLV2_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <lv2/core/lv2.h>
#include <lv2/atom/atom.h>
#include <lv2/urid/urid.h>
#include <lv2/midi/midi.h>
#include <lv2/time/time.h>
#include <lv2/patch/patch.h>
#include <lv2/state/state.h>
#include <lv2/worker/worker.h>
#include <lv2/log/log.h>
#include <lv2/options/options.h>
#include <lv2/buf-size/buf-size.h>

#define TACTUS_URI "urn:tactus:sequencer"
/* The pattern editor, an ui:X11UI in the same bundle (docs/plugin.md, "The editor"). */
#define TACTUS_EDITOR_URI "urn:tactus:editor"

/* The plugin's ports, numbered as plugin.lv2/tactus.ttl numbers them (a test
 * reads the TTL and checks it against these). The plugin and every host in
 * the project take the indices from here. */
#define TACTUS_PORT_CONTROL 0u
#define TACTUS_PORT_MIDI_OUT 1u
#define TACTUS_PORT_NOTIFY 2u
/* Lane mutes (timing contract §7.6): control ports for the first eight lanes. */
#define TACTUS_PORT_MUTE_FIRST 3u
#define TACTUS_PORT_MUTE_COUNT 8u
/* MIDI thru (timing contract §7.5): input notes also go to the output while it is 1. */
#define TACTUS_PORT_MIDI_THRU 11u
/* MIDI clock out (timing contract §12): the clock's messages on the MIDI output while it is 1. */
#define TACTUS_PORT_CLOCK 12u
/* Patterns and songs (timing contract §9.5, §9.6): a request for pattern k when
 * `pattern` changes to k >= 1 at a block start; the song plays while `song` is 1. */
#define TACTUS_PORT_PATTERN 13u
#define TACTUS_PORT_SONG 14u
/* What plays (timing contract §9, docs/plugin.md): output controls written at
 * every run(), the pattern playing and the one queued, 1-based (0: none). */
#define TACTUS_PORT_PLAYING 15u
#define TACTUS_PORT_QUEUED 16u
#define TACTUS_PORT_COUNT 17u

extern const char *const tactus_uri_pattern;
extern const char *const tactus_uri_patternFile;
extern const char *const tactus_uri_error;
extern const char *const tactus_uri_droppedNoteOns;
extern const char *const tactus_uri_laneMutes;
extern const char *const tactus_uri_editor;
extern const char *const tactus_uri_editorOpen;
extern const char *const tactus_uri_editorClosed;
extern const char *const tactus_uri_playhead;
extern const char *const tactus_uri_audition;
/* The pattern text between the plugin and its editor (docs/plugin.md, "Messages"). */
extern const char *const tactus_uri_patternChange;
extern const char *const tactus_uri_textPiece;
extern const char *const tactus_uri_textReceipt;
extern const char *const tactus_uri_textHash;
extern const char *const tactus_uri_textOffset;
extern const char *const tactus_uri_textLength;
extern const char *const tactus_uri_textWindow;
/* Patterns and songs between the plugin and its editor (docs/plugin.md, "Messages"). */
extern const char *const tactus_uri_scene;
extern const char *const tactus_uri_playing;
extern const char *const tactus_uri_queued;
extern const char *const tactus_uri_switchBeat;
extern const char *const tactus_uri_songEntry;
extern const char *const tactus_uri_origin;
extern const char *const tactus_uri_request;
extern const char *const tactus_uri_when;
extern const char *const tactus_uri_ignoredRequests;

extern const char *const tactus_uri_atom_Blank;
extern const char *const tactus_uri_atom_Object;
extern const char *const tactus_uri_atom_Sequence;
extern const char *const tactus_uri_atom_Chunk;
extern const char *const tactus_uri_atom_String;
extern const char *const tactus_uri_atom_Path;
extern const char *const tactus_uri_atom_URID;
extern const char *const tactus_uri_atom_Int;
extern const char *const tactus_uri_atom_Long;
extern const char *const tactus_uri_atom_Float;
extern const char *const tactus_uri_atom_Double;
extern const char *const tactus_uri_atom_Bool;
extern const char *const tactus_uri_atom_eventTransfer;
extern const char *const tactus_uri_midi_MidiEvent;
extern const char *const tactus_uri_time_Position;
extern const char *const tactus_uri_time_frame;
extern const char *const tactus_uri_time_speed;
extern const char *const tactus_uri_time_bar;
extern const char *const tactus_uri_time_barBeat;
extern const char *const tactus_uri_time_beat;
extern const char *const tactus_uri_time_beatsPerBar;
extern const char *const tactus_uri_time_beatsPerMinute;
extern const char *const tactus_uri_time_beatUnit;
extern const char *const tactus_uri_patch_Set;
extern const char *const tactus_uri_patch_Get;
extern const char *const tactus_uri_patch_property;
extern const char *const tactus_uri_patch_value;
extern const char *const tactus_uri_patch_subject;
extern const char *const tactus_uri_patch_sequenceNumber;
extern const char *const tactus_uri_midi_noteNumber;
extern const char *const tactus_uri_midi_velocity;
extern const char *const tactus_uri_midi_channel;
extern const char *const tactus_uri_state_StateChanged;
extern const char *const tactus_uri_log_Error;
extern const char *const tactus_uri_log_Warning;
extern const char *const tactus_uri_log_Note;
extern const char *const tactus_uri_urid_map;
extern const char *const tactus_uri_worker_schedule;
extern const char *const tactus_uri_state_mapPath;
extern const char *const tactus_uri_state_freePath;
extern const char *const tactus_uri_log_log;

/* The editor's text, for tests: extension_data(TACTUS_EDITOR_TEXT_URI) of tactus_ui.so
 * (Tests/Editor: the plugin's text and the editor's are compared byte for byte). */
#define TACTUS_EDITOR_TEXT_URI "urn:tactus:editorText"
typedef struct {
    /* The pattern text the editor shows, into `buffer` (at most `capacity` bytes); returns its
     * size, or -1 while the editor does not hold the plugin's text (loading, or too large). */
    int64_t (*text)(void *ui_handle, uint8_t *buffer, uint64_t capacity);
} TactusEditorText;

/* log:log printf, without varargs: `message` is printed as it is, with a newline. */
void tactus_log(const LV2_Log_Log *log, LV2_URID type, const char *message);

/* worker:schedule, callable from run() (realtime-safe by the worker spec). */
__attribute__((swift_attr("@_noLocks")))
static inline LV2_Worker_Status
tactus_schedule_work(const LV2_Worker_Schedule *schedule, uint32_t size, const void *data)
{
    return schedule->schedule_work(schedule->handle, size, data);
}

/* A worker's respond callback, called from work() (non-realtime). */
static inline LV2_Worker_Status
tactus_worker_respond(LV2_Worker_Respond_Function respond, LV2_Worker_Respond_Handle handle,
                      uint32_t size, const void *data)
{
    return respond(handle, size, data);
}

/* A mutex for the non-realtime side (save, restore and the worker): never taken in run(). */
typedef struct TactusMutex TactusMutex;
TactusMutex *tactus_mutex_new(void);
void tactus_mutex_free(TactusMutex *mutex);
void tactus_mutex_lock(TactusMutex *mutex);
void tactus_mutex_unlock(TactusMutex *mutex);

/* Reads a whole file (non-realtime). Returns a malloc'd buffer and its size, or NULL
 * with an errno value, or TACTUS_ERROR_NOT_A_FILE for a FIFO or a socket (never waited on). */
#define TACTUS_ERROR_NOT_A_FILE (-1)
uint8_t *tactus_read_file(const char *path, size_t max_size, size_t *size, int *error_number);
const char *tactus_error_text(int error_number);

#endif
