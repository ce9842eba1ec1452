import Foundation
import CdStore
import CdStoreTesting

/// The tests' seeded generator: the library's SplitMix64.
typealias SeededGenerator = SplitMix64

/// Seeds for a randomized test: `CADMIUM_SEED` (one seed) overrides the defaults.
func testSeeds(_ defaults: [UInt64]) -> [UInt64] { testSeeds("CADMIUM_SEED", defaults: defaults) }

/// The seeds to run: the one in environment variable `name` when set, else `defaults`.
func testSeeds(_ name: String, defaults: [UInt64]) -> [UInt64] {
    if let s = ProcessInfo.processInfo.environment[name], let v = UInt64(s) { return [v] }
    return defaults
}

/// An integer from the environment, else `fallback`.
func environmentInt(_ name: String, default fallback: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
}

/// The reference model of a store: tree name → sorted key/value map.
struct StoreModel: Equatable {
    var trees: [String: [[UInt8]: [UInt8]]] = [:]

    func sortedEntries(_ tree: String) -> [([UInt8], [UInt8])] {
        (trees[tree] ?? [:]).sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.key, $0.value) }
    }
}

func describe(_ bytes: [UInt8]) -> String {
    if let s = String(bytes: bytes.prefix(40), encoding: .utf8), s.allSatisfy({ !$0.isNewline }) {
        return "\"\(s)\"(\(bytes.count))"
    }
    return bytes.prefix(16).map { String(format: "%02x", $0) }.joined() + "…(\(bytes.count))"
}
