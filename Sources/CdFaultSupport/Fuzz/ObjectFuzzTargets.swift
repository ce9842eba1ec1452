// The object layer's fuzz targets: the predicate parser and the `.xcdatamodel` reader. Both
// report bad input through their typed errors; a parsed predicate also round-trips through its
// description (the promise PredicateFixtureTests checks on the fixture cases).

import CdObjects
import Foundation

enum ObjectFuzzTargets {
    /// Arguments for `%@ %K %d %f` in fuzzed formats: enough of each kind for short formats.
    static var arguments: [Any] { ["name", 42, "text", 2.5, "age", [1, 2, 3] as [Any], true, "x"] }

    static func parsePredicate(_ input: [UInt8]) -> String? {
        let format = String(decoding: input, as: UTF8.self)
        let predicate: CdPredicate
        do {
            predicate = try CdPredicate(format: format, argumentArray: arguments)
        } catch is CdPredicateError {
            return nil
        } catch {
            return "the parser threw a non-CdPredicateError: \(type(of: error)) \(error)"
        }
        let text = predicate.description
        do {
            let reparsed = try CdPredicate(format: text, argumentArray: predicate.objectArguments)
            if reparsed != predicate {
                return
                    "description \(text.debugDescription) of \(format.debugDescription) parses to a different predicate"
            }
            if reparsed.description != text {
                return "description \(text.debugDescription) is not stable: \(reparsed.description.debugDescription)"
            }
        } catch {
            return "description \(text.debugDescription) of \(format.debugDescription) does not parse: \(error)"
        }
        return nil
    }

    static func readModel(_ input: [UInt8]) -> String? {
        do {
            let file = try ModelFileReader.parse(contents: Data(input), path: "fuzz/contents")
            _ = file.model.entityNames
        } catch {
            // ModelFileReader.parse throws only ModelError (typed throws).
        }
        return nil
    }

    /// Every format string of `Fixtures/predicates/cases.json`.
    static func predicateSeeds(_ fixtures: URL) -> [[UInt8]] {
        struct Case: Decodable { var format: String }
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("predicates/cases.json")),
            let cases = try? JSONDecoder().decode([Case].self, from: data)
        else { return [] }
        return cases.map { Array($0.format.utf8) }
    }

    /// The project's model seeds (`Fixtures/fuzz/model-reader/seeds`, added by `FuzzTarget`)
    /// plus the shared real-world models in `../shared/fixtures/models` when they are present.
    static func modelSeeds(_ fixtures: URL) -> [[UInt8]] {
        let shared = fixtures.deletingLastPathComponent().appendingPathComponent("../shared/fixtures/models")
            .standardizedFileURL
        guard let enumerator = FileManager.default.enumerator(atPath: shared.path) else { return [] }
        var seeds: [[UInt8]] = []
        for case let relative as String in enumerator where relative.hasSuffix("/contents") {
            if let data = try? Data(contentsOf: shared.appendingPathComponent(relative)) { seeds.append([UInt8](data)) }
        }
        return seeds.sorted { $0.count < $1.count }
    }
}
