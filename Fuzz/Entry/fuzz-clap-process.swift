import TactusFuzzTargets

/// libFuzzer's entry point for the CLAPProcessTarget fuzz target (built by `make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    CLAPProcessTarget.fuzz(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
