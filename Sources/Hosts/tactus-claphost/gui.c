/*
 * tactus-claphost's gui mode (--gui 1): the plugin's editor opened as a CLAP
 * host opens it (the gui extension, X11, embedded), in a window of the
 * host's own on $DISPLAY (Xvfb in make clap-test), driven by the host's
 * timer (timer-support, every period the plugin asked for, on this thread,
 * which is also the audio thread here, as in a host whose main thread runs
 * the engine offline). The run is paced to the wall clock, so that the
 * editor's own timing (its lease, its playhead) is a live session's.
 *
 * What a person does, at fixed times of the run (synthetic X events sent
 * to the editor's window, as a window manager would pass them):
 *   1.0 s: the transport stops (the position runs on, IS_PLAYING cleared);
 *   1.5 s: a click on an empty cell of the grid (beat 2 1/2 of the bar, key
 *          C4 = 60, absent from the default pattern): a new note, which the
 *          editor auditions (heard while stopped, §8.1);
 *   2.0 s: the transport rolls again (at the position it ran on to): the new
 *          note plays at its beat;
 *   3.0 s and 3.5 s: the playhead read back from the window's pixels (the
 *          column of its colour in a row of the grid): it must move;
 *   3.8 s: with --gui-state FILE, FILE loaded as the plugin's state (a
 *          version-2 pattern: lanes have mute buttons), which the editor shows;
 *   4.5 s: the key "m": the lane shown muted (lane 1: parameter 3), which the
 *          plugin tells the host as a gesture and a value;
 *   5.5 s: the editor closed (gui destroy).
 * Each is printed as a comment line of the event log ("# gui: ..."), which
 * clap-test reads.
 */
#include "gui.h"
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_TIMERS 4
static struct {
    uint32_t period_ms[MAX_TIMERS];
    bool used[MAX_TIMERS];
} timers;

static bool register_timer(const clap_host_t *host, uint32_t period_ms, clap_id *id)
{
    (void)host;
    for (clap_id i = 0; i < MAX_TIMERS; i++) {
        if (timers.used[i]) continue;
        timers.used[i] = true;
        timers.period_ms[i] = period_ms ? period_ms : 30;
        *id = i;
        return true;
    }
    return false;
}

static bool unregister_timer(const clap_host_t *host, clap_id id)
{
    (void)host;
    if (id >= MAX_TIMERS || !timers.used[id]) return false;
    timers.used[id] = false;
    return true;
}

const clap_host_timer_support_t gui_host_timer_support = {register_timer, unregister_timer};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int gui_fail(const char *message)
{
    fprintf(stderr, "tactus-claphost: gui: %s\n", message);
    return 1;
}

int gui_open(gui_session *g, const clap_plugin_t *plugin, long long rate)
{
    memset(g, 0, sizeof *g);
    g->plugin = plugin;
    g->rate = rate;
    g->gui = plugin->get_extension(plugin, CLAP_EXT_GUI);
    g->timer = plugin->get_extension(plugin, CLAP_EXT_TIMER_SUPPORT);
    if (!g->gui || !g->timer) return gui_fail("no gui or no timer-support extension");
    const char *api = NULL;
    bool floating = true;
    if (!g->gui->is_api_supported(plugin, CLAP_WINDOW_API_X11, false)) return gui_fail("X11 embedded is not supported");
    if (g->gui->is_api_supported(plugin, CLAP_WINDOW_API_X11, true)) return gui_fail("a floating window is accepted, which the plugin cannot give");
    if (g->gui->is_api_supported(plugin, CLAP_WINDOW_API_WAYLAND, false)) return gui_fail("Wayland is accepted");
    if (!g->gui->get_preferred_api(plugin, &api, &floating) || strcmp(api, CLAP_WINDOW_API_X11) != 0 || floating)
        return gui_fail("the preferred api is not X11 embedded");
    if (g->gui->create(plugin, CLAP_WINDOW_API_X11, true)) return gui_fail("create accepted a floating window");
    if (!g->gui->create(plugin, CLAP_WINDOW_API_X11, false)) return gui_fail("create failed");
    if (!timers.used[0]) return gui_fail("create registered no timer");
    if (!g->gui->set_scale(plugin, 1.0)) return gui_fail("set_scale(1) refused");
    uint32_t width = 0, height = 0;
    if (!g->gui->get_size(plugin, &width, &height) || width < 100 || height < 100) return gui_fail("get_size gave no size");
    g->display = XOpenDisplay(NULL);
    if (!g->display) return gui_fail("no X display (DISPLAY)");
    g->parent = XCreateSimpleWindow(g->display, XDefaultRootWindow(g->display), 0, 0, width, height, 0, 0, 0);
    XStoreName(g->display, g->parent, "tactus-claphost");
    XMapWindow(g->display, g->parent);
    XSync(g->display, False);
    clap_window_t window = {.api = CLAP_WINDOW_API_X11, .x11 = g->parent};
    if (!g->gui->set_parent(plugin, &window)) return gui_fail("set_parent failed");
    if (!g->gui->show(plugin)) return gui_fail("show failed");
    XSync(g->display, False);
    Window root, parent, *children = NULL;
    unsigned int count = 0;
    if (!XQueryTree(g->display, g->parent, &root, &parent, &children, &count) || count != 1) return gui_fail("the editor's window is not in the host's");
    g->editor = children[0];
    XFree(children);
    printf("# gui: open, %ux%u\n", width, height);
    g->open = true;
    g->started = now_seconds();
    return 0;
}

/* A button press and release at (x, y), or a key, as synthetic events. */
static void send_click(gui_session *g, int x, int y)
{
    for (int type = ButtonPress; type <= ButtonRelease; type++) {
        XEvent e = {0};
        e.xbutton.type = type;
        e.xbutton.display = g->display;
        e.xbutton.window = g->editor;
        e.xbutton.root = XDefaultRootWindow(g->display);
        e.xbutton.x = x;
        e.xbutton.y = y;
        e.xbutton.button = Button1;
        e.xbutton.same_screen = True;
        e.xbutton.state = type == ButtonRelease ? Button1Mask : 0;
        XSendEvent(g->display, g->editor, True, type == ButtonPress ? ButtonPressMask : ButtonReleaseMask, &e);
    }
    XFlush(g->display);
}

static void send_key(gui_session *g, KeySym symbol)
{
    XEvent e = {0};
    e.xkey.type = KeyPress;
    e.xkey.display = g->display;
    e.xkey.window = g->editor;
    e.xkey.root = XDefaultRootWindow(g->display);
    e.xkey.keycode = XKeysymToKeycode(g->display, symbol);
    e.xkey.same_screen = True;
    XSendEvent(g->display, g->editor, True, KeyPressMask, &e);
    XFlush(g->display);
}

/* The playhead's column in row y of the editor's window (its colour, 1.0 0.3 0.25), or -1. */
static int playhead_column(gui_session *g, int y)
{
    XWindowAttributes a;
    if (!XGetWindowAttributes(g->display, g->editor, &a)) return -1;
    XImage *image = XGetImage(g->display, g->editor, 0, y, (unsigned)a.width, 1, AllPlanes, ZPixmap);
    if (!image) return -1;
    int found = -1;
    for (int x = 0; x < a.width && found < 0; x++) {
        unsigned long p = XGetPixel(image, x, 0);
        int r = (int)((p >> 16) & 0xff), gr = (int)((p >> 8) & 0xff), b = (int)(p & 0xff);
        if (r >= 250 && gr >= 70 && gr <= 82 && b >= 58 && b <= 70) found = x;
    }
    XDestroyImage(image);
    return found;
}

static int64_t state_read(const clap_istream_t *stream, void *buffer, uint64_t size)
{
    gui_session *g = stream->ctx;
    size_t n = g->state_count - g->state_at;
    if (n > size) n = size;
    memcpy(buffer, (const char *)g->state + g->state_at, n);
    g->state_at += n;
    return (int64_t)n;
}

/* The editor's layout for the default pattern (Tests/Editor/editor-test's Layout): the keyboard
 * 56 wide, the grid from y 40, 96 pixels a beat, 12 a key, key 70 in the top row. */
#define GRID_X(beat) (56 + (int)((beat) * 96))
#define GRID_Y(key) (40 + (70 - (key)) * 12)

int gui_step(gui_session *g, long long frame)
{
    if (!g->open) return 0;
    /* Paced: this block's start is due at frame / rate seconds after the gui opened. */
    double due = g->started + (double)(frame - g->first_frame) / (double)g->rate;
    for (;;) {
        double t = now_seconds();
        for (clap_id i = 0; i < MAX_TIMERS; i++) {
            if (!timers.used[i] || t < g->next_tick[i]) continue;
            g->timer->on_timer(g->plugin, i);
            g->ticks++;
            g->next_tick[i] = t + timers.period_ms[i] / 1000.0;
        }
        if (t >= due) break;
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
    double at = (double)(frame - g->first_frame) / (double)g->rate;
    if (g->step == 0 && at >= 1.0) {
        g->stopped = true;
        printf("# gui: transport stopped at frame %lld\n", frame);
        g->step++;
    } else if (g->step == 1 && at >= 1.5) {
        send_click(g, GRID_X(2.5) + 6, GRID_Y(60) + 6);
        printf("# gui: clicked at frame %lld (beat 2 1/2, key 60)\n", frame);
        g->step++;
    } else if (g->step == 2 && at >= 2.0) {
        g->stopped = false;
        printf("# gui: transport rolls at frame %lld\n", frame);
        g->step++;
    } else if (g->step == 3 && at >= 3.0) {
        g->playhead_x = playhead_column(g, GRID_Y(62) + 3);
        printf("# gui: playhead at x %d at frame %lld\n", g->playhead_x, frame);
        g->step++;
    } else if (g->step == 4 && at >= 3.5) {
        int x = playhead_column(g, GRID_Y(62) + 3);
        printf("# gui: playhead at x %d at frame %lld\n", x, frame);
        if (x < 0 || g->playhead_x < 0 || x == g->playhead_x) return gui_fail("the playhead does not move");
        printf("# gui: the playhead moved\n");
        g->step++;
    } else if (g->step == 5 && at >= 3.8) {
        if (g->state) {
            const clap_plugin_state_t *state = g->plugin->get_extension(g->plugin, CLAP_EXT_STATE);
            g->state_at = 0;
            const clap_istream_t in = {g, state_read};
            if (!state || !state->load(g->plugin, &in)) return gui_fail("the plugin refused the --gui-state file");
            printf("# gui: state loaded at frame %lld\n", frame);
        }
        g->step++;
    } else if (g->step == 6 && at >= 4.5) {
        send_key(g, XK_m);
        printf("# gui: key m at frame %lld\n", frame);
        g->step++;
    } else if (g->step == 7 && at >= 5.5) {
        gui_close(g);
    }
    return 0;
}

void gui_close(gui_session *g)
{
    if (!g->open) return;
    g->gui->destroy(g->plugin);
    for (clap_id i = 0; i < MAX_TIMERS; i++)
        if (timers.used[i]) fprintf(stderr, "tactus-claphost: gui: a timer is still registered after destroy\n"), g->leaked_timer = true;
    XDestroyWindow(g->display, g->parent);
    XCloseDisplay(g->display);
    printf("# gui: closed after %ld timer ticks\n", g->ticks);
    g->open = false;
}
