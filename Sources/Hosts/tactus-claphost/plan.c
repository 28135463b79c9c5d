/*
 * tactus-claphost's plan mode (--plan FILE): blocks as a CLAP host gives
 * them, read from a text file that TactusCLAPTests writes from a transport
 * script (the simulated host's state at each block start, its changes
 * inside blocks, MIDI, parameters), so that the same script runs through
 * this host and through tactus-lv2host and their logs are compared. One
 * line each, numbers in decimal:
 *
 *   block START COUNT                          a block of COUNT frames at frame START
 *   start FLAGS POS TEMPO NUM DENOM            its process->transport (none: a null transport)
 *   transport TIME FLAGS POS TEMPO NUM DENOM   a CLAP_EVENT_TRANSPORT at TIME in the block
 *   midi TIME B0 B1 B2                         a CLAP_EVENT_MIDI
 *   param TIME ID VALUE                        a CLAP_EVENT_PARAM_VALUE
 *
 * FLAGS are clap_transport_flags, POS song_pos_beats (the fixed point), TEMPO
 * in quarter notes a minute; events come in time order.
 */
#include "plan.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 512

typedef union {
    clap_event_header_t header;
    clap_event_transport_t transport;
    clap_event_midi_t midi;
    clap_event_param_value_t param;
} any_event;

typedef struct {
    any_event events[MAX_EVENTS];
    uint32_t count;
} block_events;

static uint32_t plan_size(const clap_input_events_t *list) { return ((const block_events *)list->ctx)->count; }

static const clap_event_header_t *plan_get(const clap_input_events_t *list, uint32_t index)
{
    const block_events *b = list->ctx;
    return index < b->count ? &b->events[index].header : NULL;
}

static void transport_of(clap_event_transport_t *t, uint32_t time, unsigned flags, long long pos, double tempo, unsigned num, unsigned denom)
{
    memset(t, 0, sizeof *t);
    t->header = (clap_event_header_t){sizeof *t, time, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_TRANSPORT, 0};
    t->flags = flags;
    t->song_pos_beats = pos;
    t->tempo = tempo;
    t->tsig_num = (uint16_t)num;
    t->tsig_denom = (uint16_t)denom;
}

int plan_run(const char *path, const clap_plugin_t *plugin, const clap_output_events_t *output, long long *block_start)
{
    FILE *f = fopen(path, "r");
    if (!f) return fprintf(stderr, "tactus-claphost: cannot read the --plan file\n"), 1;
    static block_events events;
    const clap_input_events_t input = {&events, plan_size, plan_get};
    clap_event_transport_t at_start;
    bool has_start = false, in_block = false;
    long long start = 0, count = 0;
    char line[256];
    int status = 0, number = 0;
    for (;;) {
        bool more = fgets(line, sizeof line, f) != NULL;
        number++;
        if (!more || strncmp(line, "block ", 6) == 0) {
            if (in_block) {
                clap_process_t process = {
                    .steady_time = start,
                    .frames_count = (uint32_t)count,
                    .transport = has_start ? &at_start : NULL,
                    .in_events = &input,
                    .out_events = output,
                };
                *block_start = start;
                if (plugin->process(plugin, &process) != CLAP_PROCESS_CONTINUE) {
                    fprintf(stderr, "tactus-claphost: process did not continue\n");
                    status = 1;
                    break;
                }
            }
            if (!more) break;
            if (sscanf(line, "block %lld %lld", &start, &count) != 2 || start < 0 || count <= 0 || count > 1 << 20) goto bad;
            in_block = true;
            has_start = false;
            events.count = 0;
            continue;
        }
        unsigned flags, num, denom, time, id, b0, b1, b2;
        long long pos;
        double tempo, value;
        if (!in_block) goto bad;
        if (sscanf(line, "start %u %lld %lf %u %u", &flags, &pos, &tempo, &num, &denom) == 5) {
            transport_of(&at_start, 0, flags, pos, tempo, num, denom);
            has_start = true;
            continue;
        }
        if (events.count == MAX_EVENTS) goto bad;
        any_event *e = &events.events[events.count];
        if (sscanf(line, "transport %u %u %lld %lf %u %u", &time, &flags, &pos, &tempo, &num, &denom) == 6) {
            transport_of(&e->transport, time, flags, pos, tempo, num, denom);
        } else if (sscanf(line, "midi %u %u %u %u", &time, &b0, &b1, &b2) == 4) {
            e->midi = (clap_event_midi_t){{sizeof e->midi, time, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_MIDI, 0}, 0, {(uint8_t)b0, (uint8_t)b1, (uint8_t)b2}};
        } else if (sscanf(line, "param %u %u %lf", &time, &id, &value) == 3) {
            e->param = (clap_event_param_value_t){
                .header = {sizeof e->param, time, CLAP_CORE_EVENT_SPACE_ID, CLAP_EVENT_PARAM_VALUE, 0},
                .param_id = id, .note_id = -1, .port_index = -1, .channel = -1, .key = -1, .value = value};
        } else {
            goto bad;
        }
        events.count++;
    }
    fclose(f);
    return status;
bad:
    fprintf(stderr, "tactus-claphost: --plan line %d is not a plan line: %s", number, line);
    fclose(f);
    return 1;
}
