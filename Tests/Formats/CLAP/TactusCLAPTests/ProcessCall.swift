import CCLAP
import Testing

import TactusCLAP

/// `clap_plugin_state.load` of `state`'s bytes, read through a stream as a host gives them; its answer.
func loadState(_ instance: UnsafeMutableRawPointer, _ state: [UInt8]) -> Bool {
    var bytes = state
    return bytes.withUnsafeMutableBytes { raw -> Bool in
        final class Reader { var bytes: UnsafeMutableRawBufferPointer; var at = 0; init(_ b: UnsafeMutableRawBufferPointer) { bytes = b } }
        let reader = Reader(raw)
        var stream = clap_istream_t(
            ctx: Unmanaged.passUnretained(reader).toOpaque(),
            read: { s, buffer, size in
                let r = Unmanaged<Reader>.fromOpaque(s!.pointee.ctx!).takeUnretainedValue()
                let n = min(Int(size), r.bytes.count - r.at)
                buffer!.copyMemory(from: r.bytes.baseAddress! + r.at, byteCount: n)
                r.at += n
                return Int64(n)
            })
        return withExtendedLifetime(reader) { clapStateLoad(instance, &stream) }
    }
}

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
