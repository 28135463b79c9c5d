#include <jack/jack.h>
#include <jack/midiport.h>
#include <jack/transport.h>

/* jack_client_open is variadic (the server name follows the options), which
 * Swift cannot call: this wrapper takes the name as a plain argument. */
static inline jack_client_t *jack_client_open_named(const char *client_name, jack_options_t options,
                                                    jack_status_t *status, const char *server_name)
{
    if (server_name) return jack_client_open(client_name, options, status, server_name);
    return jack_client_open(client_name, options, status);
}
