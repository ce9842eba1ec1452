// Fuzz target `store-open` (CdFaultSupport/Fuzz/FuzzTarget.swift, docs/TESTING.md).
import CdFaultSupport

@main enum FuzzStoreOpen {
    static func main() { FuzzMain.run(.storeOpen) }
}
