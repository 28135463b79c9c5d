/*
 * The JACK API for Swift: the headers, a wrapper for the variadic
 * jack_client_open, and the calls the process callback makes, marked for
 * `@_noLocks`.
 */
#ifndef TACTUS_CJACK_H
#define TACTUS_CJACK_H

#include <jack/jack.h>
#include <jack/metadata.h>
#include <jack/midiport.h>
#include <jack/transport.h>
#include <jack/uuid.h>

/* jack_client_open is variadic (the server name follows the options), which
 * Swift cannot call: this wrapper takes the name as a plain argument. */
static inline jack_client_t *jack_client_open_named(const char *client_name, jack_options_t options,
                                                    jack_status_t *status, const char *server_name)
{
    if (server_name) return jack_client_open(client_name, options, status, server_name);
    return jack_client_open(client_name, options, status);
}

/*
 * JACK calls the process callback may make. JACK documents them as safe in
 * the process thread (no lock, no allocation); the attribute tells Swift's
 * `@_noLocks` checker so, since it cannot look into C.
 */
#define TACTUS_RT __attribute__((swift_attr("@_noLocks"))) static inline

TACTUS_RT void *tactus_jack_port_buffer(jack_port_t *port, jack_nframes_t n) { return jack_port_get_buffer(port, n); }
TACTUS_RT void tactus_jack_midi_clear(void *buffer) { jack_midi_clear_buffer(buffer); }
TACTUS_RT int tactus_jack_midi_write(void *buffer, jack_nframes_t time, const jack_midi_data_t *data, size_t size)
{
    return jack_midi_event_write(buffer, time, data, size);
}
TACTUS_RT uint32_t tactus_jack_midi_count(void *buffer) { return jack_midi_get_event_count(buffer); }
TACTUS_RT int tactus_jack_midi_get(jack_midi_event_t *event, void *buffer, uint32_t index)
{
    return jack_midi_event_get(event, buffer, index);
}
TACTUS_RT size_t tactus_jack_midi_space(void *buffer) { return jack_midi_max_event_size(buffer); }
/* The server's frame time at the start of this cycle: the clock every client shares. */
TACTUS_RT jack_nframes_t tactus_jack_last_frame_time(const jack_client_t *client) { return jack_last_frame_time(client); }
/* Microseconds (clock_gettime, answered by the vDSO without a system call). */
TACTUS_RT jack_time_t tactus_jack_get_time(void) { return jack_get_time(); }
TACTUS_RT jack_transport_state_t tactus_jack_transport_query(const jack_client_t *client, jack_position_t *pos)
{
    return jack_transport_query(client, pos);
}


#endif
