// The fuzz targets of the hostile-input campaign (docs/TESTING.md). Each takes arbitrary bytes and
// must end in a result or a typed error of its layer — never a trap, a hang or an unbounded
// allocation. What breaks that rule is a *finding*: libFuzzer saves the input (the harness
// aborts), the seeded mutation loop returns it, and a fixed finding becomes a file under
// `Fixtures/fuzz/<target>/regressions/` that `FuzzRegressionTests` replays.

import CdObjects
import CdStore
import Foundation

/// One fuzz target: a parser or reader of untrusted bytes and the rule its results must obey.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Opens a store (page file and WAL packed with `StoreFuzzInput`, or chosen mutations of a
    /// campaign store, `StructureFuzzInput`) read-only and read-write, and reads every tree
    /// forwards and backwards; the read-write open also commits once.
    case storeOpen = "store-open"
    /// Recovers a fuzzed WAL against the clean golden page file `v1-wal.cdstore` (or, for a
    /// `StructureFuzzInput`, chosen mutations of the WAL of the campaign's `wal` store).
    case walRecovery = "wal-recovery"
    /// Runs `StoreVerifier` on a packed page file and WAL (or a `StructureFuzzInput`).
    case verifier
    /// Parses a predicate format string; a parsed predicate must print to a string that parses
    /// back to an equal predicate (CdPredicate+Description's promise).
    case predicate
    /// Reads `.xcdatamodel` `contents` XML.
    case modelReader = "model-reader"

    /// Runs the target on `input`: nil when the rule held, else what broke it.
    public func run(_ input: [UInt8]) -> String? {
        switch self {
        case .storeOpen:
            return StoreFuzzTargets.openAndReadAll(StructureFuzzInput.decode(input) ?? StoreFuzzInput.unpack(input))
        case .walRecovery:
            if let files = StructureFuzzInput.decode(input, walOnly: true) {
                return StoreFuzzTargets.openAndReadAll(files)
            }
            return StoreFuzzTargets.recover(wal: input)
        case .verifier: return StoreFuzzTargets.verify(StructureFuzzInput.decode(input) ?? StoreFuzzInput.unpack(input))
        case .predicate: return ObjectFuzzTargets.parsePredicate(input)
        case .modelReader: return ObjectFuzzTargets.readModel(input)
        }
    }

    /// The seed inputs, made from the files under `fixtures` (the repository's `Fixtures/`), and
    /// for the store targets, when `structure`, structure-mode inputs (`StructureFuzzInput`). The
    /// in-process loop of `make test` leaves those out: the structure campaign covers that space in
    /// a child process, where a trap is reported instead of ending the test run.
    public func seeds(fixtures: URL, structure: Bool = true) -> [[UInt8]] {
        var seeds: [[UInt8]]
        switch self {
        case .storeOpen, .verifier:
            seeds = StoreFuzzInput.goldenStores(fixtures) + (structure ? StructureFuzzInput.seeds(walOnly: false) : [])
        case .walRecovery:
            seeds =
                StoreFuzzInput.goldenStores(fixtures, packed: false).compactMap { $0.isEmpty ? nil : $0 }
                + (structure ? StructureFuzzInput.seeds(walOnly: true) : [])
        case .predicate: seeds = ObjectFuzzTargets.predicateSeeds(fixtures)
        case .modelReader: seeds = ObjectFuzzTargets.modelSeeds(fixtures)
        }
        seeds += Self.files(in: fixtures.appendingPathComponent("fuzz/\(rawValue)/seeds"))
        return seeds.isEmpty ? [[]] : seeds
    }

    /// The regression inputs of this target: `Fixtures/fuzz/<target>/regressions/*`.
    public func regressionFiles(fixtures: URL) -> [URL] {
        let dir = fixtures.appendingPathComponent("fuzz/\(rawValue)/regressions")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
    }

    static func files(in dir: URL) -> [[UInt8]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().compactMap { name in
            (try? Data(contentsOf: dir.appendingPathComponent(name))).map { [UInt8]($0) }
        }
    }
}

/// The repository's `Fixtures/` folder: `CADMIUM_FIXTURES`, else the first `Fixtures/stores`
/// found walking up from the working directory.
public func locateFixtures() -> URL? {
    if let path = ProcessInfo.processInfo.environment["CADMIUM_FIXTURES"] { return URL(fileURLWithPath: path) }
    var url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    while true {
        let candidate = url.appendingPathComponent("Fixtures")
        if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("stores").path) { return candidate }
        if url.path == "/" { return nil }
        url.deleteLastPathComponent()
    }
}
