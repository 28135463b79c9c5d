import CLilv
import CTestHost
import LV2Atoms
import LV2HostKit

/// What the bench host shares between the plugins it runs, as a real host
/// does: one URID map, `log:log`, and the options every instance gets
/// (block lengths, sequence size, sample rate, `buf-size:boundedBlockLength`);
/// each instance adds its own worker (`BenchedPlugin`).
final class BenchHost {
    let map = URIDMap()
    let uris: URIDTable
    let options: HostFeatures.Options
    private let log = UnsafeMutablePointer<LV2_Log_Log>.allocate(capacity: 1)

    init(sampleRate: Double, blockLength: Int, sequenceSize: Int) {
        uris = URIDTable(map)
        log.initialize(to: LV2_Log_Log())
        tactus_host_log_init(log)
        let length = Int32(blockLength)
        options = HostFeatures.Options(
            maxBlockLength: length, minBlockLength: length, nominalBlockLength: length, sequenceSize: Int32(sequenceSize),
            sampleRate: Float(sampleRate))
    }

    deinit { log.deallocate() }

    /// One instance's features: the shared ones and its worker.
    func features(worker: SynchronousWorker) -> HostFeatures {
        HostFeatures(map: map, log: log, worker: worker, options: options, threadSafeRestore: false, boundedBlockLength: true)
    }
}
