// Fuzz target `wal-recovery` (CdFaultSupport/Fuzz/FuzzTarget.swift, docs/TESTING.md).
import CdFaultSupport

@main enum FuzzWalRecovery {
    static func main() { FuzzMain.run(.walRecovery) }
}
