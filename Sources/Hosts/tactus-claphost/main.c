/*
 * tactus-claphost: the project's CLAP test host (issue 31).
 * Loads a .clap file with dlopen, checks what it declares (one plugin,
 * org.tactus.sequencer, features note-effect and utility, one MIDI-dialect
 * note port each way), activates it and runs it block by block while a host
 * transport plays from the top at a steady tempo and meter, given in
 * process->transport at every block (as every CLAP host does). Prints the
 * MIDI it sends as an event log (docs/event-log.md), to compare with
 * `tactus render` of the same transport.
 *
 * Usage: tactus-claphost PLUGIN.clap --frames N [--rate R] [--block B]
 *                        [--tempo T] [--meter N] [--unit D] [--rtcheck 1]
 * T is in beats of the meter's unit (as a transport script's tempo), D the
 * unit (4: quarter notes, 8: eighths); CLAP gets T x 4 / D quarter notes a
 * minute and a D-denominator time signature. Whole numbers only, so that
 * the host's fixed point positions are computed exactly. With --rtcheck 1
 * (and libTactusRTCheck.so preloaded), allocator and lock calls inside
 * process() are counted; any is an error.
 *
 * State (the state extension): with --state FILE, a first instance loads
 * FILE's bytes as its state and saves its state (to --save-to OUT too, if
 * given); it is destroyed, and the instance that plays, a fresh one, loads
 * what was saved: before activate with --load-when before, after activate
 * and before the first block (through the engine's hand-over) with
 * --load-when active (the default). With --bad-state FILE, the playing
 * instance is then asked to load FILE too, which it must refuse (load returns
 * false), and it plays on what it had.
 *
 * Parameters (the params extension, timing contract §11.4): the host checks
 * the twelve the plugin declares (mute1 ... mute8 as ids 3 to 10, midi_thru
 * 11, clock 12: 0 to 1, default 0; pattern 13: 0 to 128, default 0; song 14:
 * 0 to 1, default 1; all stepped and automatable). --param FRAME:ID:VALUE
 * (repeatable, frames non-decreasing) sends a CLAP_EVENT_PARAM_VALUE at that
 * frame, in the block that holds it, after the block's transport; --flush
 * ID:VALUE (repeatable) gives one through params.flush before activation
 * (after a state loaded before it).
 * After the run every parameter's get_value must be the last value sent.
 *
 * Plan (--plan FILE): the blocks, their transport and input events are
 * read from FILE (plan.c says how) instead of the steady transport.
 *
 * Gui (the gui and timer-support extensions): with --gui 1 the editor opens
 * in a window of the host's on $DISPLAY, the run is paced to the wall clock
 * and the timer runs; a click adds a note, the playhead must move, the key
 * "m" mutes lane 1 of the pattern --gui-state FILE loads meanwhile (gui.c says when). The parameters the plugin sets
 * (CLAP_EVENT_PARAM_VALUE on its output, between gesture begin and end) are
 * logged as "# param FRAME ID VALUE" lines, and get_value must then give them.
 */
#include "gui.h"
#include "plan.h"
#include <CCLAP.h>
#include <CRTCheckHooks.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *message)
{
    fprintf(stderr, "tactus-claphost: %s\n", message);
    return 1;
}

/* The output list: prints each MIDI event at its absolute frame. */
typedef struct {
    long long block_start;
    int bad_events;
    /* The plugin's own parameter changes: the last value of each id (-1: none), gestures open. */
    double set_by_plugin[16];
    int gestures_open;
} output_state;

static bool output_push(const clap_output_events_t *list, const clap_event_header_t *event)
{
    output_state *state = list->ctx;
    if (event->space_id == CLAP_CORE_EVENT_SPACE_ID && event->type == CLAP_EVENT_PARAM_VALUE &&
        event->size >= sizeof(clap_event_param_value_t)) {
        const clap_event_param_value_t *p = (const clap_event_param_value_t *)event;
        if (p->param_id >= 16 || state->gestures_open != 1) {
            state->bad_events++;
            return false;
        }
        state->set_by_plugin[p->param_id] = p->value;
        printf("# param %lld %u %g\n", state->block_start + event->time, p->param_id, p->value);
        return true;
    }
    if (event->space_id == CLAP_CORE_EVENT_SPACE_ID && event->size >= sizeof(clap_event_param_gesture_t) &&
        (event->type == CLAP_EVENT_PARAM_GESTURE_BEGIN || event->type == CLAP_EVENT_PARAM_GESTURE_END)) {
        state->gestures_open += event->type == CLAP_EVENT_PARAM_GESTURE_BEGIN ? 1 : -1;
        if (state->gestures_open < 0 || state->gestures_open > 1) state->bad_events++;
        return true;
    }
    if (event->space_id != CLAP_CORE_EVENT_SPACE_ID || event->type != CLAP_EVENT_MIDI ||
        event->size < sizeof(clap_event_midi_t)) {
        state->bad_events++;
        return false;
    }
    const clap_event_midi_t *midi = (const clap_event_midi_t *)event;
    /* A message is logged in its own length, as tactus render logs it: a MIDI
     * clock message (§12) F8, FA, FB, FC alone (their unused data bytes must be 0), F2 in 3. */
    uint8_t status = midi->data[0];
    if (status >= 0xf8 || status == 0xf6) {
        if (midi->data[1] != 0 || midi->data[2] != 0) {
            state->bad_events++;
            return false;
        }
        printf("%lld %02x\n", state->block_start + event->time, status);
    } else if (status >= 0xc0 && status < 0xe0) {
        /* A program change or channel pressure (§10) has one data byte: logged in
         * its 2, as tactus render logs it (its unused data[2] must be 0). */
        if (midi->data[2] != 0) {
            state->bad_events++;
            return false;
        }
        printf("%lld %02x %02x\n", state->block_start + event->time, status, midi->data[1]);
    } else {
        printf("%lld %02x %02x %02x\n", state->block_start + event->time, midi->data[0], midi->data[1], midi->data[2]);
    }
    return true;
}

/* The input list: the block's parameter events, in time order. */
#define MAX_PARAMS 256
typedef struct {
    clap_event_param_value_t events[MAX_PARAMS];
    long long frames[MAX_PARAMS];
    uint32_t count, first, in_block;
} input_state;

static uint32_t input_size(const clap_input_events_t *list)
{
    const input_state *input = list->ctx;
    return input ? input->in_block : 0;
}

static const clap_event_header_t *input_get(const clap_input_events_t *list, uint32_t index)
{
    const input_state *input = list->ctx;
    return input && index < input->in_block ? &input->events[input->first + index].header : NULL;
}

/* "FRAME:ID:VALUE" (or "ID:VALUE" with frame NULL) as a parameter event; 0 when malformed. */
static int parse_param(const char *text, long long *frame, clap_event_param_value_t *event)
{
    long long f = 0;
    unsigned id;
    double value;
    int n = 0;
    if (frame ? sscanf(text, "%lld:%u:%lf%n", &f, &id, &value, &n) != 3 : sscanf(text, "%u:%lf%n", &id, &value, &n) != 2) return 0;
    if (text[n] != 0 || f < 0) return 0;
    if (frame) *frame = f;
    *event = (clap_event_param_value_t){
        .header = {sizeof *event, 0, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_PARAM_VALUE, 0},
        .param_id = id,
        .note_id = -1,
        .port_index = -1,
        .channel = -1,
        .key = -1,
        .value = value,
    };
    return 1;
}

/* The params extension as the host reads it: twelve parameters, as §11.4 lists them. */
static int check_params(const clap_plugin_t *plugin)
{
    const clap_plugin_params_t *params = plugin->get_extension(plugin, CLAP_EXT_PARAMS);
    if (!params) return fail("no params extension");
    if (params->count(plugin) != 12) return fail("not twelve parameters");
    for (uint32_t i = 0; i < 12; i++) {
        clap_param_info_t info;
        if (!params->get_info(plugin, i, &info)) return fail("a parameter without info");
        static const char *const names[] = {"MIDI thru", "MIDI clock", "Pattern", "Song"};
        char expected[32];
        if (i < 8) snprintf(expected, sizeof expected, "Mute lane %u", i + 1);
        else snprintf(expected, sizeof expected, "%s", names[i - 8]);
        double max = i == 10 ? 128 : 1, start = i == 11 ? 1 : 0;
        if (info.id != 3 + i || strcmp(info.name, expected) != 0 || info.min_value != 0 || info.max_value != max ||
            info.default_value != start || !(info.flags & CLAP_PARAM_IS_STEPPED) || !(info.flags & CLAP_PARAM_IS_AUTOMATABLE))
            return fail("a parameter is not what the LV2 port is (id, name, range, default, stepped, automatable)");
        double value = -1, back = -1;
        char text[64];
        if (!params->get_value(plugin, info.id, &value) || value != start) return fail("a parameter does not start at its default");
        if (!params->value_to_text(plugin, info.id, 1, text, sizeof text) || !params->text_to_value(plugin, info.id, text, &back) || back != 1)
            return fail("a parameter's text does not read back");
    }
    double value;
    if (params->get_value(plugin, 2, &value) || params->get_value(plugin, 15, &value)) return fail("a parameter id Tactus does not have has a value");
    return 0;
}

/* Streams over memory, in pieces of at most 1000 bytes (hosts may read and write in pieces). */
typedef struct {
    unsigned char *bytes;
    size_t count, capacity, at;
} memory_stream;

static int64_t stream_read(const clap_istream_t *stream, void *buffer, uint64_t size)
{
    memory_stream *m = stream->ctx;
    size_t n = m->count - m->at;
    if (n > size) n = size;
    if (n > 1000) n = 1000;
    memcpy(buffer, m->bytes + m->at, n);
    m->at += n;
    return (int64_t)n;
}

static int64_t stream_write(const clap_ostream_t *stream, const void *buffer, uint64_t size)
{
    memory_stream *m = stream->ctx;
    size_t n = size > 1000 ? 1000 : size;
    if (m->count + n > m->capacity) {
        size_t capacity = (m->count + n) * 2;
        unsigned char *grown = realloc(m->bytes, capacity);
        if (!grown) return -1;
        m->bytes = grown;
        m->capacity = capacity;
    }
    memcpy(m->bytes + m->count, buffer, n);
    m->count += n;
    return (int64_t)n;
}

static int read_file(const char *path, memory_stream *m)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    memset(m, 0, sizeof *m);
    unsigned char chunk[4096];
    size_t n;
    const clap_ostream_t out = {m, stream_write};
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        for (size_t done = 0; done < n;) done += (size_t)stream_write(&out, chunk + done, n - done);
    fclose(f);
    return 1;
}

/* Loads the bytes of m into plugin through its state extension. */
static bool load_state(const clap_plugin_t *plugin, memory_stream *m)
{
    const clap_plugin_state_t *state = plugin->get_extension(plugin, CLAP_EXT_STATE);
    if (!state) return false;
    m->at = 0;
    const clap_istream_t in = {m, stream_read};
    return state->load(plugin, &in);
}

static int log_lines = 0;
static void host_log(const clap_host_t *host, int32_t severity, const char *message)
{
    (void)host;
    log_lines++;
    fprintf(stderr, "tactus-claphost: plugin log (%d): %s\n", severity, message);
}

static const struct {
    void (*log)(const clap_host_t *host, int32_t severity, const char *message);
} host_log_extension = {host_log};

/* params: the plugin asks for a flush (its editor set a parameter): process() comes anyway. */
static int flush_requests = 0, rescans = 0, dirty_marks = 0;
static void host_params_rescan(const clap_host_t *host, clap_param_rescan_flags flags)
{
    (void)host;
    (void)flags;
    rescans++;
}
static void host_params_clear(const clap_host_t *host, clap_id id, clap_param_clear_flags flags)
{
    (void)host;
    (void)id;
    (void)flags;
}
static void host_params_request_flush(const clap_host_t *host)
{
    (void)host;
    flush_requests++;
}
static const clap_host_params_t host_params = {host_params_rescan, host_params_clear, host_params_request_flush};
static void host_mark_dirty(const clap_host_t *host)
{
    (void)host;
    dirty_marks++;
}
static const clap_host_state_t host_state = {host_mark_dirty};

static const void *host_get_extension(const clap_host_t *host, const char *id)
{
    (void)host;
    if (!id) return NULL;
    if (strcmp(id, "clap.log") == 0) return &host_log_extension;
    if (strcmp(id, CLAP_EXT_TIMER_SUPPORT) == 0) return &gui_host_timer_support;
    if (strcmp(id, CLAP_EXT_PARAMS) == 0) return &host_params;
    if (strcmp(id, CLAP_EXT_STATE) == 0) return &host_state;
    return NULL;
}
static void host_request(const clap_host_t *host) { (void)host; }

static const clap_host_t host = {
    .clap_version = CLAP_VERSION_INIT,
    .name = "tactus-claphost",
    .vendor = "Tactus",
    .url = "",
    .version = "",
    .get_extension = host_get_extension,
    .request_restart = host_request,
    .request_process = host_request,
    .request_callback = host_request,
};

int main(int argc, char **argv)
{
    if (argc < 2) return fail("usage: tactus-claphost PLUGIN.clap --frames N [--rate R] [--block B] [--tempo T] [--meter N] [--unit D]");
    long long frames = 0, rate = 48000, block = 256, tempo = 120, meter = 4, unit = 4, rtcheck = 0, gui = 0;
    const char *state_path = NULL, *save_path = NULL, *bad_state_path = NULL, *gui_state_path = NULL, *plan_path = NULL;
    int load_before = 0;
    static input_state params_in;
    clap_event_param_value_t flushed[MAX_PARAMS];
    uint32_t flush_count = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        long long value = atoll(argv[i + 1]);
        if (strcmp(argv[i], "--param") == 0) {
            uint32_t n = params_in.count;
            if (n == MAX_PARAMS || !parse_param(argv[i + 1], &params_in.frames[n], &params_in.events[n]) ||
                (n > 0 && params_in.frames[n] < params_in.frames[n - 1]))
                return fail("--param takes FRAME:ID:VALUE, frames non-decreasing");
            params_in.count++;
        }
        else if (strcmp(argv[i], "--flush") == 0) {
            if (flush_count == MAX_PARAMS || !parse_param(argv[i + 1], NULL, &flushed[flush_count])) return fail("--flush takes ID:VALUE");
            flush_count++;
        }
        else if (strcmp(argv[i], "--state") == 0) state_path = argv[i + 1];
        else if (strcmp(argv[i], "--save-to") == 0) save_path = argv[i + 1];
        else if (strcmp(argv[i], "--bad-state") == 0) bad_state_path = argv[i + 1];
        else if (strcmp(argv[i], "--load-when") == 0) {
            if (strcmp(argv[i + 1], "before") == 0) load_before = 1;
            else if (strcmp(argv[i + 1], "active") != 0) return fail("--load-when takes before or active");
        }
        else if (strcmp(argv[i], "--frames") == 0) frames = value;
        else if (strcmp(argv[i], "--rate") == 0) rate = value;
        else if (strcmp(argv[i], "--block") == 0) block = value;
        else if (strcmp(argv[i], "--tempo") == 0) tempo = value;
        else if (strcmp(argv[i], "--meter") == 0) meter = value;
        else if (strcmp(argv[i], "--unit") == 0) unit = value;
        else if (strcmp(argv[i], "--rtcheck") == 0) rtcheck = value;
        else if (strcmp(argv[i], "--gui") == 0) gui = value;
        else if (strcmp(argv[i], "--gui-state") == 0) gui_state_path = argv[i + 1];
        else if (strcmp(argv[i], "--plan") == 0) plan_path = argv[i + 1];
        else return fail("unknown option");
    }
    if (plan_path && frames == 0) frames = 1;  /* the plan says how long */
    if (frames <= 0 || rate <= 0 || block <= 0 || tempo <= 0 || meter <= 0 || meter > 65535 || unit <= 0 ||
        (unit & (unit - 1)) != 0 || unit > 32)
        return fail("bad option value (unit: a power of two up to 32)");

    if (rtcheck && !tactus_rtcheck_hooks_init()) return fail("--rtcheck needs the interposer: LD_PRELOAD=.../libTactusRTCheck.so");

    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) return fail(dlerror());
    const clap_plugin_entry_t *entry = dlsym(library, "clap_entry");
    if (!entry) return fail("no clap_entry");
    if (!clap_version_is_compatible(entry->clap_version)) return fail("incompatible CLAP version");
    if (!entry->init(argv[1])) return fail("clap_entry.init failed");
    const clap_plugin_factory_t *factory = entry->get_factory(CLAP_PLUGIN_FACTORY_ID);
    if (!factory) return fail("no plugin factory");
    if (factory->get_plugin_count(factory) != 1) return fail("the factory does not hold exactly one plugin");
    const clap_plugin_descriptor_t *descriptor = factory->get_plugin_descriptor(factory, 0);
    if (!descriptor || strcmp(descriptor->id, "org.tactus.sequencer") != 0) return fail("the plugin is not org.tactus.sequencer");
    int note_effect = 0, utility = 0;
    for (const char *const *feature = descriptor->features; feature && *feature; feature++) {
        note_effect |= strcmp(*feature, CLAP_PLUGIN_FEATURE_NOTE_EFFECT) == 0;
        utility |= strcmp(*feature, CLAP_PLUGIN_FEATURE_UTILITY) == 0;
    }
    if (!note_effect || !utility) return fail("features lack note-effect or utility");

    /* The state: loaded into a first instance, saved, that instance destroyed. */
    memory_stream saved = {0};
    if (state_path) {
        memory_stream given;
        if (!read_file(state_path, &given)) return fail("cannot read the --state file");
        const clap_plugin_t *first = factory->create_plugin(factory, &host, descriptor->id);
        if (!first || !first->init(first)) return fail("create_plugin or init failed");
        const clap_plugin_state_t *state = first->get_extension(first, CLAP_EXT_STATE);
        if (!state) return fail("no state extension");
        if (!load_state(first, &given)) return fail("the plugin refused the --state file");
        const clap_ostream_t out = {&saved, stream_write};
        if (!state->save(first, &out)) return fail("the plugin could not save its state");
        first->destroy(first);
        free(given.bytes);
        if (save_path) {
            FILE *f = fopen(save_path, "wb");
            if (!f || fwrite(saved.bytes, 1, saved.count, f) != saved.count || fclose(f) != 0) return fail("cannot write --save-to");
        }
    }
    memory_stream bad = {0};
    if (bad_state_path && !read_file(bad_state_path, &bad)) return fail("cannot read the --bad-state file");

    const clap_plugin_t *plugin = factory->create_plugin(factory, &host, descriptor->id);
    if (!plugin || !plugin->init(plugin)) return fail("create_plugin or init failed");
    const clap_plugin_note_ports_t *ports = plugin->get_extension(plugin, CLAP_EXT_NOTE_PORTS);
    if (!ports) return fail("no note ports extension");
    for (int is_input = 0; is_input < 2; is_input++) {
        clap_note_port_info_t info;
        if (ports->count(plugin, is_input) != 1 || !ports->get(plugin, 0, is_input, &info)) return fail("not one note port each way");
        if (info.supported_dialects != CLAP_NOTE_DIALECT_MIDI || info.preferred_dialect != CLAP_NOTE_DIALECT_MIDI)
            return fail("a note port is not MIDI dialect only");
    }
    if (check_params(plugin)) return 1;
    const clap_plugin_latency_t *latency = plugin->get_extension(plugin, CLAP_EXT_LATENCY);
    if (!latency || latency->get(plugin) != 0) return fail("no latency extension, or a latency other than 0");
    const clap_plugin_params_t *params = plugin->get_extension(plugin, CLAP_EXT_PARAMS);
    if (state_path && load_before && !load_state(plugin, &saved)) return fail("a fresh instance refused the saved state");
    if (flush_count) {
        input_state flush_in = {.count = flush_count, .in_block = flush_count};
        memcpy(flush_in.events, flushed, flush_count * sizeof *flushed);
        const clap_input_events_t in = {&flush_in, input_size, input_get};
        output_state nothing = {0, 0};
        const clap_output_events_t out = {&nothing, output_push};
        params->flush(plugin, &in, &out);
    }

    if (!plugin->activate(plugin, (double)rate, 1, (uint32_t)block) || !plugin->start_processing(plugin))
        return fail("activate or start_processing failed");
    if (state_path && !load_before && !load_state(plugin, &saved)) return fail("an active instance refused the saved state");
    if (bad_state_path) {
        int lines = log_lines;
        if (load_state(plugin, &bad)) return fail("the plugin took the --bad-state file");
        if (log_lines == lines) return fail("the plugin refused the --bad-state file without telling the host's log");
    }
    free(saved.bytes);
    free(bad.bytes);

    static gui_session editor;
    memory_stream gui_state = {0};
    if (gui_state_path && !read_file(gui_state_path, &gui_state)) return fail("cannot read the --gui-state file");
    if (gui && gui_open(&editor, plugin, rate)) return 1;
    editor.state = gui_state.bytes;
    editor.state_count = gui_state.count;
    output_state state = {0};
    for (int i = 0; i < 16; i++) state.set_by_plugin[i] = -1;
    const clap_input_events_t input = {&params_in, input_size, input_get};
    const clap_output_events_t output = {&state, output_push};
    /* Fixed point arithmetic, exact: the position at frame f is
     * f x tempo x 4 / unit quarter notes a minute / (60 rate), times 2^31. */
    const __int128 bar_length = (__int128)meter * 4 * CLAP_BEATTIME_FACTOR / unit;
    printf("# tactus event log: FRAME then MIDI bytes in hex\n");
    if (plan_path && plan_run(plan_path, plugin, &output, &state.block_start)) return 1;
    for (long long start = 0; !plan_path && start < frames; start += block) {
        uint32_t count = (uint32_t)(frames - start < block ? frames - start : block);
        __int128 position = (__int128)start * tempo * 4 * CLAP_BEATTIME_FACTOR / (60 * rate * unit);
        clap_event_transport_t transport = {
            .header = {sizeof transport, 0, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_TRANSPORT, 0},
            .flags = CLAP_TRANSPORT_HAS_TEMPO | CLAP_TRANSPORT_HAS_BEATS_TIMELINE | CLAP_TRANSPORT_HAS_TIME_SIGNATURE |
                     (gui && editor.stopped ? 0 : CLAP_TRANSPORT_IS_PLAYING),
            .song_pos_beats = (clap_beattime)position,
            .tempo = (double)tempo * 4 / (double)unit,
            .bar_number = (int32_t)(position / bar_length),
            .bar_start = (clap_beattime)(position / bar_length * bar_length),
            .tsig_num = (uint16_t)meter,
            .tsig_denom = (uint16_t)unit,
        };
        clap_process_t process = {
            .steady_time = start,
            .frames_count = count,
            .transport = &transport,
            .in_events = &input,
            .out_events = &output,
        };
        state.block_start = start;
        params_in.first += params_in.in_block;
        params_in.in_block = 0;
        while (params_in.first + params_in.in_block < params_in.count && params_in.frames[params_in.first + params_in.in_block] < start + count) {
            clap_event_param_value_t *event = &params_in.events[params_in.first + params_in.in_block];
            event->header.time = (uint32_t)(params_in.frames[params_in.first + params_in.in_block] - start);
            params_in.in_block++;
        }
        if (gui && gui_step(&editor, start)) return 1;
        if (rtcheck) tactus_rtcheck_hooks_begin();
        clap_process_status status = plugin->process(plugin, &process);
        if (rtcheck) tactus_rtcheck_hooks_end();
        if (status != CLAP_PROCESS_CONTINUE) return fail("process did not continue");
    }
    if (gui) {
        gui_close(&editor);
        if (editor.leaked_timer) return 1;
    }
    plugin->stop_processing(plugin);
    /* The parameters the plugin set (its editor) hold the value it told the host. */
    for (clap_id id = 0; id < 16; id++) {
        double value = -1;
        if (state.set_by_plugin[id] >= 0 && (!params->get_value(plugin, id, &value) || value != state.set_by_plugin[id]))
            return fail("a parameter the plugin set does not hold the value it told the host");
    }
    if (state.gestures_open != 0) return fail("a parameter gesture the plugin began did not end");
    if (gui) printf("# gui: %d flush requests, %d state dirty marks\n", flush_requests, dirty_marks);
    /* Every parameter now holds the last value the host gave it (a state load's, without one). */
    uint32_t given = flush_count + params_in.first + params_in.in_block;
    for (uint32_t i = 0; i < given; i++) {
        const clap_event_param_value_t *event = i < flush_count ? &flushed[i] : &params_in.events[i - flush_count];
        int last = 1;
        for (uint32_t j = i + 1; j < given; j++)
            last &= (j < flush_count ? &flushed[j] : &params_in.events[j - flush_count])->param_id != event->param_id;
        double value = -1;
        /* A toggle is 0 or 1 (on at 0.5 or above); the pattern its number, rounded (13). */
        double expected = event->param_id == 13 ? (double)(long)(event->value + 0.5) : (event->value >= 0.5);
        if (last && (!params->get_value(plugin, event->param_id, &value) || value != expected))
            return fail("a parameter's value is not the last one the host sent");
    }
    plugin->deactivate(plugin);
    plugin->destroy(plugin);
    entry->deinit();
    if (state.bad_events) return fail("the plugin sent events other than CLAP_EVENT_MIDI (or a 1- or 2-byte message with data bytes past its length)");
    if (rtcheck) {
        long allocations = tactus_rtcheck_hooks_allocations(), locks = tactus_rtcheck_hooks_locks();
        fprintf(stderr, "tactus-claphost: inside process(): %ld allocator calls, %ld lock calls\n", allocations, locks);
        if (allocations || locks) {
            fprintf(stderr, "tactus-claphost: the first: %s in %s\n", tactus_rtcheck_hooks_first(), tactus_rtcheck_hooks_first_caller());
            return 1;
        }
    }
    return 0;
}
