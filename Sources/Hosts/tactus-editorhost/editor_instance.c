/* The UI binary and its instances, hosted as a toolkit-less LV2 host hosts an
 * X11 UI: one parent window per instance (a top-level window of the host's
 * own X connection, as a GTK socket would be), the UI's window inside it,
 * idle calls about 30 times a second, port_event calls for what the plugin
 * sends, and every write_function call recorded. The UI opens its own X
 * connection; the host reads pixels and moves windows through its own. */
#define _GNU_SOURCE
#include "editorhost.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <time.h>

double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Where instance n's parent window goes: two to a row, 1024 by 600 pixels
 * each, so that an editor grown by a resize does not cover its neighbour
 * (XGetImage would read the neighbour's pixels there). */
static void parent_place(int number, int *x, int *y)
{
    *x = ((number - 1) % 2) * 1024;
    *y = ((number - 1) / 2) * 600;
}

bool editor_host_load(EditorHost *host, const char *ui_path)
{
    memset(host, 0, sizeof *host);
    char resolved[PATH_MAX];
    if (!realpath(ui_path, resolved)) {
        fprintf(stderr, "tactus-editorhost: %s: %s\n", ui_path, strerror(errno));
        return false;
    }
    host->library = dlopen(resolved, RTLD_NOW | RTLD_LOCAL);
    if (!host->library) {
        fprintf(stderr, "tactus-editorhost: cannot load %s: %s\n", resolved, dlerror());
        return false;
    }
    const LV2UI_Descriptor *(*descriptor_at)(uint32_t) =
        (const LV2UI_Descriptor *(*)(uint32_t))dlsym(host->library, "lv2ui_descriptor");
    if (!descriptor_at) {
        fprintf(stderr, "tactus-editorhost: %s exports no lv2ui_descriptor\n", resolved);
        return false;
    }
    host->descriptor = descriptor_at(0);
    if (!host->descriptor || !host->descriptor->URI || strcmp(host->descriptor->URI, TACTUS_EDITOR_URI) != 0) {
        fprintf(stderr, "tactus-editorhost: lv2ui_descriptor(0) of %s is not %s\n", resolved, TACTUS_EDITOR_URI);
        return false;
    }
    if (descriptor_at(1) != NULL) fprintf(stderr, "tactus-editorhost: note: %s has more than one UI\n", resolved);
    host->idle = host->descriptor->extension_data
        ? (const LV2UI_Idle_Interface *)host->descriptor->extension_data(LV2_UI__idleInterface) : NULL;
    if (!host->idle || !host->idle->idle) {
        fprintf(stderr, "tactus-editorhost: %s gives no ui:idleInterface\n", resolved);
        return false;
    }
    /* The bundle: the folder of the binary, with its trailing slash (LV2 hosts pass it so). */
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", resolved);
    const char *dir = dirname(folder);
    host->bundle_path = malloc(strlen(dir) + 2);
    if (!host->bundle_path) return false;
    sprintf(host->bundle_path, "%s/", dir);
    host->display = XOpenDisplay(NULL);
    if (!host->display) {
        fprintf(stderr, "tactus-editorhost: cannot open the X display %s\n", getenv("DISPLAY") ? getenv("DISPLAY") : "(DISPLAY unset)");
        return false;
    }
    for (int i = 0; i < EDITORHOST_MAX_INSTANCES; ++i) {
        host->instances[i].host = host;
        host->instances[i].number = i + 1;
    }
    return true;
}

void editor_host_unload(EditorHost *host, bool keep_loaded)
{
    for (int i = 0; i < EDITORHOST_MAX_INSTANCES; ++i)
        if (host->instances[i].open) editor_close(host, i + 1);
    if (host->display) XCloseDisplay(host->display);
    host->display = NULL;
    if (host->library && !keep_loaded) dlclose(host->library);
    host->library = NULL;
    free(host->bundle_path);
    host->bundle_path = NULL;
}

EditorInstance *editor_instance(EditorHost *host, int number)
{
    if (number < 1 || number > EDITORHOST_MAX_INSTANCES) {
        fprintf(stderr, "tactus-editorhost: no instance %d (1-%d)\n", number, EDITORHOST_MAX_INSTANCES);
        return NULL;
    }
    EditorInstance *instance = &host->instances[number - 1];
    if (!instance->open) {
        fprintf(stderr, "tactus-editorhost: instance %d is not open\n", number);
        return NULL;
    }
    return instance;
}

/* --- The UI's calls into the host ----------------------------------------------------- */

/* A patch:Set of the pattern with its number and text, as the plugin reads it
 * (a walk bounded by `size`: the log says when the atom is malformed). */
static bool pattern_edit(const void *buffer, uint32_t size, int32_t *number, const char **text, uint32_t *length)
{
    if (size < sizeof(LV2_Atom) + sizeof(LV2_Atom_Object_Body)) return false;
    LV2_Atom atom = LOAD(LV2_Atom, buffer);
    if (atom.type != urid_map(LV2_ATOM__Object) || atom.size > size - sizeof(LV2_Atom)) return false;
    const uint8_t *body = (const uint8_t *)buffer + sizeof(LV2_Atom);
    LV2_Atom_Object_Body header = LOAD(LV2_Atom_Object_Body, body);
    if (header.otype != urid_map(LV2_PATCH__Set)) return false;
    bool is_pattern = false;
    *number = 0;
    *text = NULL;
    for (uint32_t offset = sizeof header; offset + sizeof(LV2_Atom_Property_Body) <= atom.size;) {
        LV2_Atom_Property_Body property = LOAD(LV2_Atom_Property_Body, body + offset);
        const uint8_t *value = body + offset + sizeof property;
        if (property.value.size > atom.size - offset - sizeof property) return false;
        if (property.key == urid_map(LV2_PATCH__property) && property.value.size == 4)
            is_pattern = LOAD(uint32_t, value) == urid_map(tactus_uri_pattern);
        else if (property.key == urid_map(LV2_PATCH__sequenceNumber) && property.value.size == 4)
            *number = LOAD(int32_t, value);
        else if (property.key == urid_map(LV2_PATCH__value) && property.value.type == urid_map(LV2_ATOM__String)) {
            *text = (const char *)value;
            *length = (uint32_t)strnlen(*text, property.value.size);
        }
        offset += (uint32_t)sizeof property + lv2_atom_pad_size(property.value.size);
    }
    return is_pattern && *text;
}

static void write_function(LV2UI_Controller controller, uint32_t port, uint32_t size, uint32_t format, const void *buffer)
{
    EditorInstance *instance = controller;
    instance->writes++;
    message_log_write(instance->number, port, size, format, buffer);
    if (instance->plugin && port == TACTUS_PORT_CONTROL && format == urid_map(LV2_ATOM__eventTransfer) && buffer && size >= sizeof(LV2_Atom))
        plugin_from_ui(instance->plugin, instance->number, buffer, size);
    if (instance->plugin && format == 0 && size == sizeof(float) && buffer)
        plugin_control_from_ui(instance->plugin, port, *(const float *)buffer);
    int32_t number;
    const char *text;
    uint32_t length;
    if (instance->loopback && port == TACTUS_PORT_CONTROL && buffer && pattern_edit(buffer, size, &number, &text, &length)) {
        PendingEcho *echo = calloc(1, sizeof *echo);
        if (!echo || !(echo->text = malloc(length + 1))) { free(echo); return; }
        memcpy(echo->text, text, length);
        echo->text[length] = 0;
        echo->length = length;
        echo->sequence_number = number;
        echo->due = monotonic_seconds() + instance->loopback_delay;
        PendingEcho **tail = &instance->echoes;
        while (*tail) tail = &(*tail)->next;
        *tail = echo;
    }
}

/* ui:resize: the host's window takes the size the UI asks for (a toolkit
 * would allocate it to the socket), and the UI's window follows. */
static int ui_resize(LV2UI_Feature_Handle handle, int width, int height)
{
    EditorInstance *instance = handle;
    char extra[96];
    snprintf(extra, sizeof extra, ",\"width\":%d,\"height\":%d", width, height);
    message_log_event("resize-request", instance->number, extra);
    if (width <= 0 || height <= 0) return 1;
    XResizeWindow(instance->host->display, instance->parent, (unsigned)width, (unsigned)height);
    XFlush(instance->host->display);
    return 0;
}

/* --- Instances -------------------------------------------------------------------------- */

bool editor_open(EditorHost *host, int number)
{
    if (number < 1 || number > EDITORHOST_MAX_INSTANCES) {
        fprintf(stderr, "tactus-editorhost: no instance %d (1-%d)\n", number, EDITORHOST_MAX_INSTANCES);
        return false;
    }
    EditorInstance *instance = &host->instances[number - 1];
    if (instance->open) {
        fprintf(stderr, "tactus-editorhost: instance %d is already open\n", number);
        return false;
    }
    Display *display = host->display;
    int screen = XDefaultScreen(display);
    parent_place(number, &instance->parent_x, &instance->parent_y);
    instance->parent = XCreateSimpleWindow(display, XRootWindow(display, screen), instance->parent_x, instance->parent_y,
                                           720, 420, 0, XBlackPixel(display, screen), XBlackPixel(display, screen));
    char title[64];
    snprintf(title, sizeof title, "tactus-editorhost %d", number);
    XStoreName(display, instance->parent, title);
    XMapWindow(display, instance->parent);
    XSync(display, False);

    if (plugin_options.path && !instance->plugin) {
        /* The plugin's bundle: the folder of its binary. */
        char folder[PATH_MAX];
        snprintf(folder, sizeof folder, "%s", plugin_options.path);
        char bundle[PATH_MAX];
        snprintf(bundle, sizeof bundle, "%s/", dirname(folder));
        instance->plugin = plugin_open(bundle);
        if (!instance->plugin) {
            fprintf(stderr, "tactus-editorhost: instance %d: the plugin would not instantiate\n", number);
            XDestroyWindow(display, instance->parent);
            return false;
        }
    }
    instance->resize = (LV2UI_Resize){instance, ui_resize};
    const LV2_Feature map = {LV2_URID__map, &urid_map_feature};
    const LV2_Feature unmap = {LV2_URID__unmap, &urid_unmap_feature};
    const LV2_Feature parent = {LV2_UI__parent, (void *)(uintptr_t)instance->parent};
    const LV2_Feature resize_feature = {LV2_UI__resize, &instance->resize};
    const LV2_Feature idle = {LV2_UI__idleInterface, NULL};
    /* ui:scaleFactor, as Ardour and Carla give it, when the `scale` command set one. */
    float scale = host->scale_factor;
    const LV2_Options_Option scale_options[] = {
        {LV2_OPTIONS_INSTANCE, 0, urid_map(LV2_UI__scaleFactor), sizeof scale, urid_map(LV2_ATOM__Float), &scale},
        {LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, NULL},
    };
    const LV2_Feature options = {LV2_OPTIONS__options, (void *)scale_options};
    const LV2_Feature *features[] = {&map, &unmap, &parent, &resize_feature, &idle, scale > 0 ? &options : NULL, NULL};
    LV2UI_Widget widget = NULL;
    instance->writes = 0;
    instance->idle_stopped = false;
    instance->open = true;  /* write_function may be called from instantiate */
    instance->handle = host->descriptor->instantiate(host->descriptor, TACTUS_URI, host->bundle_path, write_function,
                                                     instance, &widget, features);
    if (!instance->handle) {
        instance->open = false;
        XDestroyWindow(display, instance->parent);
        XSync(display, False);
        message_log_event("instantiate-failed", number, NULL);
        fprintf(stderr, "tactus-editorhost: instance %d: instantiate returned NULL\n", number);
        return false;
    }
    instance->widget = (Window)(uintptr_t)widget;
    XSync(display, False);
    /* The parent takes the size of the UI's window (as a socket takes its plug's). */
    Window root;
    int x, y;
    unsigned width = 0, height = 0, border, depth;
    if (instance->widget && XGetGeometry(display, instance->widget, &root, &x, &y, &width, &height, &border, &depth)) {
        XResizeWindow(display, instance->parent, width, height);
        XSync(display, False);
    }
    char extra[160];
    snprintf(extra, sizeof extra, ",\"widget\":%lu,\"parent\":%lu,\"width\":%u,\"height\":%u", instance->widget,
             instance->parent, width, height);
    message_log_event("open", number, extra);
    return true;
}

/* Whether `window` is still a child of `parent` (asked without touching
 * `window` itself, which may be gone: that would be an X error). */
static bool has_child(Display *display, Window parent, Window window)
{
    Window root, parent_of, *children = NULL;
    unsigned count = 0;
    bool found = false;
    if (XQueryTree(display, parent, &root, &parent_of, &children, &count)) {
        for (unsigned i = 0; i < count; ++i) found = found || children[i] == window;
        if (children) XFree(children);
    }
    return found;
}

void editor_close(EditorHost *host, int number)
{
    EditorInstance *instance = editor_instance(host, number);
    if (!instance) return;
    host->descriptor->cleanup(instance->handle);
    instance->handle = NULL;
    instance->open = false;
    XSync(host->display, False);
    bool window_left = instance->widget && has_child(host->display, instance->parent, instance->widget);
    char extra[96];
    snprintf(extra, sizeof extra, ",\"writes\":%d,\"window_left\":%s", instance->writes, window_left ? "true" : "false");
    message_log_event("close", number, extra);
    XDestroyWindow(host->display, instance->parent);
    XSync(host->display, False);
    plugin_close(instance->plugin);
    instance->plugin = NULL;
    while (instance->echoes) {
        PendingEcho *next = instance->echoes->next;
        free(instance->echoes->text);
        free(instance->echoes);
        instance->echoes = next;
    }
}

void editor_send_control(EditorHost *host, EditorInstance *instance, uint32_t port, float value)
{
    host->descriptor->port_event(instance->handle, port, sizeof value, 0, &value);
}

void editor_send(EditorHost *host, EditorInstance *instance, const NotifyMessage *message)
{
    host->descriptor->port_event(instance->handle, TACTUS_PORT_NOTIFY, (uint32_t)(sizeof(LV2_Atom) + message->atom->size),
                                 urid_map(LV2_ATOM__eventTransfer), message->atom);
}

/* The loopback's echoes that are due: each as the plugin would send it back. */
static void send_due_echoes(EditorHost *host, EditorInstance *instance, double now)
{
    while (instance->open && instance->echoes && instance->echoes->due <= now) {
        PendingEcho *echo = instance->echoes;
        instance->echoes = echo->next;
        NotifyMessage message;
        if (notify_pattern(&message, echo->text, echo->length, echo->sequence_number)) {
            char extra[48];
            snprintf(extra, sizeof extra, ",\"sequence\":%d", echo->sequence_number);
            message_log_event("echo", instance->number, extra);
            editor_send(host, instance, &message);
            notify_message_free(&message);
        }
        free(echo->text);
        free(echo);
    }
}

void editor_idle_all(EditorHost *host)
{
    double now = monotonic_seconds();
    for (int i = 0; i < EDITORHOST_MAX_INSTANCES; ++i) {
        EditorInstance *instance = &host->instances[i];
        if (!instance->open || instance->idle_stopped) continue;
        send_due_echoes(host, instance, now);
        if (instance->plugin) plugin_to_ui(instance->plugin, host, instance);
        /* The frame: the idle call alone (drawing), not the messages delivered before it. */
        double began = monotonic_seconds();
        int status = host->idle->idle(instance->handle);
        if (instance->frame_count < EDITORHOST_MAX_FRAMES) instance->frame_seconds[instance->frame_count++] = monotonic_seconds() - began;
        if (status != 0) {
            /* A real host would close the UI now; this one says so and stops idling it. */
            instance->idle_stopped = true;
            char extra[32];
            snprintf(extra, sizeof extra, ",\"status\":%d", status);
            message_log_event("idle-stopped", instance->number, extra);
            fprintf(stderr, "tactus-editorhost: instance %d: idle returned %d (the UI asks to be closed)\n", i + 1, status);
        }
    }
    while (XPending(host->display) > 0) {
        XEvent event;
        XNextEvent(host->display, &event);
    }
}

void editor_resize(EditorHost *host, EditorInstance *instance, int width, int height)
{
    XResizeWindow(host->display, instance->parent, (unsigned)width, (unsigned)height);
    if (instance->widget) XResizeWindow(host->display, instance->widget, (unsigned)width, (unsigned)height);
    XSync(host->display, False);
}

bool editor_window_geometry(EditorHost *host, EditorInstance *instance, int *x, int *y, int *width, int *height)
{
    XWindowAttributes attributes;
    Window child;
    if (!instance->widget || !XGetWindowAttributes(host->display, instance->widget, &attributes)) return false;
    XTranslateCoordinates(host->display, instance->widget, attributes.root, 0, 0, x, y, &child);
    *width = attributes.width;
    *height = attributes.height;
    return true;
}

void editor_plugins_run(EditorHost *host)
{
    double now = monotonic_seconds();
    for (int i = 0; i < EDITORHOST_MAX_INSTANCES; ++i)
        if (host->instances[i].open && host->instances[i].plugin) plugin_run_due(host->instances[i].plugin, i + 1, now);
}

double editor_plugins_next_due(EditorHost *host)
{
    double next = 1e300;
    for (int i = 0; i < EDITORHOST_MAX_INSTANCES; ++i)
        if (host->instances[i].open && host->instances[i].plugin) {
            double due = plugin_next_due(host->instances[i].plugin);
            if (due < next) next = due;
        }
    return next;
}

long editor_text(EditorHost *host, EditorInstance *instance, const char *path)
{
    const TactusEditorText *interface = host->descriptor->extension_data
        ? host->descriptor->extension_data(TACTUS_EDITOR_TEXT_URI) : NULL;
    if (!interface) return -2;
    int64_t size = interface->text(instance->handle, NULL, 0);
    if (size < 0) return -1;
    uint8_t *text = malloc((size_t)size + 1);
    if (!text) return -2;
    size = interface->text(instance->handle, text, (uint64_t)size);
    FILE *f = fopen(path, "wb");
    long written = -2;
    if (f) {
        if (fwrite(text, 1, (size_t)size, f) == (size_t)size) written = (long)size;
        if (fclose(f) != 0) written = -2;
    }
    free(text);
    return written;
}
