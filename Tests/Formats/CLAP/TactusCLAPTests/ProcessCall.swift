import CCLAP
import Testing

import TactusCLAP

/// One `process()` of `frames` with the host's event lists and, when given,
/// `process->transport`, as a host calls it; it must continue.
func callProcess(
    _ instance: UnsafeMutableRawPointer, frames: UInt32, steadyTime: Int64 = -1, transport: clap_event_transport_t?,
    input: inout clap_input_events_t, output: inout clap_output_events_t
) {
    var process = clap_process_t()
    process.steady_time = steadyTime
    process.frames_count = frames
    var given = transport ?? clap_event_transport_t()
    withUnsafePointer(to: &given) { t in
        withUnsafePointer(to: &input) { i in
            withUnsafePointer(to: &output) { o in
                process.transport = transport == nil ? nil : t
                process.in_events = i
                process.out_events = o
                #expect(clapProcess(instance, &process) == clap_process_status(CLAP_PROCESS_CONTINUE))
            }
        }
    }
}
