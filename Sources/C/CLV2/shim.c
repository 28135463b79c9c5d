#include "CLV2.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const tactus_uri_pattern = "urn:tactus:pattern";
const char *const tactus_uri_patternFile = "urn:tactus:patternFile";
const char *const tactus_uri_error = "urn:tactus:error";
const char *const tactus_uri_droppedNoteOns = "urn:tactus:droppedNoteOns";
const char *const tactus_uri_laneMutes = "urn:tactus:laneMutes";
const char *const tactus_uri_editor = TACTUS_EDITOR_URI;
const char *const tactus_uri_editorOpen = "urn:tactus:editorOpen";
const char *const tactus_uri_editorClosed = "urn:tactus:editorClosed";
const char *const tactus_uri_playhead = "urn:tactus:playhead";
const char *const tactus_uri_audition = "urn:tactus:audition";
const char *const tactus_uri_patternChange = "urn:tactus:patternChange";
const char *const tactus_uri_textPiece = "urn:tactus:textPiece";
const char *const tactus_uri_textReceipt = "urn:tactus:textReceipt";
const char *const tactus_uri_textHash = "urn:tactus:textHash";
const char *const tactus_uri_textOffset = "urn:tactus:textOffset";
const char *const tactus_uri_textLength = "urn:tactus:textLength";
const char *const tactus_uri_textWindow = "urn:tactus:textWindow";
const char *const tactus_uri_scene = "urn:tactus:scene";
const char *const tactus_uri_playing = "urn:tactus:playing";
const char *const tactus_uri_queued = "urn:tactus:queued";
const char *const tactus_uri_switchBeat = "urn:tactus:switchBeat";
const char *const tactus_uri_songEntry = "urn:tactus:songEntry";
const char *const tactus_uri_origin = "urn:tactus:origin";
const char *const tactus_uri_request = "urn:tactus:request";
const char *const tactus_uri_when = "urn:tactus:when";
const char *const tactus_uri_ignoredRequests = "urn:tactus:ignoredRequests";

const char *const tactus_uri_atom_Blank = LV2_ATOM__Blank;
const char *const tactus_uri_atom_Object = LV2_ATOM__Object;
const char *const tactus_uri_atom_Sequence = LV2_ATOM__Sequence;
const char *const tactus_uri_atom_Chunk = LV2_ATOM__Chunk;
const char *const tactus_uri_atom_String = LV2_ATOM__String;
const char *const tactus_uri_atom_Path = LV2_ATOM__Path;
const char *const tactus_uri_atom_URID = LV2_ATOM__URID;
const char *const tactus_uri_atom_Int = LV2_ATOM__Int;
const char *const tactus_uri_atom_Long = LV2_ATOM__Long;
const char *const tactus_uri_atom_Float = LV2_ATOM__Float;
const char *const tactus_uri_atom_Double = LV2_ATOM__Double;
const char *const tactus_uri_atom_Bool = LV2_ATOM__Bool;
const char *const tactus_uri_atom_eventTransfer = LV2_ATOM__eventTransfer;
const char *const tactus_uri_midi_MidiEvent = LV2_MIDI__MidiEvent;
const char *const tactus_uri_time_Position = LV2_TIME__Position;
const char *const tactus_uri_time_frame = LV2_TIME__frame;
const char *const tactus_uri_time_speed = LV2_TIME__speed;
const char *const tactus_uri_time_bar = LV2_TIME__bar;
const char *const tactus_uri_time_barBeat = LV2_TIME__barBeat;
const char *const tactus_uri_time_beat = LV2_TIME__beat;
const char *const tactus_uri_time_beatsPerBar = LV2_TIME__beatsPerBar;
const char *const tactus_uri_time_beatsPerMinute = LV2_TIME__beatsPerMinute;
const char *const tactus_uri_time_beatUnit = LV2_TIME__beatUnit;
const char *const tactus_uri_patch_Set = LV2_PATCH__Set;
const char *const tactus_uri_patch_Get = LV2_PATCH__Get;
const char *const tactus_uri_patch_property = LV2_PATCH__property;
const char *const tactus_uri_patch_value = LV2_PATCH__value;
const char *const tactus_uri_patch_subject = LV2_PATCH__subject;
const char *const tactus_uri_patch_sequenceNumber = LV2_PATCH__sequenceNumber;
const char *const tactus_uri_midi_noteNumber = LV2_MIDI__noteNumber;
const char *const tactus_uri_midi_velocity = LV2_MIDI__velocity;
const char *const tactus_uri_midi_channel = LV2_MIDI__channel;
const char *const tactus_uri_state_StateChanged = LV2_STATE__StateChanged;
const char *const tactus_uri_log_Error = LV2_LOG__Error;
const char *const tactus_uri_log_Warning = LV2_LOG__Warning;
const char *const tactus_uri_log_Note = LV2_LOG__Note;
const char *const tactus_uri_urid_map = LV2_URID__map;
const char *const tactus_uri_worker_schedule = LV2_WORKER__schedule;
const char *const tactus_uri_state_mapPath = LV2_STATE__mapPath;
const char *const tactus_uri_state_freePath = LV2_STATE__freePath;
const char *const tactus_uri_log_log = LV2_LOG__log;

void tactus_log(const LV2_Log_Log *log, LV2_URID type, const char *message)
{
    if (log) {
        log->printf(log->handle, type, "tactus: %s\n", message);
    } else {
        fprintf(stderr, "tactus: %s\n", message);
    }
}

struct TactusMutex {
    pthread_mutex_t mutex;
};

TactusMutex *tactus_mutex_new(void)
{
    TactusMutex *m = (TactusMutex *)malloc(sizeof(TactusMutex));
    if (m) pthread_mutex_init(&m->mutex, NULL);
    return m;
}

void tactus_mutex_free(TactusMutex *m)
{
    if (!m) return;
    pthread_mutex_destroy(&m->mutex);
    free(m);
}

void tactus_mutex_lock(TactusMutex *m) { pthread_mutex_lock(&m->mutex); }
void tactus_mutex_unlock(TactusMutex *m) { pthread_mutex_unlock(&m->mutex); }

uint8_t *tactus_read_file(const char *path, size_t max_size, size_t *size, int *error_number)
{
    *size = 0;
    *error_number = 0;
    /* Non-blocking: opening a FIFO for reading would otherwise wait for a
     * writer forever, and the worker with it. A FIFO or a socket is refused;
     * for a regular file the flag changes nothing. (No fstat: it would tie
     * the plugin to glibc 2.33.) */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *error_number = errno;
        return NULL;
    }
    if (lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE) {
        *error_number = TACTUS_ERROR_NOT_A_FILE;
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        *error_number = errno;
        close(fd);
        return NULL;
    }
    size_t capacity = 4096, used = 0;
    uint8_t *buffer = (uint8_t *)malloc(capacity);
    while (buffer) {
        if (used == capacity) {
            if (capacity >= max_size) {
                *error_number = EFBIG;
                free(buffer);
                buffer = NULL;
                break;
            }
            capacity *= 2;
            uint8_t *bigger = (uint8_t *)realloc(buffer, capacity);
            if (!bigger) {
                free(buffer);
                buffer = NULL;
                *error_number = ENOMEM;
                break;
            }
            buffer = bigger;
        }
        size_t n = fread(buffer + used, 1, capacity - used, f);
        used += n;
        if (n == 0) {
            if (ferror(f)) {
                *error_number = errno ? errno : EIO;
                free(buffer);
                buffer = NULL;
            }
            break;
        }
    }
    fclose(f);
    if (buffer) *size = used;
    return buffer;
}

const char *tactus_error_text(int error_number)
{
    if (error_number == TACTUS_ERROR_NOT_A_FILE) return "a pipe or a socket, not a file";
    return strerror(error_number);
}

/*
 * The Embedded Swift standard library seeds its Hasher with arc4random_buf,
 * which glibc provides only since 2.36. The plugin never hashes, but the
 * linker keeps the reference, and with it a requirement for GLIBC_2.36 that
 * would stop the plugin loading on older systems. A local definition (hidden,
 * so not exported) resolves it inside the plugin.
 */
#include <sys/random.h>

__attribute__((visibility("hidden"))) void arc4random_buf(void *buffer, size_t size)
{
    uint8_t *p = (uint8_t *)buffer;
    while (size > 0) {
        ssize_t n = getrandom(p, size, 0);
        if (n <= 0) {
            /* Seed quality is irrelevant here: nothing is hashed. */
            memset(p, 0x5a, size);
            return;
        }
        p += n;
        size -= (size_t)n;
    }
}
