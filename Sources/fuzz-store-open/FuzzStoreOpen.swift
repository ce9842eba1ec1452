// Fuzz target `store-open` (CdFaultSupport/Fuzz/FuzzTarget.swift, docs/TESTING.md).
import CdFaultSupport

@main enum FuzzStoreOpen {
    static func main() { FuzzMain.run(.storeOpen) }
}

#if CADMIUM_LIBFUZZER
/// libFuzzer's entry point, for a link where the fuzzer runtime's `main` is the one used.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzMain.runOne(.storeOpen, data, size)
}
#endif
