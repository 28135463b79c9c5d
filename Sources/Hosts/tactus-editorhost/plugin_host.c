/* The plugin itself behind each editor (--plugin): tactus.so loaded in the
 * host's process, as a host loads it, with what lies between a plugin and
 * its UI in a real host, bounded as the smallest host bounds it:
 *
 *   - the UI's writes wait in a queue (--from-ui-ring bytes, 64 KiB by
 *     default, as Qtractor's; a write that does not fit is dropped and
 *     logged) and go into the control port at the next block, as many as
 *     its capacity (--control-capacity) holds; the rest wait a block;
 *   - the notify port (--notify-capacity, 64 KiB) is read after each block
 *     into a queue for the UI (--to-ui-ring bytes, 64 KiB as Qtractor's; a
 *     message that does not fit is dropped and logged, as Qtractor and jalv
 *     drop), delivered as port_event calls at the next idle;
 *   - the worker runs after each block, synchronously, on the requests of
 *     that block; a request that would take the block's requests past
 *     --worker-ring bytes (4 KiB, as jalv's and Qtractor's rings) is refused
 *     with LV2_WORKER_ERR_NO_SPACE; responses reach the plugin before the next
 *     block.
 *
 * Blocks (--block frames at --rate) run in real time, on the main thread
 * between commands and idle calls: a block is due when the clock passes its
 * start. Every message the plugin sends is logged ("notify"), so a test
 * sees when an edit was installed (its announcement) and how long after the
 * UI wrote it. */
#define _GNU_SOURCE
#include "editorhost.h"

#include <dlfcn.h>
#include <errno.h>
#include <lv2/worker/worker.h>

PluginOptions plugin_options = {
    .path = NULL, .block = 256, .rate = 48000, .control_capacity = 65536, .notify_capacity = 65536,
    .from_ui_ring = 65536, .to_ui_ring = 65536, .worker_ring = 4096,
};

static void *library;
static const LV2_Descriptor *descriptor;
static double clock_start;

/* --- Queues of messages -------------------------------------------------------------- */

static bool queue_push(MessageQueue *queue, const void *data, uint32_t size, size_t limit)
{
    if (queue->bytes + size > limit) return false;
    if (queue->count == queue->capacity) {
        size_t grown = queue->capacity ? queue->capacity * 2 : 64;
        QueuedMessage *bigger = realloc(queue->items, grown * sizeof *bigger);
        if (!bigger) return false;
        queue->items = bigger;
        queue->capacity = grown;
    }
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return false;
    memcpy(copy, data, size);
    queue->items[queue->count++] = (QueuedMessage){copy, size};
    queue->bytes += size;
    return true;
}

/* Removes the first `n` messages (freeing them). */
static void queue_drop_front(MessageQueue *queue, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        queue->bytes -= queue->items[i].size;
        free(queue->items[i].data);
    }
    memmove(queue->items, queue->items + n, (queue->count - n) * sizeof *queue->items);
    queue->count -= n;
}

static void queue_free(MessageQueue *queue)
{
    queue_drop_front(queue, queue->count);
    free(queue->items);
    *queue = (MessageQueue){0};
}

/* --- Features ------------------------------------------------------------------------ */

static LV2_Worker_Status schedule_work(LV2_Worker_Schedule_Handle handle, uint32_t size, const void *data)
{
    PluginSide *plugin = handle;
    if (!queue_push(&plugin->requests, data, size, plugin_options.worker_ring)) {
        plugin->refused_requests++;
        return LV2_WORKER_ERR_NO_SPACE;
    }
    return LV2_WORKER_SUCCESS;
}

static LV2_Worker_Status respond(LV2_Worker_Respond_Handle handle, uint32_t size, const void *data)
{
    PluginSide *plugin = handle;
    return queue_push(&plugin->responses, data, size, SIZE_MAX) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE;
}

static int log_printf(LV2_Log_Handle handle, LV2_URID type, const char *format, ...)
{
    (void)handle;
    (void)type;
    va_list args;
    va_start(args, format);
    char text[2048];
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == '\n') text[--n] = 0;
    FILE *sink = message_log_file();
    if (sink) {
        fprintf(sink, "{\"n\":0,\"ms\":%.1f,\"event\":\"plugin-log\",\"text\":", (monotonic_seconds() - clock_start) * 1000);
        json_write_string(sink, text, n);
        fputs("}\n", sink);
        fflush(sink);
    }
    return (int)n;
}

static int log_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *format, va_list args)
{
    (void)handle;
    char text[2048];
    vsnprintf(text, sizeof text, format, args);
    return log_printf(NULL, type, "%s", text);
}

/* --- Loading -------------------------------------------------------------------------- */

bool plugin_library_load(void)
{
    if (!plugin_options.path) return true;
    library = dlopen(plugin_options.path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "tactus-editorhost: cannot load the plugin %s: %s\n", plugin_options.path, dlerror());
        return false;
    }
    const LV2_Descriptor *(*descriptor_at)(uint32_t) = (const LV2_Descriptor *(*)(uint32_t))dlsym(library, "lv2_descriptor");
    descriptor = descriptor_at ? descriptor_at(0) : NULL;
    if (!descriptor || strcmp(descriptor->URI, TACTUS_URI) != 0) {
        fprintf(stderr, "tactus-editorhost: %s has no %s\n", plugin_options.path, TACTUS_URI);
        return false;
    }
    clock_start = monotonic_seconds();
    return true;
}

void plugin_library_unload(bool keep_loaded)
{
    if (library && !keep_loaded) dlclose(library);
    library = NULL;
}

static uint8_t *port_buffer(uint32_t capacity)
{
    /* An atom sequence: 8-byte aligned, room for the header and `capacity` bytes of body. */
    return aligned_alloc(16, ((capacity + sizeof(LV2_Atom) + 15) / 16) * 16);
}

PluginSide *plugin_open(const char *bundle_path)
{
    if (!descriptor) return NULL;
    PluginSide *plugin = calloc(1, sizeof *plugin);
    if (!plugin) return NULL;
    plugin->schedule = (LV2_Worker_Schedule){plugin, schedule_work};
    plugin->log = (LV2_Log_Log){plugin, log_printf, log_vprintf};
    const LV2_Feature map = {LV2_URID__map, &urid_map_feature};
    const LV2_Feature unmap = {LV2_URID__unmap, &urid_unmap_feature};
    const LV2_Feature schedule = {LV2_WORKER__schedule, &plugin->schedule};
    const LV2_Feature log = {LV2_LOG__log, &plugin->log};
    const LV2_Feature *features[] = {&map, &unmap, &schedule, &log, NULL};
    plugin->handle = descriptor->instantiate(descriptor, plugin_options.rate, bundle_path, features);
    if (!plugin->handle) {
        free(plugin);
        return NULL;
    }
    plugin->worker = descriptor->extension_data ? descriptor->extension_data(LV2_WORKER__interface) : NULL;
    plugin->state = descriptor->extension_data ? descriptor->extension_data(LV2_STATE__interface) : NULL;
    plugin->control = port_buffer(plugin_options.control_capacity);
    plugin->midi = port_buffer(1 << 16);
    plugin->notify = port_buffer(plugin_options.notify_capacity);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_CONTROL, plugin->control);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_MIDI_OUT, plugin->midi);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_NOTIFY, plugin->notify);
    for (uint32_t i = 0; i < TACTUS_PORT_MUTE_COUNT; ++i)
        descriptor->connect_port(plugin->handle, TACTUS_PORT_MUTE_FIRST + i, &plugin->mutes[i]);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_MIDI_THRU, &plugin->thru);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_CLOCK, &plugin->clock);
    plugin->song = 1;  /* the port's default */
    descriptor->connect_port(plugin->handle, TACTUS_PORT_PATTERN, &plugin->pattern);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_SONG, &plugin->song);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_PLAYING, &plugin->playing);
    descriptor->connect_port(plugin->handle, TACTUS_PORT_QUEUED, &plugin->queued);
    if (descriptor->activate) descriptor->activate(plugin->handle);
    plugin->started = monotonic_seconds();
    return plugin;
}

void plugin_close(PluginSide *plugin)
{
    if (!plugin) return;
    if (descriptor->deactivate) descriptor->deactivate(plugin->handle);
    descriptor->cleanup(plugin->handle);
    queue_free(&plugin->to_plugin);
    queue_free(&plugin->to_ui);
    queue_free(&plugin->requests);
    queue_free(&plugin->responses);
    free(plugin->control);
    free(plugin->midi);
    free(plugin->notify);
    free(plugin);
}

/* --- Messages ------------------------------------------------------------------------ */

void plugin_from_ui(PluginSide *plugin, int instance, const void *atom, uint32_t size)
{
    if (!queue_push(&plugin->to_plugin, atom, size, plugin_options.from_ui_ring)) {
        char extra[96];
        snprintf(extra, sizeof extra, ",\"size\":%u,\"queued\":%zu", size, plugin->to_plugin.bytes);
        message_log_event("dropped-to-plugin", instance, extra);
    }
}

void plugin_control_from_ui(PluginSide *plugin, uint32_t port, float value)
{
    if (port >= TACTUS_PORT_MUTE_FIRST && port < TACTUS_PORT_MUTE_FIRST + TACTUS_PORT_MUTE_COUNT)
        plugin->mutes[port - TACTUS_PORT_MUTE_FIRST] = value;
    else if (port == TACTUS_PORT_PATTERN) plugin->pattern = value;
    else if (port == TACTUS_PORT_SONG) plugin->song = value;
}

/* --- Blocks --------------------------------------------------------------------------- */

static void run_worker(PluginSide *plugin)
{
    if (!plugin->worker) {
        queue_drop_front(&plugin->requests, plugin->requests.count);
        return;
    }
    /* Requests made by work() itself (none here) would wait for the next block. */
    size_t n = plugin->requests.count;
    for (size_t i = 0; i < n; ++i)
        plugin->worker->work(plugin->handle, respond, plugin, plugin->requests.items[i].size, plugin->requests.items[i].data);
    queue_drop_front(&plugin->requests, n);
}

static void deliver_responses(PluginSide *plugin)
{
    size_t n = plugin->responses.count;
    for (size_t i = 0; i < n; ++i)
        if (plugin->worker && plugin->worker->work_response)
            plugin->worker->work_response(plugin->handle, plugin->responses.items[i].size, plugin->responses.items[i].data);
    queue_drop_front(&plugin->responses, n);
    if (plugin->worker && plugin->worker->end_run) plugin->worker->end_run(plugin->handle);
}

static void run_block(PluginSide *plugin, int instance)
{
    deliver_responses(plugin);
    /* The control port: the UI's messages that fit, in order. */
    LV2_Atom_Sequence *control = (LV2_Atom_Sequence *)plugin->control;
    control->atom.type = urid_map(LV2_ATOM__Sequence);
    control->atom.size = sizeof(LV2_Atom_Sequence_Body);
    control->body.unit = 0;
    control->body.pad = 0;
    size_t taken = 0;
    while (taken < plugin->to_plugin.count) {
        const QueuedMessage *m = &plugin->to_plugin.items[taken];
        uint32_t event_size = (uint32_t)lv2_atom_pad_size(sizeof(LV2_Atom_Event) + m->size - sizeof(LV2_Atom));
        if (control->atom.size + event_size > plugin_options.control_capacity) break;
        LV2_Atom_Event *event = (LV2_Atom_Event *)((uint8_t *)&control->body + control->atom.size);
        event->time.frames = 0;
        memcpy(&event->body, m->data, m->size);
        memset((uint8_t *)&event->body + m->size, 0, event_size - sizeof(LV2_Atom_Event) - (m->size - sizeof(LV2_Atom)));
        control->atom.size += event_size;
        ++taken;
    }
    queue_drop_front(&plugin->to_plugin, taken);
    LV2_Atom_Sequence *midi = (LV2_Atom_Sequence *)plugin->midi;
    midi->atom.type = urid_map(LV2_ATOM__Chunk);
    midi->atom.size = 1 << 16;
    LV2_Atom_Sequence *notify = (LV2_Atom_Sequence *)plugin->notify;
    notify->atom.type = urid_map(LV2_ATOM__Chunk);
    notify->atom.size = plugin_options.notify_capacity;

    descriptor->run(plugin->handle, plugin_options.block);

    /* What the plugin said: logged, and queued for the UI as a host's ring would hold it. */
    if (notify->atom.type == urid_map(LV2_ATOM__Sequence)) {
        LV2_ATOM_SEQUENCE_FOREACH(notify, event) {
            uint32_t size = (uint32_t)sizeof(LV2_Atom) + event->body.size;
            message_log_notify(instance, plugin->frames + (uint64_t)event->time.frames, &event->body);
            if (!queue_push(&plugin->to_ui, &event->body, size, plugin_options.to_ui_ring)) {
                plugin->dropped_to_ui++;
                char extra[96];
                snprintf(extra, sizeof extra, ",\"size\":%u,\"queued\":%zu", size, plugin->to_ui.bytes);
                message_log_event("dropped-to-ui", instance, extra);
            }
        }
    }
    run_worker(plugin);
    plugin->frames += plugin_options.block;
    plugin->blocks++;
}

void plugin_run_due(PluginSide *plugin, int instance, double now)
{
    double due = (now - plugin->started) * plugin_options.rate;
    /* A host that fell far behind (valgrind) does not run a burst to catch up. */
    if (due - (double)plugin->frames > plugin_options.rate) plugin->frames = (uint64_t)due - plugin_options.block;
    while ((double)plugin->frames + plugin_options.block <= due) run_block(plugin, instance);
}

double plugin_next_due(const PluginSide *plugin)
{
    return plugin->started + (double)(plugin->frames + plugin_options.block) / plugin_options.rate;
}

void plugin_to_ui(PluginSide *plugin, EditorHost *host, EditorInstance *instance)
{
    size_t n = plugin->to_ui.count;
    for (size_t i = 0; i < n && instance->open; ++i)
        host->descriptor->port_event(instance->handle, TACTUS_PORT_NOTIFY, plugin->to_ui.items[i].size,
                                     urid_map(LV2_ATOM__eventTransfer), plugin->to_ui.items[i].data);
    queue_drop_front(&plugin->to_ui, n);
}

/* --- State ---------------------------------------------------------------------------- */

typedef struct {
    uint8_t *text;
    size_t size;
} SavedPattern;

static LV2_State_Status store(LV2_State_Handle handle, uint32_t key, const void *value, size_t size, uint32_t type, uint32_t flags)
{
    (void)flags;
    SavedPattern *saved = handle;
    if (key != urid_map(tactus_uri_pattern) || type != urid_map(LV2_ATOM__String)) return LV2_STATE_SUCCESS;
    free(saved->text);
    saved->text = malloc(size ? size : 1);
    if (!saved->text) return LV2_STATE_ERR_UNKNOWN;
    memcpy(saved->text, value, size);
    saved->size = strnlen((const char *)value, size);
    return LV2_STATE_SUCCESS;
}

long plugin_save_pattern(PluginSide *plugin, const char *path)
{
    if (!plugin->state) return -1;
    SavedPattern saved = {NULL, 0};
    LV2_State_Status status = plugin->state->save(plugin->handle, store, &saved, LV2_STATE_IS_POD | LV2_STATE_IS_PORTABLE, NULL);
    long written = -1;
    FILE *f = status == LV2_STATE_SUCCESS && saved.text ? fopen(path, "wb") : NULL;
    if (f) {
        if (fwrite(saved.text, 1, saved.size, f) == saved.size) written = (long)saved.size;
        if (fclose(f) != 0) written = -1;
    }
    free(saved.text);
    return written;
}

typedef struct {
    const char *text;
    size_t size;
    int64_t lane_mutes;  /* urn:tactus:laneMutes, stored only when not 0 (as the plugin saves it) */
} RestoredPattern;

static const void *retrieve(LV2_State_Handle handle, uint32_t key, size_t *size, uint32_t *type, uint32_t *flags)
{
    RestoredPattern *restored = handle;
    if (key == urid_map(tactus_uri_laneMutes) && restored->lane_mutes != 0) {
        *size = sizeof restored->lane_mutes;
        *type = urid_map(LV2_ATOM__Long);
        *flags = LV2_STATE_IS_POD | LV2_STATE_IS_PORTABLE;
        return &restored->lane_mutes;
    }
    if (key != urid_map(tactus_uri_pattern)) return NULL;
    *size = restored->size;
    *type = urid_map(LV2_ATOM__String);
    *flags = LV2_STATE_IS_POD | LV2_STATE_IS_PORTABLE;
    return restored->text;
}

bool plugin_restore_pattern(PluginSide *plugin, const char *text, size_t length, uint64_t lane_mutes)
{
    if (!plugin->state) return false;
    char *terminated = malloc(length + 1);
    if (!terminated) return false;
    memcpy(terminated, text, length);
    terminated[length] = 0;
    RestoredPattern restored = {terminated, length + 1, (int64_t)lane_mutes};
    LV2_State_Status status = plugin->state->restore(plugin->handle, retrieve, &restored, 0, NULL);
    free(terminated);
    return status == LV2_STATE_SUCCESS;
}
