# Sourced by the scripts that run a private JACK server (demo-jack, host-test):
# one way to start it, wait for it, and stop it without leaving anything behind.
#
#   jack_start NAME RATE PERIOD LOG   starts `jackd -n NAME -d dummy` in the
#                                     background, exports JACK_DEFAULT_SERVER,
#                                     sets JACKD (its PID); waits up to 5 s for
#                                     it to answer; returns 1 if it did not.
#   jack_stop                         stops it by PID (stop its clients first:
#                                     a server stopped under connected clients
#                                     leaves their semaphores in /dev/shm), then
#                                     removes what a client that died hard left
#                                     there under this server's name.

jack_start() {
    export JACK_DEFAULT_SERVER=$1   # a fixed name per script: JACK keeps a slot per name (at most 8)
    jackd -n "$1" -d dummy -r "$2" -p "$3" > "$4" 2>&1 &
    JACKD=$!
    for _ in $(seq 50); do jack_lsp > /dev/null 2>&1 && return 0; sleep 0.1; done
    jack_lsp > /dev/null 2>&1
}

jack_stop() {
    if [ -n "${JACKD:-}" ]; then kill "$JACKD" 2>/dev/null; wait "$JACKD" 2>/dev/null; fi
    JACKD=
    rm -f /dev/shm/jack_sem."$(id -u)"_"${JACK_DEFAULT_SERVER:-}"_* 2>/dev/null
    return 0
}
