// Fuzz target `verifier` (CdFaultSupport/Fuzz/FuzzTarget.swift, docs/TESTING.md).
import CdFaultSupport

@main enum FuzzVerifier {
    static func main() { FuzzMain.run(.verifier) }
}
