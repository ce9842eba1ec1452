// Fuzz target `predicate` (CdFaultSupport/Fuzz/FuzzTarget.swift, docs/TESTING.md).
import CdFaultSupport

@main enum FuzzPredicate {
    static func main() { FuzzMain.run(.predicate) }
}
