import CdFaultSupport
import Foundation
import Testing

/// The short form of the engine's fuzz campaign: the seeded mutation loop of each engine fuzz
/// target (store open, WAL recovery, verifier) over the golden stores, and the saved findings
/// replayed. `make fuzz` runs the same targets under libFuzzer for longer (docs/TESTING.md).
/// `CADMIUM_FUZZ_RUNS` sets the mutations per target, `CADMIUM_SEED` the seed.
@Suite struct StoreFuzzTests {
    static let targets: [FuzzTarget] = [.storeOpen, .walRecovery, .verifier]

    @Test(arguments: targets)
    func mutatedInputsEndInAResultOrATypedError(_ target: FuzzTarget) throws {
        try runShortFuzz(target, defaultRuns: target == .walRecovery ? 300 : 1_500)
    }

    @Test(arguments: regressionCases(targets))
    func savedFindingStaysFixed(_ regression: FuzzRegression) throws {
        try replay(regression)
    }
}

/// A saved fuzz input: its target and file.
struct FuzzRegression: CustomTestStringConvertible, Sendable {
    var target: FuzzTarget
    var file: URL
    var testDescription: String { "\(target.rawValue)/\(file.lastPathComponent)" }
}

func regressionCases(_ targets: [FuzzTarget]) -> [FuzzRegression] {
    targets.flatMap { t in t.regressionFiles(fixtures: fixturesDirectory()).map { FuzzRegression(target: t, file: $0) }
    }
}

func replay(_ regression: FuzzRegression) throws {
    let input = [UInt8](try Data(contentsOf: regression.file))
    #expect(regression.target.run(input) == nil)
}

/// Runs the seeds of `target` and `CADMIUM_FUZZ_RUNS` (else `defaultRuns`) mutations of them;
/// every finding fails the test with its input in hex (save it under
/// `Fixtures/fuzz/<target>/regressions/`).
func runShortFuzz(_ target: FuzzTarget, defaultRuns: Int) throws {
    let seed = testSeeds([0xF022]).first!
    let runs = environmentInt("CADMIUM_FUZZ_RUNS", default: defaultRuns)
    let seeds = target.seeds(fixtures: fixturesDirectory(), structure: false)
    #expect(seeds.count > 1, "\(target.rawValue): no seeds found under Fixtures/")
    let start = Date()
    let result = target.mutationRun(seeds: seeds, iterations: runs, seed: seed)
    print(
        "fuzz \(target.rawValue): \(result.executions) executions (\(seeds.count) seeds) "
            + "in \(String(format: "%.1f", Date().timeIntervalSince(start))) s, "
            + "seed \(seed) (replay with CADMIUM_SEED=\(seed))"
    )
    #expect(result.executions == seeds.count + runs)
    for finding in result.findings {
        Issue.record(
            """
            fuzz \(target.rawValue) seed \(seed): \(finding.message); input (\(finding.input.count) bytes): \
            \(finding.input.prefix(256).map { String(format: "%02x", $0) }.joined())
            """
        )
    }
}
