/*
 * A stand-in for the ALSA sequencer, for running Qtractor where there is none
 * (no /dev/snd, no loadable kernel modules: containers, CI). Preloaded with
 * LD_PRELOAD, it replaces every libasound function that takes a sequencer
 * handle: opening succeeds with a handle of its own, and every call on it
 * succeeds and does nothing (no clients or ports to list, no event ever
 * arrives, every event sent is dropped). Qtractor's engine then starts, and
 * its audio and plugin chains run on JACK; its ALSA MIDI is simply silent.
 * Functions on info structures (allocated with the real *_sizeof) stay the
 * real library's.
 *
 * Test-only, used by scripts/host-test. Written from <alsa/seq.h> and
 * <alsa/seqmid.h>, whose prototypes it repeats.
 */
#include <alsa/asoundlib.h>
#include <errno.h>
#include <stddef.h>

static int fake_sequencer;

#pragma GCC diagnostic ignored "-Wunused-parameter"

int snd_seq_open(snd_seq_t **handle, const char *name, int streams, int mode)
{
    if (handle)
        *handle = (snd_seq_t *)&fake_sequencer;
    return 0;
}

int snd_seq_open_lconf(snd_seq_t **handle, const char *name, int streams, int mode, snd_config_t *lconf)
{
    if (handle)
        *handle = (snd_seq_t *)&fake_sequencer;
    return 0;
}

const char * snd_seq_name(snd_seq_t *seq)
{
    return "default";
}

int snd_seq_close(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_poll_descriptors_count(snd_seq_t *handle, short events)
{
    return 0;
}

int snd_seq_poll_descriptors(snd_seq_t *handle, struct pollfd *pfds, unsigned int space, short events)
{
    return 0;
}

int snd_seq_poll_descriptors_revents(snd_seq_t *seq, struct pollfd *pfds, unsigned int nfds, unsigned short *revents)
{
    return 0;
}

int snd_seq_nonblock(snd_seq_t *handle, int nonblock)
{
    return 0;
}

int snd_seq_client_id(snd_seq_t *handle)
{
    return 128; /* the first id a user client gets */
}

size_t snd_seq_get_output_buffer_size(snd_seq_t *handle)
{
    return 0;
}

size_t snd_seq_get_input_buffer_size(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_set_output_buffer_size(snd_seq_t *handle, size_t size)
{
    return 0;
}

int snd_seq_set_input_buffer_size(snd_seq_t *handle, size_t size)
{
    return 0;
}

int snd_seq_system_info(snd_seq_t *handle, snd_seq_system_info_t *info)
{
    return 0;
}

int snd_seq_get_client_info(snd_seq_t *handle, snd_seq_client_info_t *info)
{
    return 0;
}

int snd_seq_get_any_client_info(snd_seq_t *handle, int client, snd_seq_client_info_t *info)
{
    return -ENOENT;
}

int snd_seq_set_client_info(snd_seq_t *handle, snd_seq_client_info_t *info)
{
    return 0;
}

int snd_seq_query_next_client(snd_seq_t *handle, snd_seq_client_info_t *info)
{
    return -ENOENT; /* no other client: enumeration ends at once */
}

int snd_seq_get_client_pool(snd_seq_t *handle, snd_seq_client_pool_t *info)
{
    return 0;
}

int snd_seq_set_client_pool(snd_seq_t *handle, snd_seq_client_pool_t *info)
{
    return 0;
}

int snd_seq_create_port(snd_seq_t *handle, snd_seq_port_info_t *info)
{
    return 0;
}

int snd_seq_delete_port(snd_seq_t *handle, int port)
{
    return 0;
}

int snd_seq_get_port_info(snd_seq_t *handle, int port, snd_seq_port_info_t *info)
{
    return 0;
}

int snd_seq_get_any_port_info(snd_seq_t *handle, int client, int port, snd_seq_port_info_t *info)
{
    return -ENOENT;
}

int snd_seq_set_port_info(snd_seq_t *handle, int port, snd_seq_port_info_t *info)
{
    return 0;
}

int snd_seq_query_next_port(snd_seq_t *handle, snd_seq_port_info_t *info)
{
    return -ENOENT;
}

int snd_seq_get_port_subscription(snd_seq_t *handle, snd_seq_port_subscribe_t *sub)
{
    return 0;
}

int snd_seq_subscribe_port(snd_seq_t *handle, snd_seq_port_subscribe_t *sub)
{
    return 0;
}

int snd_seq_unsubscribe_port(snd_seq_t *handle, snd_seq_port_subscribe_t *sub)
{
    return 0;
}

int snd_seq_query_port_subscribers(snd_seq_t *seq, snd_seq_query_subscribe_t * subs)
{
    return -ENOENT;
}

int snd_seq_create_queue(snd_seq_t *seq, snd_seq_queue_info_t *info)
{
    return 0;
}

int snd_seq_alloc_named_queue(snd_seq_t *seq, const char *name)
{
    return 0;
}

int snd_seq_alloc_queue(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_free_queue(snd_seq_t *handle, int q)
{
    return 0;
}

int snd_seq_get_queue_info(snd_seq_t *seq, int q, snd_seq_queue_info_t *info)
{
    return 0;
}

int snd_seq_set_queue_info(snd_seq_t *seq, int q, snd_seq_queue_info_t *info)
{
    return 0;
}

int snd_seq_query_named_queue(snd_seq_t *seq, const char *name)
{
    return 0;
}

int snd_seq_get_queue_usage(snd_seq_t *handle, int q)
{
    return 0;
}

int snd_seq_set_queue_usage(snd_seq_t *handle, int q, int used)
{
    return 0;
}

int snd_seq_get_queue_status(snd_seq_t *handle, int q, snd_seq_queue_status_t *status)
{
    return 0;
}

int snd_seq_get_queue_tempo(snd_seq_t *handle, int q, snd_seq_queue_tempo_t *tempo)
{
    return 0;
}

int snd_seq_set_queue_tempo(snd_seq_t *handle, int q, snd_seq_queue_tempo_t *tempo)
{
    return 0;
}

int snd_seq_get_queue_timer(snd_seq_t *handle, int q, snd_seq_queue_timer_t *timer)
{
    return 0;
}

int snd_seq_set_queue_timer(snd_seq_t *handle, int q, snd_seq_queue_timer_t *timer)
{
    return 0;
}

int snd_seq_event_output(snd_seq_t *handle, snd_seq_event_t *ev)
{
    return 0;
}

int snd_seq_event_output_buffer(snd_seq_t *handle, snd_seq_event_t *ev)
{
    return 0;
}

int snd_seq_event_output_direct(snd_seq_t *handle, snd_seq_event_t *ev)
{
    return 0;
}

int snd_seq_event_input(snd_seq_t *handle, snd_seq_event_t **ev)
{
    if (ev)
        *ev = NULL;
    return -EAGAIN; /* nothing ever arrives */
}

int snd_seq_event_input_pending(snd_seq_t *seq, int fetch_sequencer)
{
    return 0;
}

int snd_seq_drain_output(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_event_output_pending(snd_seq_t *seq)
{
    return 0;
}

int snd_seq_extract_output(snd_seq_t *handle, snd_seq_event_t **ev)
{
    return 0;
}

int snd_seq_drop_output(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_drop_output_buffer(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_drop_input(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_drop_input_buffer(snd_seq_t *handle)
{
    return 0;
}

int snd_seq_remove_events(snd_seq_t *handle, snd_seq_remove_events_t *info)
{
    return 0;
}

int snd_seq_control_queue(snd_seq_t *seq, int q, int type, int value, snd_seq_event_t *ev)
{
    return 0;
}

int snd_seq_create_simple_port(snd_seq_t *seq, const char *name, unsigned int caps, unsigned int type)
{
    return 0;
}

int snd_seq_delete_simple_port(snd_seq_t *seq, int port)
{
    return 0;
}

int snd_seq_connect_from(snd_seq_t *seq, int my_port, int src_client, int src_port)
{
    return 0;
}

int snd_seq_connect_to(snd_seq_t *seq, int my_port, int dest_client, int dest_port)
{
    return 0;
}

int snd_seq_disconnect_from(snd_seq_t *seq, int my_port, int src_client, int src_port)
{
    return 0;
}

int snd_seq_disconnect_to(snd_seq_t *seq, int my_port, int dest_client, int dest_port)
{
    return 0;
}

int snd_seq_set_client_name(snd_seq_t *seq, const char *name)
{
    return 0;
}

int snd_seq_set_client_event_filter(snd_seq_t *seq, int event_type)
{
    return 0;
}

int snd_seq_set_client_pool_output(snd_seq_t *seq, size_t size)
{
    return 0;
}

int snd_seq_set_client_pool_output_room(snd_seq_t *seq, size_t size)
{
    return 0;
}

int snd_seq_set_client_pool_input(snd_seq_t *seq, size_t size)
{
    return 0;
}

int snd_seq_sync_output_queue(snd_seq_t *seq)
{
    return 0;
}

int snd_seq_parse_address(snd_seq_t *seq, snd_seq_addr_t *addr, const char *str)
{
    return 0;
}

int snd_seq_reset_pool_output(snd_seq_t *seq)
{
    return 0;
}

int snd_seq_reset_pool_input(snd_seq_t *seq)
{
    return 0;
}
