/* tactus-editorhost: the pattern editor's test host (Tests/Editor/editor-test).
 *
 *   tactus-editorhost [--ui FILE] [--log FILE] [--instances N] [--script FILE] [--keep-loaded]
 *                     [--plugin FILE [--block N] [--rate R] [--control-capacity B] [--notify-capacity B]
 *                      [--from-ui-ring B] [--to-ui-ring B] [--worker-ring B]]
 *
 * Loads the editor (--ui, default plugin.lv2/tactus_ui.so), opens N instances
 * (default 2; each under a parent window of its own, two to a row, 1024 by
 * 600 pixels apart: a screen of 2048x1200 shows four), and runs commands from
 * the script, or from standard input while idling the instances about 30
 * times a second. Every write_function
 * call goes to the log (--log, default standard output) as a JSON line.
 * Instances are numbered from 1. Commands, one to a line (# starts a comment):
 *
 *   open I | close I            instantiate, or cleanup (the parent window is destroyed after)
 *   wait MS                     idle for MS milliseconds
 *   idle N                      N idle rounds at once
 *   pattern I FILE [SEQ]        patch:Set of urn:tactus:pattern with FILE's text (and patch:sequenceNumber SEQ)
 *   error I [TEXT]              patch:Set of urn:tactus:error (no text: cleared)
 *   file I PATH                 patch:Set of urn:tactus:patternFile
 *   dropped I N                 patch:Set of urn:tactus:droppedNoteOns
 *   playhead I BEAT BPM SPEED [BEATS_PER_BAR]   urn:tactus:playhead (with time:beatsPerBar when given)
 *   scene I PLAYING QUEUED SWITCH_BEAT SONG_ENTRY [ORIGIN]   urn:tactus:scene (SWITCH_BEAT - : none; ORIGIN 0 unless given)
 *   control I PORT VALUE        a control port's value (port_event, format 0), as hosts pass them on
 *   scale FACTOR                ui:scaleFactor (an LV2 option) for the instances opened from now on (0: none)
 *   frames I                    prints "frames I N MEDIAN P90 MAX": how long instance I's idle calls
 *                               took since the last `frames I` (milliseconds), then starts counting anew
 *   loopback I on [MS] | off    play the plugin: each pattern edit comes back, with its number, MS later (default 40)
 *   pixel I X Y                 prints "pixel I X Y R G B" (the UI's window, read from the server)
 *   count I X Y W H R G B TOL   prints "count I N": the pixels of the rectangle within TOL of (R, G, B)
 *   windows                     prints "window I ID X Y WIDTH HEIGHT" for each open instance (ID: the UI's window)
 *   screenshot I FILE           the UI's window as a PNG
 *   resize I WIDTH HEIGHT       the parent and the UI's window resized, as a toolkit's socket does
 *   writes I                    prints "writes I N": write_function calls so far
 *   mark TEXT                   prints "mark TEXT": every command before it is done
 *   quit                        closes every instance, then exits
 *
 * With --plugin, each instance has the plugin itself behind it (plugin_host.c: its
 * messages to the UI are the plugin's, the UI's writes go to it), and:
 *
 *   state I FILE                the plugin's saved pattern text into FILE; prints "state I BYTES"
 *   restore I FILE [MUTES]      restore() the plugin with FILE's text (as a preset or a session does), and
 *                               urn:tactus:laneMutes MUTES (an atom:Long, bit i for lane i + 1) when given
 *   load I FILE                 patch:Set of urn:tactus:patternFile to the plugin (a host's file control:
 *                               a pattern or a .mid file, which the plugin's worker imports)
 *   text I FILE                 the editor's text (TactusEditorText) into FILE; prints "text I BYTES",
 *                               or "text I -1" while the editor does not hold the plugin's text
 *
 * Messages a port_event carries go to the notify port (2) as atom:eventTransfer.
 * A command that fails prints "error LINE: why" on standard output and makes
 * the exit status 1. An X error on any connection (the host's or the UI's) is
 * printed, logged, and ends the process with status 3: it is never hidden.
 */
#include "editorhost.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define IDLE_PERIOD (1.0 / 30)

static EditorHost host;
static double next_idle;
static int failures;
static bool quitting;

/* --- X errors --------------------------------------------------------------------------- */

static int x_error(Display *display, XErrorEvent *error)
{
    char text[256] = "";
    XGetErrorText(display, error->error_code, text, sizeof text);
    const char *whose = display == host.display ? "the host's connection" : "a connection of the UI";
    fprintf(stderr, "tactus-editorhost: X error on %s: %s (request %u.%u, resource 0x%lx)\n", whose, text,
            error->request_code, error->minor_code, error->resourceid);
    char extra[400];
    snprintf(extra, sizeof extra, ",\"connection\":\"%s\",\"error_code\":%u,\"request\":%u,\"minor\":%u,\"resource\":%lu",
             display == host.display ? "host" : "ui", error->error_code, error->request_code, error->minor_code,
             error->resourceid);
    message_log_event("x-error", 0, extra);
    fflush(stdout);
    _exit(3);
}

/* --- Idling ----------------------------------------------------------------------------- */

static void idle_if_due(void)
{
    editor_plugins_run(&host);
    double now = monotonic_seconds();
    if (now < next_idle) return;
    editor_idle_all(&host);
    next_idle += IDLE_PERIOD;
    if (next_idle < now) next_idle = now + IDLE_PERIOD;  /* fell behind (valgrind): no burst to catch up */
}

static void sleep_until(double when)
{
    double delay = when - monotonic_seconds();
    if (delay <= 0) return;
    struct timespec t = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static void idle_for(double seconds)
{
    double end = monotonic_seconds() + seconds;
    for (;;) {
        idle_if_due();
        double now = monotonic_seconds();
        if (now >= end) break;
        double wake = next_idle < end ? next_idle : end;
        double block = editor_plugins_next_due(&host);
        sleep_until(block < wake ? block : wake);
    }
}

/* --- Commands --------------------------------------------------------------------------- */

static unsigned long line_number;

static void failed(const char *format, const char *detail)
{
    printf("error %lu: ", line_number);
    printf(format, detail);
    printf("\n");
    fflush(stdout);
    ++failures;
}

/* The next word of `*line` (NUL-terminated in place), or NULL. */
static char *word(char **line)
{
    char *p = *line;
    while (*p == ' ' || *p == '\t') ++p;
    if (!*p) return NULL;
    char *start = p;
    while (*p && *p != ' ' && *p != '\t') ++p;
    if (*p) *p++ = 0;
    *line = p;
    return start;
}

static bool integer(const char *text, long *value)
{
    if (!text) return false;
    char *end;
    errno = 0;
    *value = strtol(text, &end, 10);
    return errno == 0 && end != text && *end == 0;
}

static bool number(const char *text, double *value)
{
    if (!text) return false;
    char *end;
    *value = strtod(text, &end);
    return end != text && *end == 0;
}

static EditorInstance *instance_argument(char **line)
{
    long n;
    char *text = word(line);
    if (!integer(text, &n)) {
        failed("an instance number is missing%s", "");
        return NULL;
    }
    EditorInstance *instance = editor_instance(&host, (int)n);
    if (!instance) failed("instance %s is not open", text);
    return instance;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *read_file(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t capacity = 4096, used = 0;
    char *text = malloc(capacity);
    size_t n;
    while (text && (n = fread(text + used, 1, capacity - used, f)) > 0) {
        used += n;
        if (used == capacity) {
            char *bigger = realloc(text, capacity *= 2);
            if (!bigger) { free(text); text = NULL; }
            text = bigger;
        }
    }
    fclose(f);
    *length = used;
    return text;
}

static void send_message(EditorInstance *instance, bool built, NotifyMessage *message)
{
    if (!built) { failed("cannot build the message%s", ""); return; }
    editor_send(&host, instance, message);
    notify_message_free(message);
}

static void run_command(char *line)
{
    ++line_number;
    char *command = word(&line);
    if (!command || command[0] == '#') return;
    NotifyMessage message;
    EditorInstance *instance;
    long a, b;
    double x, y, z;
    if (!strcmp(command, "open")) {
        if (!integer(word(&line), &a) || !editor_open(&host, (int)a)) failed("cannot open the instance%s", "");
    } else if (!strcmp(command, "close")) {
        if ((instance = instance_argument(&line))) editor_close(&host, instance->number);
    } else if (!strcmp(command, "wait")) {
        if (number(word(&line), &x) && x >= 0) idle_for(x / 1000);
        else failed("wait needs milliseconds%s", "");
    } else if (!strcmp(command, "idle")) {
        if (integer(word(&line), &a)) while (a-- > 0) editor_idle_all(&host);
        else failed("idle needs a count%s", "");
    } else if (!strcmp(command, "pattern")) {
        if (!(instance = instance_argument(&line))) return;
        char *path = word(&line), *sequence = word(&line);
        size_t length;
        char *text = path ? read_file(path, &length) : NULL;
        if (!text) { failed("cannot read the pattern file %s", path ? path : "(none)"); return; }
        if (sequence && !integer(sequence, &a)) { free(text); failed("not a sequence number: %s", sequence); return; }
        send_message(instance, notify_pattern(&message, text, length, sequence ? (int32_t)a : 0), &message);
        free(text);
    } else if (!strcmp(command, "error")) {
        if (!(instance = instance_argument(&line))) return;
        while (*line == ' ' || *line == '\t') ++line;
        send_message(instance, notify_error(&message, line), &message);
    } else if (!strcmp(command, "file")) {
        if (!(instance = instance_argument(&line))) return;
        char *path = word(&line);
        send_message(instance, notify_pattern_file(&message, path ? path : ""), &message);
    } else if (!strcmp(command, "dropped")) {
        if (!(instance = instance_argument(&line))) return;
        if (integer(word(&line), &a)) send_message(instance, notify_dropped(&message, a), &message);
        else failed("dropped needs a count%s", "");
    } else if (!strcmp(command, "playhead")) {
        if (!(instance = instance_argument(&line))) return;
        double meter = NAN;
        char *bar_word;
        if (number(word(&line), &x) && number(word(&line), &y) && number(word(&line), &z)
            && (!(bar_word = word(&line)) || number(bar_word, &meter)))
            send_message(instance, notify_playhead(&message, x, y, z, meter), &message);
        else failed("playhead needs BEAT BPM SPEED [BEATS_PER_BAR]%s", "");
    } else if (!strcmp(command, "scene")) {
        if (!(instance = instance_argument(&line))) return;
        long playing, queued, entry;
        char *beat_word, *origin_word;
        double beat = NAN, origin = 0;
        if (integer(word(&line), &playing) && integer(word(&line), &queued) && (beat_word = word(&line))
            && (!strcmp(beat_word, "-") || number(beat_word, &beat)) && integer(word(&line), &entry)
            && (!(origin_word = word(&line)) || number(origin_word, &origin)))
            send_message(instance, notify_scene(&message, (int32_t)playing, (int32_t)queued, beat, (int32_t)entry, origin), &message);
        else failed("scene needs PLAYING QUEUED SWITCH_BEAT|- SONG_ENTRY [ORIGIN]%s", "");
    } else if (!strcmp(command, "control")) {
        if (!(instance = instance_argument(&line))) return;
        if (integer(word(&line), &a) && number(word(&line), &x) && a >= 0 && a < 64) editor_send_control(&host, instance, (uint32_t)a, (float)x);
        else failed("control needs PORT VALUE%s", "");
    } else if (!strcmp(command, "scale")) {
        if (number(word(&line), &x) && x >= 0) host.scale_factor = (float)x;
        else failed("scale needs a factor (0: none)%s", "");
    } else if (!strcmp(command, "frames")) {
        if (!(instance = instance_argument(&line))) return;
        int n = instance->frame_count;
        qsort(instance->frame_seconds, (size_t)n, sizeof(double), compare_doubles);
        double median = n ? instance->frame_seconds[n / 2] : 0, p90 = n ? instance->frame_seconds[n * 9 / 10] : 0;
        double most = n ? instance->frame_seconds[n - 1] : 0;
        printf("frames %d %d %.3f %.3f %.3f\n", instance->number, n, median * 1000, p90 * 1000, most * 1000);
        instance->frame_count = 0;
    } else if (!strcmp(command, "loopback")) {
        if (!(instance = instance_argument(&line))) return;
        char *state = word(&line);
        instance->loopback = state && !strcmp(state, "on");
        instance->loopback_delay = number(word(&line), &x) ? x / 1000 : 0.04;
        if (!state || (strcmp(state, "on") && strcmp(state, "off"))) failed("loopback needs on or off%s", "");
    } else if (!strcmp(command, "pixel")) {
        if (!(instance = instance_argument(&line))) return;
        int rgb[3];
        if (integer(word(&line), &a) && integer(word(&line), &b) && window_pixel(host.display, instance->widget, (int)a, (int)b, rgb))
            printf("pixel %d %ld %ld %d %d %d\n", instance->number, a, b, rgb[0], rgb[1], rgb[2]);
        else failed("cannot read the pixel%s", "");
    } else if (!strcmp(command, "count")) {
        if (!(instance = instance_argument(&line))) return;
        long v[8];
        int i = 0;
        while (i < 8 && integer(word(&line), &v[i])) ++i;
        int rgb[3] = {(int)v[4], (int)v[5], (int)v[6]};
        long found;
        if (i == 8 && window_count(host.display, instance->widget, (int)v[0], (int)v[1], (int)v[2], (int)v[3], rgb, (int)v[7], &found))
            printf("count %d %ld\n", instance->number, found);
        else failed("count needs X Y WIDTH HEIGHT R G B TOLERANCE inside the window%s", "");
    } else if (!strcmp(command, "windows")) {
        for (int i = 1; i <= EDITORHOST_MAX_INSTANCES; ++i) {
            EditorInstance *open = &host.instances[i - 1];
            int wx, wy, ww, wh;
            if (open->open && editor_window_geometry(&host, open, &wx, &wy, &ww, &wh))
                printf("window %d %lu %d %d %d %d\n", i, open->widget, wx, wy, ww, wh);
        }
    } else if (!strcmp(command, "screenshot")) {
        if (!(instance = instance_argument(&line))) return;
        char *path = word(&line);
        if (path && window_screenshot(host.display, instance->widget, path)) printf("screenshot %d %s\n", instance->number, path);
        else failed("cannot take the screenshot %s", path ? path : "(no file named)");
    } else if (!strcmp(command, "resize")) {
        if (!(instance = instance_argument(&line))) return;
        if (integer(word(&line), &a) && integer(word(&line), &b) && a > 0 && b > 0) editor_resize(&host, instance, (int)a, (int)b);
        else failed("resize needs WIDTH HEIGHT%s", "");
    } else if (!strcmp(command, "writes")) {
        if ((instance = instance_argument(&line))) printf("writes %d %d\n", instance->number, instance->writes);
    } else if (!strcmp(command, "mark")) {
        while (*line == ' ' || *line == '\t') ++line;
        printf("mark %s\n", line);
    } else if (!strcmp(command, "state") || !strcmp(command, "text")) {
        bool state = !strcmp(command, "state");
        if (!(instance = instance_argument(&line))) return;
        char *path = word(&line);
        if (!path) { failed("%s needs a file", command); return; }
        if (state && !instance->plugin) { failed("no plugin behind instance %s (--plugin)", ""); return; }
        long n = state ? plugin_save_pattern(instance->plugin, path) : editor_text(&host, instance, path);
        if (n < -1 || (state && n < 0)) failed("cannot write %s", path);
        else printf("%s %d %ld\n", command, instance->number, n);
    } else if (!strcmp(command, "load")) {
        /* What a host's file control does: patch:Set of urn:tactus:patternFile to the plugin
         * (a .mid is imported by the plugin's worker; the editor then gets its text). */
        if (!(instance = instance_argument(&line))) return;
        char *path = word(&line);
        if (!path) { failed("%s needs a file", command); return; }
        if (!instance->plugin) { failed("no plugin behind instance %s (--plugin)", ""); return; }
        if (!notify_pattern_file(&message, path)) { failed("cannot build the message%s", ""); return; }
        plugin_from_ui(instance->plugin, instance->number, message.atom, (uint32_t)(sizeof(LV2_Atom) + message.atom->size));
        notify_message_free(&message);
    } else if (!strcmp(command, "restore")) {
        if (!(instance = instance_argument(&line))) return;
        char *path = word(&line);
        size_t length;
        char *mutes_word = word(&line);
        uint64_t bits = 0;
        if (mutes_word) {
            char *end;
            errno = 0;
            bits = strtoull(mutes_word, &end, 10);
            if (end == mutes_word || *end != 0 || errno || *mutes_word == '-') {
                failed("restore: MUTES is a whole number of 64 bits, not %s", mutes_word);
                return;
            }
        }
        char *text = path ? read_file(path, &length) : NULL;
        if (!text) { failed("cannot read %s", path ? path : "(no file named)"); return; }
        if (!instance->plugin || !plugin_restore_pattern(instance->plugin, text, length, bits)) failed("restore refused %s", path);
        free(text);
    } else if (!strcmp(command, "quit")) {
        quitting = true;
    } else {
        failed("unknown command %s", command);
    }
    fflush(stdout);
}

/* --- Input ------------------------------------------------------------------------------ */

static void run_script(FILE *script)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t n;
    while (!quitting && (n = getline(&line, &capacity, script)) >= 0) {
        if (n > 0 && line[n - 1] == '\n') line[n - 1] = 0;
        run_command(line);
    }
    free(line);
}

/* Standard input, read as it comes while the instances idle. */
static void run_interactive(void)
{
    char *pending = NULL;
    size_t used = 0, capacity = 0;
    while (!quitting) {
        double wake = next_idle, block = editor_plugins_next_due(&host);
        if (block < wake) wake = block;
        int timeout = (int)((wake - monotonic_seconds()) * 1000);
        struct pollfd input = {STDIN_FILENO, POLLIN, 0};
        int ready = poll(&input, 1, timeout > 0 ? timeout : 0);
        if (ready > 0) {
            if (capacity - used < 4096) {
                char *bigger = realloc(pending, capacity = capacity * 2 + 4096);
                if (!bigger) break;
                pending = bigger;
            }
            ssize_t n = read(STDIN_FILENO, pending + used, capacity - used - 1);
            if (n <= 0) break;  /* end of input: as quit */
            used += (size_t)n;
            char *start = pending, *end;
            while (!quitting && (end = memchr(start, '\n', used - (size_t)(start - pending)))) {
                *end = 0;
                run_command(start);
                start = end + 1;
            }
            used -= (size_t)(start - pending);
            memmove(pending, start, used);
        }
        idle_if_due();
    }
    free(pending);
}

static void usage(void)
{
    fprintf(stderr, "usage: tactus-editorhost [--ui FILE] [--log FILE] [--instances N] [--script FILE] [--keep-loaded]\n"
                    "                         [--plugin FILE [--block N] [--rate R] [--control-capacity B] [--notify-capacity B]\n"
                    "                          [--from-ui-ring B] [--to-ui-ring B] [--worker-ring B]]\n");
}

int main(int argc, char **argv)
{
    const char *ui_path = "plugin.lv2/tactus_ui.so", *log_path = "-", *script_path = NULL;
    int instances = 2;
    bool keep_loaded = false;
    for (int i = 1; i < argc; ++i) {
        bool has_value = i + 1 < argc;
        if (!strcmp(argv[i], "--ui") && has_value) ui_path = argv[++i];
        else if (!strcmp(argv[i], "--log") && has_value) log_path = argv[++i];
        else if (!strcmp(argv[i], "--script") && has_value) script_path = argv[++i];
        else if (!strcmp(argv[i], "--instances") && has_value) instances = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--keep-loaded")) keep_loaded = true;
        else if (!strcmp(argv[i], "--plugin") && has_value) plugin_options.path = argv[++i];
        else if (!strcmp(argv[i], "--block") && has_value) plugin_options.block = (uint32_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--rate") && has_value) plugin_options.rate = atof(argv[++i]);
        else if (!strcmp(argv[i], "--control-capacity") && has_value) plugin_options.control_capacity = (uint32_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--notify-capacity") && has_value) plugin_options.notify_capacity = (uint32_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--from-ui-ring") && has_value) plugin_options.from_ui_ring = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--to-ui-ring") && has_value) plugin_options.to_ui_ring = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--worker-ring") && has_value) plugin_options.worker_ring = (size_t)atol(argv[++i]);
        else { usage(); return 1; }
    }
    if (instances < 0 || instances > EDITORHOST_MAX_INSTANCES) { usage(); return 1; }
    signal(SIGPIPE, SIG_IGN);
    FILE *script = NULL;
    if (script_path && !(script = fopen(script_path, "r"))) {
        fprintf(stderr, "tactus-editorhost: %s: %s\n", script_path, strerror(errno));
        return 1;
    }
    if (!message_log_open(log_path)) {
        fprintf(stderr, "tactus-editorhost: %s: %s\n", log_path, strerror(errno));
        return 1;
    }
    if (plugin_options.block == 0 || !(plugin_options.rate > 0)) { usage(); return 1; }
    XSetErrorHandler(x_error);
    if (!editor_host_load(&host, ui_path) || !plugin_library_load()) return 1;
    next_idle = monotonic_seconds();
    for (int i = 1; i <= instances; ++i)
        if (!editor_open(&host, i)) ++failures;
    if (script) {
        run_script(script);
        fclose(script);
    } else {
        run_interactive();
    }
    editor_host_unload(&host, keep_loaded);
    plugin_library_unload(keep_loaded);
    message_log_close();
    urid_table_free();
    return failures ? 1 : 0;
}
