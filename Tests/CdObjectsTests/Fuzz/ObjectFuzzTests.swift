import CdFaultSupport
import CdObjects
import Foundation
import Testing

/// The short form of the object layer's fuzz campaign: the seeded mutation loop over the
/// predicate parser (seeds: `Fixtures/predicates/cases.json`) and the `.xcdatamodel` reader
/// (seeds: `Fixtures/fuzz/model-reader/seeds` and the shared real-world models), and the saved
/// findings replayed. `make fuzz` runs them under libFuzzer (docs/TESTING.md).
@Suite struct ObjectFuzzTests {
    static let targets: [FuzzTarget] = [.predicate, .modelReader]
    static let fixtures = ModelFixtures.repoRoot.appendingPathComponent("Fixtures")

    @Test(arguments: targets)
    func mutatedInputsEndInAResultOrATypedError(_ target: FuzzTarget) throws {
        let seed = ProcessInfo.processInfo.environment["CADMIUM_SEED"].flatMap(UInt64.init) ?? 0xF022
        let runs = ProcessInfo.processInfo.environment["CADMIUM_FUZZ_RUNS"].flatMap(Int.init) ?? 3_000
        let seeds = target.seeds(fixtures: Self.fixtures)
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
                fuzz \(target.rawValue) seed \(seed): \(finding.message); \
                input: \(String(decoding: finding.input.prefix(300), as: UTF8.self).debugDescription)
                """
            )
        }
    }

    @Test(arguments: targets.flatMap { t in t.regressionFiles(fixtures: fixtures).map { (t, $0) } })
    func savedFindingStaysFixed(_ target: FuzzTarget, _ file: URL) throws {
        #expect(target.run([UInt8](try Data(contentsOf: file))) == nil)
    }

    /// fuzz-predicate's finding: 1,684 nested unary minuses overflowed the parser's stack. A
    /// format nested past `PredicateParser.maxDepth` is a syntax error naming the limit.
    @Test func deeplyNestedFormatIsASyntaxErrorNotAStackOverflow() throws {
        let url = Self.fixtures.appendingPathComponent(
            "fuzz/predicate/regressions/unary-minus-nesting-1684-stack-overflow.txt")
        let format = try String(contentsOf: url, encoding: .utf8)
        #expect { try CdPredicate(format: format) } throws: { ($0 as? CdPredicateError)?.kind == .syntax }
        for deep in [
            String(repeating: "(", count: 5_000) + "TRUEPREDICATE" + String(repeating: ")", count: 5_000),
            String(repeating: "NOT ", count: 5_000) + "TRUEPREDICATE",
            "a == " + String(repeating: "-", count: 5_000) + "1",
        ] {
            #expect(throws: CdPredicateError.self) { try CdPredicate(format: deep) }
        }
        _ = try CdPredicate(format: String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50))
    }

    /// fuzz-model-reader's findings, all crashes inside swift-corelibs-foundation's XMLParser
    /// over libxml2: an encoding declaration other than UTF-8 (SEGV when the reader aborted from
    /// `parseErrorOccurred`), a name that is not UTF-8 (a trap in `_NSXMLParserStartElementNs`
    /// when it did not), and a processing instruction without data (`strlen(NULL)`). The reader
    /// refuses all of them before parsing.
    @Test(arguments: [
        "utf7-declaration-abort-in-error-callback.xml", "invalid-utf8-attribute-name.xml",
        "processing-instruction-without-data.xml", "processing-instruction-in-model.xml",
        "ucs4-detected-by-nul-prefix-segv-in-xmlParseChunk.xml",
    ])
    func modelFileThatCrashedXMLParserIsMalformedXML(_ name: String) throws {
        let url = Self.fixtures.appendingPathComponent("fuzz/model-reader/regressions/\(name)")
        let data = try Data(contentsOf: url)
        #expect(throws: ModelError.self) { try ModelFileReader.parse(contents: data, path: url.path) }
    }
}
