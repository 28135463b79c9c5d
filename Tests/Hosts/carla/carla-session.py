#!/usr/bin/env python3
"""Drive Carla headless for scripts/host-test: Tactus, then the probe, on JACK.

Carla's engine (a build of Carla's source: `make backend`) is loaded through
its own Python binding, source/frontend/carla_backend.py (ctypes), found in
the Carla source folder given with --carla. No Qt, no window.

The engine runs on the JACK driver of the server named by JACK_DEFAULT_SERVER,
in one of Carla's process modes (--mode single: one JACK client for all
plugins, the default; multiple: one JACK client per plugin), with JACK
transport. It loads Tactus (urn:tactus:sequencer) with the preset named by
--preset (an LV2 preset Carla lists as a program), or with --clap FILE Tactus
as a CLAP plugin (org.tactus.sequencer in FILE, tactus.clap) with the state in
--clap-state (docs/plugin.md's CLAP state, in base64, as Carla's
carla_set_chunk_data takes it), and the project's probe
(urn:tactus:hosttest:probe, LV2) after it, and connects Tactus's MIDI output to
the probe's input. The probe logs every run(), every position and Tactus's MIDI
($TACTUS_PROBE_LOG), and writes its log when Carla deactivates it, at the
engine's close.

It prints "carla-session: ready" when both plugins run and are connected,
then keeps Carla's engine idle loop going until a line "quit" arrives on
standard input (or it ends), and closes the engine. Errors name what failed
and exit with status 1.
"""
import argparse
import base64
import os
import select
import subprocess
import sys
import time

TACTUS_URI = "urn:tactus:sequencer"
TACTUS_CLAP_ID = "org.tactus.sequencer"
PROBE_URI = "urn:tactus:hosttest:probe"


RUNNING_HOST = None  # Carla's host once its engine runs: closed before exiting on an error


def fail(message):
    print(f"carla-session: error: {message}", file=sys.stderr, flush=True)
    if RUNNING_HOST is not None:
        RUNNING_HOST.engine_close()  # exiting with the engine running crashes in Carla's teardown
    sys.exit(1)


def jack_ports(prefix, direction):
    """The JACK ports whose names start with prefix, with the given direction ("input" or "output")."""
    out = subprocess.run(["jack_lsp", "-p"], capture_output=True, text=True).stdout
    ports, name = [], None
    for line in out.splitlines():
        if not line.startswith((" ", "\t")):
            name = line.strip()
        elif name and name.startswith(prefix) and direction in line.split(":", 1)[-1].strip().split(","):
            ports.append(name)
    return ports


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--carla", required=True, help="Carla's source folder, built with `make backend`")
    parser.add_argument("--client", default="carla-tactus", help="JACK client name of Carla's engine")
    parser.add_argument("--mode", choices=["single", "multiple"], default="single", help="Carla's process mode")
    parser.add_argument("--preset", default="Tactus host test", help="the LV2 preset (Carla program) to load into Tactus")
    parser.add_argument("--clap", help="load Tactus as the CLAP plugin of this file (tactus.clap) instead of LV2")
    parser.add_argument("--clap-state", help="with --clap: a file holding Tactus's CLAP state in base64")
    args = parser.parse_args()
    if args.clap and not args.clap_state:
        fail("--clap needs --clap-state")

    frontend = os.path.join(args.carla, "source", "frontend")
    library = os.path.join(args.carla, "bin", "libcarla_standalone2.so")
    if not os.path.isfile(os.path.join(frontend, "carla_backend.py")):
        fail(f"no source/frontend/carla_backend.py in {args.carla}")
    if not os.path.isfile(library):
        fail(f"no {library}: build Carla's backend there first (make backend)")
    sys.path.insert(0, frontend)
    import carla_backend as cb

    host = cb.CarlaHostDLL(library, False)
    mode = cb.ENGINE_PROCESS_MODE_SINGLE_CLIENT if args.mode == "single" else cb.ENGINE_PROCESS_MODE_MULTIPLE_CLIENTS
    host.set_engine_option(cb.ENGINE_OPTION_PROCESS_MODE, mode, "")
    host.set_engine_option(cb.ENGINE_OPTION_TRANSPORT_MODE, cb.ENGINE_TRANSPORT_MODE_JACK, "")
    host.set_engine_option(cb.ENGINE_OPTION_PREFER_PLUGIN_BRIDGES, 0, "")
    host.set_engine_option(cb.ENGINE_OPTION_PATH_BINARIES, 0, os.path.join(args.carla, "bin"))
    host.set_engine_option(cb.ENGINE_OPTION_PATH_RESOURCES, 0, os.path.join(args.carla, "resources"))
    host.set_engine_option(cb.ENGINE_OPTION_PLUGIN_PATH, cb.PLUGIN_LV2, os.environ.get("LV2_PATH", ""))
    if not host.engine_init("JACK", args.client):
        fail(f"Carla's engine did not start on JACK: {host.get_last_error()}")
    global RUNNING_HOST
    RUNNING_HOST = host

    if args.clap:
        # PLUGIN_OPTIONS_NULL: Carla's default options, which keep clap.state (chunks) in use.
        if not host.add_plugin(cb.BINARY_NATIVE, cb.PLUGIN_CLAP, os.path.abspath(args.clap), "", TACTUS_CLAP_ID, 0, None,
                               cb.PLUGIN_OPTIONS_NULL):
            fail(f"Carla could not load {TACTUS_CLAP_ID} from {args.clap}: {host.get_last_error()}")
    elif not host.add_plugin(cb.BINARY_NATIVE, cb.PLUGIN_LV2, "", "", TACTUS_URI, 0, None, 0):
        fail(f"Carla could not load {TACTUS_URI}: {host.get_last_error()}")
    if not host.add_plugin(cb.BINARY_NATIVE, cb.PLUGIN_LV2, "", "", PROBE_URI, 0, None, 0):
        fail(f"Carla could not load {PROBE_URI}: {host.get_last_error()}")
    tactus, probe = 0, 1

    if args.clap:
        state = open(args.clap_state).read().strip()
        host.set_chunk_data(tactus, state)
        host.prepare_for_save(tactus)
        saved = host.get_chunk_data(tactus)
        saved = saved.decode() if isinstance(saved, bytes) else saved
        if not saved or base64.b64decode(saved) != base64.b64decode(state):
            fail("Tactus (CLAP) did not take the state Carla handed it: its state read back differs")
    else:
        programs = [host.get_program_name(tactus, i) for i in range(host.get_program_count(tactus))]
        if args.preset not in programs:
            fail(f"Carla lists no preset '{args.preset}' for Tactus (it lists: {', '.join(programs) or 'none'})")
        host.set_program(tactus, programs.index(args.preset))
    for plugin in (tactus, probe):
        host.set_active(plugin, True)
    for _ in range(20):
        host.engine_idle()
        time.sleep(0.01)

    # Tactus's MIDI output to the probe's input, as JACK ports (in single-client
    # mode both are ports of Carla's one client).
    # Port names: "CLIENT:PLUGIN:PORT" in single-client mode, "PLUGIN:PORT" with a client per plugin.
    def prefix(plugin):
        name = host.get_plugin_info(plugin)["name"]
        name = name.decode() if isinstance(name, bytes) else name
        return f"{args.client}:{name}:" if args.mode == "single" else f"{name}:"
    source = jack_ports(prefix(tactus), "output")
    # Carla adds its own "events-out" port to a plugin with output controls
    # (Tactus's LV2 `playing` and `queued`: their changes as MIDI CC); Tactus's
    # MIDI is on the plugin's own port then. A plugin with one MIDI output and
    # no output controls (tactus.clap) has that one as "events-out".
    if len(source) > 1:
        source = [port for port in source if not port.endswith(":events-out")]
    target = jack_ports(prefix(probe), "input")
    if len(source) != 1 or len(target) != 1:
        fail(f"expected one MIDI output of Tactus and one input of the probe among Carla's JACK ports, found {source} and {target}")
    connected = subprocess.run(["jack_connect", source[0], target[0]], capture_output=True, text=True)
    if connected.returncode != 0:
        fail(f"jack_connect {source[0]} {target[0]}: {connected.stderr.strip()}")
    print(f"carla-session: ready ({args.mode}-client mode; {source[0]} -> {target[0]})", flush=True)

    while True:
        host.engine_idle()
        readable, _, _ = select.select([sys.stdin], [], [], 0.02)
        if readable:
            line = sys.stdin.readline()
            if line == "" or line.strip() == "quit":
                break
    host.engine_close()
    print("carla-session: engine closed", flush=True)


if __name__ == "__main__":
    main()
