/*
 * The C side of the pattern editor (Sources/TactusUI): the LV2 UI, X11 and
 * cairo headers, and what Swift cannot import from them.
 *
 * CLV2.h (the plugin's URIs and port indices) comes first: Xlib defines a
 * `Bool` macro that breaks LV2 headers included after it.
 */
#ifndef TACTUS_CLV2UI_H
#define TACTUS_CLV2UI_H

#include "CLV2.h"
#include <lv2/ui/ui.h>
#include <time.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>
#include <cairo/cairo.h>
#include <cairo/cairo-xlib.h>

extern const char *const tactus_uri_ui_parent;
extern const char *const tactus_uri_ui_resize;
extern const char *const tactus_uri_options_options;
extern const char *const tactus_uri_ui_scaleFactor;

/* ui:parent is a Window (an integer) passed as a pointer, and the widget a
 * Window returned as one: casts Swift cannot spell for an integer typedef. */
static inline Window tactus_ui_window_from_parent(void *parent) { return (Window)(uintptr_t)parent; }
static inline void *tactus_ui_widget_from_window(Window window) { return (void *)(uintptr_t)window; }

/* Seconds on the monotonic clock: the playhead is extrapolated from it. */
static inline double tactus_ui_monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
