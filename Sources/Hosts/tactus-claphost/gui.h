/* tactus-claphost's gui mode (gui.c). */
#ifndef TACTUS_CLAPHOST_GUI_H
#define TACTUS_CLAPHOST_GUI_H

#include <CCLAP.h>

typedef struct {
    const clap_plugin_t *plugin;
    const clap_plugin_gui_t *gui;
    const clap_plugin_timer_support_t *timer;
    void *display; /* Display * */
    unsigned long parent, editor;
    bool open, leaked_timer;
    /* The transport stopped (the host's steady transport without IS_PLAYING), for an audition. */
    bool stopped;
    long long rate, first_frame;
    double started, next_tick[4];
    long ticks;
    int step, playhead_x;
    /* A state to load while the editor is open (--gui-state), or NULL. */
    const void *state;
    size_t state_count, state_at;
} gui_session;

/* The host's timer-support extension. */
extern const clap_host_timer_support_t gui_host_timer_support;

/* Opens the editor in a window of the host's; 0 when it is open. */
int gui_open(gui_session *g, const clap_plugin_t *plugin, long long rate);
/* Before the block at `frame`: waits for its time, runs the timers, does what is due; 0 when all is well. */
int gui_step(gui_session *g, long long frame);
void gui_close(gui_session *g);

#endif
