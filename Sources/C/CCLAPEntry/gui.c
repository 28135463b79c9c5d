/*
 * The CLAP plugin's editor: the gui extension (X11 only, embedded in the
 * host's window; a floating window is refused) and timer-support, whose
 * timer (registered at gui create) drives the editor as LV2's idle
 * interface does. Constant tables, forwarding to the Swift glue
 * (Sources/Formats/CLAP/TactusCLAP/Editor.swift), and the calls into the
 * editor itself (Sources/Formats/LV2/TactusUI/EditorEntry.swift), the same
 * editor as the LV2 plugin's, spoken to with the same messages.
 *
 * The editor's entry points are weak: tactus.clap links the editor (make
 * clap), the SwiftPM builds of the glue (its tests, the fuzzers) do not,
 * and then the plugin offers no gui extension.
 */
#include <CCLAPEntry.h>
#include <pthread.h>
#include <string.h>

/* --- the editor (TactusUI), when linked ------------------------------------------------ */

typedef void (*tactus_write_function)(void *controller, uint32_t port, uint32_t size, uint32_t format, const void *buffer);
extern void *tactus_editor_embed(unsigned long parent, const void *map, tactus_write_function write, void *controller,
                                 double scale) __attribute__((weak));
extern void tactus_editor_port_event(void *editor, uint32_t port, uint32_t size, uint32_t format, const void *buffer)
    __attribute__((weak));
extern int tactus_editor_idle(void *editor) __attribute__((weak));
extern void tactus_editor_cleanup(void *editor) __attribute__((weak));
extern void tactus_editor_set_visible(void *editor, bool visible) __attribute__((weak));
extern void tactus_editor_set_size(void *editor, uint32_t width, uint32_t height) __attribute__((weak));
extern void tactus_editor_size(void *editor, double scale, bool minimum, uint32_t *width, uint32_t *height)
    __attribute__((weak));

bool tactus_clap_has_editor(void) { return tactus_editor_embed != NULL; }

void *tactus_clap_editor_embed(unsigned long parent, void *instance, double scale)
{
    if (!tactus_editor_embed) return NULL;
    return tactus_editor_embed(parent, tactus_clap_urid_map(), tactus_clap_editor_write, instance, scale);
}

void tactus_clap_editor_port_event(void *editor, uint32_t port, uint32_t size, uint32_t format, const void *buffer)
{
    if (editor && tactus_editor_port_event) tactus_editor_port_event(editor, port, size, format, buffer);
}

void tactus_clap_editor_idle(void *editor)
{
    if (editor && tactus_editor_idle) tactus_editor_idle(editor);
}

void tactus_clap_editor_close(void *editor)
{
    if (editor && tactus_editor_cleanup) tactus_editor_cleanup(editor);
}

void tactus_clap_editor_set_visible(void *editor, bool visible)
{
    if (editor && tactus_editor_set_visible) tactus_editor_set_visible(editor, visible);
}

void tactus_clap_editor_set_size(void *editor, uint32_t width, uint32_t height)
{
    if (editor && tactus_editor_set_size) tactus_editor_set_size(editor, width, height);
}

void tactus_clap_editor_size(void *editor, double scale, bool minimum, uint32_t *width, uint32_t *height)
{
    if (tactus_editor_size) tactus_editor_size(editor, scale, minimum, width, height);
}

/* --- the URID map the plugin and its editor share (one process, one map) ------------ */

/* Every URI either side maps: the editor's and the glue's URIDTable, a few
 * dozen. Never unmapped, so an id stays valid while the library is loaded.
 * A lock: two instances may open editors on the host's main thread only,
 * but the map costs nothing to make safe. Never called on the audio thread. */
#define URID_CAPACITY 256
#define URI_LENGTH 160
static pthread_mutex_t urid_lock = PTHREAD_MUTEX_INITIALIZER;
static char urids[URID_CAPACITY][URI_LENGTH];
static uint32_t urid_count;

static uint32_t urid_map(void *handle, const char *uri)
{
    (void)handle;
    if (!uri || strlen(uri) >= URI_LENGTH) return 0;
    uint32_t id = 0;
    pthread_mutex_lock(&urid_lock);
    for (uint32_t i = 0; i < urid_count; i++) {
        if (strcmp(urids[i], uri) == 0) {
            id = i + 1;
            break;
        }
    }
    if (id == 0 && urid_count < URID_CAPACITY) {
        strcpy(urids[urid_count], uri);
        id = ++urid_count;
    }
    pthread_mutex_unlock(&urid_lock);
    return id;
}

/* The layout of LV2_URID_Map (lv2/urid/urid.h): a handle, then map. */
static const struct {
    void *handle;
    uint32_t (*map)(void *handle, const char *uri);
} urid_map_feature = {NULL, urid_map};

const void *tactus_clap_urid_map(void) { return &urid_map_feature; }

/* --- the host's timer, params and state ------------------------------------------------ */

bool tactus_clap_register_timer(const clap_host_t *host, uint32_t period_ms, clap_id *timer)
{
    const clap_host_timer_support_t *t = host && host->get_extension ? host->get_extension(host, CLAP_EXT_TIMER_SUPPORT) : NULL;
    return t && t->register_timer && t->register_timer(host, period_ms, timer);
}

void tactus_clap_unregister_timer(const clap_host_t *host, clap_id timer)
{
    const clap_host_timer_support_t *t = host && host->get_extension ? host->get_extension(host, CLAP_EXT_TIMER_SUPPORT) : NULL;
    if (t && t->unregister_timer) t->unregister_timer(host, timer);
}

void tactus_clap_request_flush(const clap_host_t *host)
{
    const clap_host_params_t *p = host && host->get_extension ? host->get_extension(host, CLAP_EXT_PARAMS) : NULL;
    if (p && p->request_flush) p->request_flush(host);
}

void tactus_clap_mark_dirty(const clap_host_t *host)
{
    const clap_host_state_t *s = host && host->get_extension ? host->get_extension(host, CLAP_EXT_STATE) : NULL;
    if (s && s->mark_dirty) s->mark_dirty(host);
}

/* --- clap.gui ------------------------------------------------------------------------- */

static bool gui_is_api_supported(const clap_plugin_t *plugin, const char *api, bool is_floating)
{
    (void)plugin;
    return tactus_clap_has_editor() && api && strcmp(api, CLAP_WINDOW_API_X11) == 0 && !is_floating;
}

static bool gui_get_preferred_api(const clap_plugin_t *plugin, const char **api, bool *is_floating)
{
    (void)plugin;
    if (!api || !is_floating) return false;
    *api = CLAP_WINDOW_API_X11;
    *is_floating = false;
    return true;
}

static bool gui_create(const clap_plugin_t *plugin, const char *api, bool is_floating)
{
    if (!gui_is_api_supported(plugin, api, is_floating)) return false;
    return tactus_clap_gui_create(plugin->plugin_data);
}

static void gui_destroy(const clap_plugin_t *plugin) { tactus_clap_gui_destroy(plugin->plugin_data); }

static bool gui_set_scale(const clap_plugin_t *plugin, double scale)
{
    return tactus_clap_gui_set_scale(plugin->plugin_data, scale);
}

static bool gui_get_size(const clap_plugin_t *plugin, uint32_t *width, uint32_t *height)
{
    if (!width || !height) return false;
    return tactus_clap_gui_get_size(plugin->plugin_data, false, width, height);
}

static bool gui_can_resize(const clap_plugin_t *plugin)
{
    (void)plugin;
    return true;
}

static bool gui_get_resize_hints(const clap_plugin_t *plugin, clap_gui_resize_hints_t *hints)
{
    (void)plugin;
    if (!hints) return false;
    memset(hints, 0, sizeof *hints);
    hints->can_resize_horizontally = true;
    hints->can_resize_vertically = true;
    hints->preserve_aspect_ratio = false;
    return true;
}

/* Any size at least the editor's smallest. */
static bool gui_adjust_size(const clap_plugin_t *plugin, uint32_t *width, uint32_t *height)
{
    uint32_t w = 0, h = 0;
    if (!width || !height || !tactus_clap_gui_get_size(plugin->plugin_data, true, &w, &h)) return false;
    if (*width < w) *width = w;
    if (*height < h) *height = h;
    return true;
}

static bool gui_set_size(const clap_plugin_t *plugin, uint32_t width, uint32_t height)
{
    return tactus_clap_gui_set_size(plugin->plugin_data, width, height);
}

static bool gui_set_parent(const clap_plugin_t *plugin, const clap_window_t *window)
{
    if (!window || !window->api || strcmp(window->api, CLAP_WINDOW_API_X11) != 0) return false;
    return tactus_clap_gui_set_parent(plugin->plugin_data, window->x11);
}

/* Floating windows are refused, so there is nothing to be transient for. */
static bool gui_set_transient(const clap_plugin_t *plugin, const clap_window_t *window)
{
    (void)plugin;
    (void)window;
    return false;
}

static void gui_suggest_title(const clap_plugin_t *plugin, const char *title)
{
    (void)plugin;
    (void)title;
}

static bool gui_show(const clap_plugin_t *plugin) { return tactus_clap_gui_set_visible(plugin->plugin_data, true); }

static bool gui_hide(const clap_plugin_t *plugin) { return tactus_clap_gui_set_visible(plugin->plugin_data, false); }

const clap_plugin_gui_t tactus_clap_gui = {
    gui_is_api_supported, gui_get_preferred_api, gui_create,   gui_destroy,    gui_set_scale,     gui_get_size,
    gui_can_resize,       gui_get_resize_hints,  gui_adjust_size, gui_set_size, gui_set_parent, gui_set_transient,
    gui_suggest_title,    gui_show,              gui_hide,
};

/* --- clap.timer-support: the editor's idle work ------------------------------------------ */

static void timer_on_timer(const clap_plugin_t *plugin, clap_id timer) { tactus_clap_on_timer(plugin->plugin_data, timer); }

const clap_plugin_timer_support_t tactus_clap_timer_support = {timer_on_timer};
