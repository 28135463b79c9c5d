import TactusFuzzTargets

/// libFuzzer's entry point for the SMFReaderTarget fuzz target (built by `make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    SMFReaderTarget.fuzz(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
