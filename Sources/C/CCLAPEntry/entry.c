/*
 * The CLAP plugin's entry (clap_entry, the library's one export), its
 * factory, the plugin table and the note ports, params, latency and state extensions (the gui and
 * timer-support ones are gui.c's): constant tables,
 * as in any CLAP plugin written in C, pointing at the Swift glue. C for the
 * reason the LV2 descriptor is (Sources/C/CLV2Descriptor/descriptor.c): a
 * host may call the factory and get_extension from several threads at once,
 * and these tables are never written after the library is loaded. The only
 * allocation is the clap_plugin_t of each instance, at create_plugin.
 *
 * Note ports: one input and one output, MIDI dialect only. Carla accepts only
 * CLAP_EVENT_MIDI on output, and Qtractor turns a CLAP note's 0-1 velocity
 * into a MIDI byte, so notes in CLAP's dialect would arrive silent (issue 31).
 */
#include <CCLAPEntry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Not const: CLAP 1.1.1 declares the field `const char **`; never written. */
static const char *features[] = {CLAP_PLUGIN_FEATURE_NOTE_EFFECT, CLAP_PLUGIN_FEATURE_UTILITY, NULL};

static const clap_plugin_descriptor_t descriptor = {
    .clap_version = CLAP_VERSION_INIT,
    .id = TACTUS_CLAP_ID,
    .name = "Tactus",
    .vendor = "Tactus",
    .url = "",
    .manual_url = "",
    .support_url = "",
    .version = "",
    .description = "Sample-accurate MIDI pattern sequencer: follows the host's transport, plays looping patterns to the exact sample",
    .features = features,
};

/* --- note ports ---------------------------------------------------------------------- */

static uint32_t note_ports_count(const clap_plugin_t *plugin, bool is_input)
{
    (void)plugin;
    (void)is_input;
    return 1;
}

static bool note_ports_get(const clap_plugin_t *plugin, uint32_t index, bool is_input, clap_note_port_info_t *info)
{
    (void)plugin;
    if (index != 0 || !info) return false;
    memset(info, 0, sizeof *info);
    info->id = 0;
    info->supported_dialects = CLAP_NOTE_DIALECT_MIDI;
    info->preferred_dialect = CLAP_NOTE_DIALECT_MIDI;
    strncpy(info->name, is_input ? "MIDI in" : "MIDI out", sizeof info->name - 1);
    return true;
}

static const clap_plugin_note_ports_t note_ports = {note_ports_count, note_ports_get};

/* --- params: the LV2 plugin's control ports (timing contract §11.4; values in Parameters.swift) --- */

#define PARAM_COUNT (TACTUS_CLAP_PARAM_MUTE_COUNT + 4)

static uint32_t params_count(const clap_plugin_t *plugin)
{
    (void)plugin;
    return PARAM_COUNT;
}

/* The LV2 port of each index: its id, name (lv2:name), range and default, and its
 * module (where it comes from). Every one stepped and automatable. */
static bool params_get_info(const clap_plugin_t *plugin, uint32_t index, clap_param_info_t *info)
{
    (void)plugin;
    if (index >= PARAM_COUNT || !info) return false;
    memset(info, 0, sizeof *info);
    info->flags = CLAP_PARAM_IS_STEPPED | CLAP_PARAM_IS_AUTOMATABLE;
    info->min_value = 0;
    info->max_value = 1;
    info->default_value = 0;
    if (index < TACTUS_CLAP_PARAM_MUTE_COUNT) {
        info->id = TACTUS_CLAP_PARAM_FIRST_MUTE + index;
        snprintf(info->name, sizeof info->name, "Mute lane %u", index + 1);
        snprintf(info->module, sizeof info->module, "Mutes");
    } else if (index == TACTUS_CLAP_PARAM_MUTE_COUNT) {
        info->id = TACTUS_CLAP_PARAM_MIDI_THRU;
        snprintf(info->name, sizeof info->name, "MIDI thru");
        snprintf(info->module, sizeof info->module, "MIDI input");
    } else if (index == TACTUS_CLAP_PARAM_MUTE_COUNT + 1) {
        info->id = TACTUS_CLAP_PARAM_CLOCK;
        snprintf(info->name, sizeof info->name, "MIDI clock");
        snprintf(info->module, sizeof info->module, "MIDI output");
    } else if (index == TACTUS_CLAP_PARAM_MUTE_COUNT + 2) {
        /* §9.6: a change to k (1-128) asks for pattern k; 0 asks for nothing. */
        info->id = TACTUS_CLAP_PARAM_PATTERN;
        info->max_value = 128;
        snprintf(info->name, sizeof info->name, "Pattern");
        snprintf(info->module, sizeof info->module, "Patterns");
    } else {
        /* §9.5: a text's song plays while on; requests switch patterns while off. */
        info->id = TACTUS_CLAP_PARAM_SONG;
        info->default_value = 1;
        snprintf(info->name, sizeof info->name, "Song");
        snprintf(info->module, sizeof info->module, "Patterns");
    }
    return true;
}

static bool params_get_value(const clap_plugin_t *plugin, clap_id id, double *value)
{
    return tactus_clap_param_value(plugin->plugin_data, id, value);
}

static bool params_known(clap_id id)
{
    return id >= TACTUS_CLAP_PARAM_FIRST_MUTE && id <= TACTUS_CLAP_PARAM_SONG;
}

/* A mute reads "muted" or "plays", MIDI thru, MIDI clock and Song "on" or "off",
 * Pattern its number ("none" for 0). */
static bool params_value_to_text(const clap_plugin_t *plugin, clap_id id, double value, char *text, uint32_t size)
{
    (void)plugin;
    if (!params_known(id) || !text || size == 0) return false;
    if (id == TACTUS_CLAP_PARAM_PATTERN) {
        long k = value >= 0.5 ? (long)(value + 0.5) : 0;
        if (k > 128) k = 128;
        if (k == 0) snprintf(text, size, "none");
        else snprintf(text, size, "%ld", k);
        return true;
    }
    bool on = value >= 0.5;
    bool is_mute = id < TACTUS_CLAP_PARAM_MIDI_THRU;
    const char *word = is_mute ? (on ? "muted" : "plays") : (on ? "on" : "off");
    snprintf(text, size, "%s", word);
    return true;
}

static bool params_text_to_value(const clap_plugin_t *plugin, clap_id id, const char *text, double *value)
{
    (void)plugin;
    if (!params_known(id) || !text || !value) return false;
    if (id == TACTUS_CLAP_PARAM_PATTERN) {
        if (strcasecmp(text, "none") == 0) return *value = 0, true;
        char *end = NULL;
        long k = strtol(text, &end, 10);
        if (end == text || *end != 0 || k < 0 || k > 128) return false;
        return *value = (double)k, true;
    }
    static const char *const on[] = {"muted", "on", "1", "yes", "true"};
    static const char *const off[] = {"plays", "off", "0", "no", "false"};
    for (size_t i = 0; i < sizeof on / sizeof *on; i++) {
        if (strcasecmp(text, on[i]) == 0) return *value = 1, true;
        if (strcasecmp(text, off[i]) == 0) return *value = 0, true;
    }
    return false;
}

/* The host's changes in, the editor's (a mute clicked) out. */
static void params_flush(const clap_plugin_t *plugin, const clap_input_events_t *in, const clap_output_events_t *out)
{
    tactus_clap_params_flush(plugin->plugin_data, in, out);
}

static const clap_plugin_params_t params = {params_count,         params_get_info,      params_get_value,
                                            params_value_to_text, params_text_to_value, params_flush};

void tactus_clap_params_rescan(const clap_host_t *host)
{
    const clap_host_params_t *host_params = host && host->get_extension ? host->get_extension(host, CLAP_EXT_PARAMS) : NULL;
    if (host_params && host_params->rescan) host_params->rescan(host, CLAP_PARAM_RESCAN_VALUES);
}

/* --- latency: none (a note arrives at the frame it is due, in the block it is due) --- */

static uint32_t latency_get(const clap_plugin_t *plugin)
{
    (void)plugin;
    return 0;
}

static const clap_plugin_latency_t latency = {latency_get};

/* --- state: the same text and file as the LV2 state (Sources/Formats/CLAP/TactusCLAP/State.swift) --- */

static bool state_save(const clap_plugin_t *plugin, const clap_ostream_t *stream)
{
    return tactus_clap_state_save(plugin->plugin_data, stream);
}

static bool state_load(const clap_plugin_t *plugin, const clap_istream_t *stream)
{
    return tactus_clap_state_load(plugin->plugin_data, stream);
}

static const clap_plugin_state_t state = {state_save, state_load};

/* --- the host's log ------------------------------------------------------------------ */

typedef struct {
    void (*log)(const clap_host_t *host, int32_t severity, const char *message);
} tactus_clap_host_log_t;

void tactus_clap_log(const clap_host_t *host, int32_t severity, const char *message)
{
    const tactus_clap_host_log_t *log = host && host->get_extension ? host->get_extension(host, "clap.log") : NULL;
    if (log && log->log) log->log(host, severity, message);
    else fprintf(stderr, "tactus: %s\n", message);
}

/* --- the plugin ---------------------------------------------------------------------- */

static bool plugin_init(const clap_plugin_t *plugin)
{
    (void)plugin;
    return true;
}

static void plugin_destroy(const clap_plugin_t *plugin)
{
    tactus_clap_free(plugin->plugin_data);
    free((void *)plugin);
}

static bool plugin_activate(const clap_plugin_t *plugin, double sample_rate, uint32_t min_frames, uint32_t max_frames)
{
    return tactus_clap_activate(plugin->plugin_data, sample_rate, min_frames, max_frames);
}

static void plugin_deactivate(const clap_plugin_t *plugin) { tactus_clap_deactivate(plugin->plugin_data); }

static bool plugin_start_processing(const clap_plugin_t *plugin)
{
    (void)plugin;
    return true;
}

static void plugin_stop_processing(const clap_plugin_t *plugin) { (void)plugin; }

static void plugin_reset(const clap_plugin_t *plugin) { tactus_clap_reset(plugin->plugin_data); }

static clap_process_status plugin_process(const clap_plugin_t *plugin, const clap_process_t *process)
{
    return tactus_clap_process(plugin->plugin_data, process);
}

static const void *plugin_get_extension(const clap_plugin_t *plugin, const char *id)
{
    (void)plugin;
    if (id && strcmp(id, CLAP_EXT_NOTE_PORTS) == 0) return &note_ports;
    if (id && strcmp(id, CLAP_EXT_STATE) == 0) return &state;
    if (id && strcmp(id, CLAP_EXT_PARAMS) == 0) return &params;
    if (id && strcmp(id, CLAP_EXT_LATENCY) == 0) return &latency;
    /* The editor (gui.c), when it is linked in. */
    if (id && strcmp(id, CLAP_EXT_GUI) == 0 && tactus_clap_has_editor()) return &tactus_clap_gui;
    if (id && strcmp(id, CLAP_EXT_TIMER_SUPPORT) == 0 && tactus_clap_has_editor()) return &tactus_clap_timer_support;
    return NULL;
}

static void plugin_on_main_thread(const clap_plugin_t *plugin) { (void)plugin; }

/* --- the factory and the entry -------------------------------------------------------- */

static uint32_t factory_count(const clap_plugin_factory_t *factory)
{
    (void)factory;
    return 1;
}

static const clap_plugin_descriptor_t *factory_descriptor(const clap_plugin_factory_t *factory, uint32_t index)
{
    (void)factory;
    return index == 0 ? &descriptor : NULL;
}

static const clap_plugin_t *factory_create(const clap_plugin_factory_t *factory, const clap_host_t *host,
                                           const char *plugin_id)
{
    (void)factory;
    if (!host || !plugin_id || strcmp(plugin_id, TACTUS_CLAP_ID) != 0) return NULL;
    if (!clap_version_is_compatible(host->clap_version)) return NULL;
    clap_plugin_t *plugin = malloc(sizeof *plugin);
    if (!plugin) return NULL;
    *plugin = (clap_plugin_t){
        .desc = &descriptor,
        .plugin_data = tactus_clap_new(host),
        .init = plugin_init,
        .destroy = plugin_destroy,
        .activate = plugin_activate,
        .deactivate = plugin_deactivate,
        .start_processing = plugin_start_processing,
        .stop_processing = plugin_stop_processing,
        .reset = plugin_reset,
        .process = plugin_process,
        .get_extension = plugin_get_extension,
        .on_main_thread = plugin_on_main_thread,
    };
    if (!plugin->plugin_data) {
        free(plugin);
        return NULL;
    }
    return plugin;
}

static const clap_plugin_factory_t factory = {factory_count, factory_descriptor, factory_create};

static bool entry_init(const char *plugin_path)
{
    (void)plugin_path;
    return true;
}

static void entry_deinit(void) {}

static const void *entry_get_factory(const char *factory_id)
{
    return factory_id && strcmp(factory_id, CLAP_PLUGIN_FACTORY_ID) == 0 ? &factory : NULL;
}

CLAP_EXPORT const clap_plugin_entry_t clap_entry = {
    .clap_version = CLAP_VERSION_INIT,
    .init = entry_init,
    .deinit = entry_deinit,
    .get_factory = entry_get_factory,
};
