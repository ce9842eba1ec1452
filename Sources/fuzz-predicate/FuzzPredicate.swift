// Fuzz target `predicate` (CdFaultSupport/Fuzz/FuzzTarget.swift, docs/TESTING.md).
import CdFaultSupport

@main enum FuzzPredicate {
    static func main() { FuzzMain.run(.predicate) }
}

#if CADMIUM_LIBFUZZER
/// libFuzzer's entry point, for a link where the fuzzer runtime's `main` is the one used.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzMain.runOne(.predicate, data, size)
}
#endif
