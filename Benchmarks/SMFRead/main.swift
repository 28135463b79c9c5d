import Glibc
import TactusEngine
import TactusModel

// tactus-smf-bench FILE [RUNS]: the SMF reader alone (no pattern building) on
// one file, RUNS times (default 50) after 3 unmeasured runs; prints
// `tactus<TAB>BYTES<TAB>NOTES<TAB>MIN_MS<TAB>MEDIAN_MS` (BENCHMARKS.md, make bench).

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let f = fopen(arguments[1], "rb") else {
    print("usage: tactus-smf-bench FILE [RUNS]")
    exit(2)
}
var bytes: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 1 << 16)
while true {
    let n = fread(&chunk, 1, chunk.count, f)
    bytes += chunk.prefix(n)
    if n < chunk.count { break }
}
fclose(f)
let runs = arguments.count >= 3 ? max(Int(arguments[2]) ?? 50, 1) : 50
var notes = 0
var times: [Double] = []
for run in 0..<(runs + 3) {
    let t0 = now()
    do {
        let file = try MIDIFileReader().read(bytes)
        notes = file.noteCount
    } catch {
        print("\(arguments[1]): \(error.message)")
        exit(1)
    }
    if run >= 3 { times.append((now() - t0) * 1000) }
}
times.sort()
print("tactus\t\(bytes.count)\t\(notes)\t\(times[0])\t\(times[times.count / 2])")
