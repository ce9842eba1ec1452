// Fuzz target `model-reader` (CdFaultSupport/Fuzz/FuzzTarget.swift, docs/TESTING.md).
import CdFaultSupport

@main enum FuzzModelReader {
    static func main() { FuzzMain.run(.modelReader) }
}
