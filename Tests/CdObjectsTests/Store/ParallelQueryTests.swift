import CdStore
import CdStoreTesting
import Foundation
import Synchronization
import Testing
@testable import CdObjects

/// Queries read on several threads (QueryExecutor+Parallel.swift) give what one thread gives,
/// order included: full scans with predicates of several kinds, index ranges, sub-entities,
/// sorts and counts, on randomized stores; the first error of a damaged store; a snapshot that a
/// concurrent writer and checkpoint leave alone.
@Suite struct ParallelQueryTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Team", attributes: [.init(name: "name", type: .string, isOptional: false)],
                relationships: [.toMany("members", destination: "Person", inverse: "team")]),
            EntityDescription(
                name: "Person",
                attributes: [
                    .init(name: "name", type: .string, isOptional: false),
                    .init(name: "age", type: .integer64, isOptional: false, isIndexed: true),
                    .init(name: "notes", type: .string),
                ],
                relationships: [.init(name: "team", destination: "Team", inverse: "members")]),
            EntityDescription(
                name: "Pilot", parent: "Person", attributes: [.init(name: "hours", type: .integer32)]),
        ])
    }

    static let words = ["lisbon", "Tram", "harbour", "LISBON", "café", "river", "Porto", "tile", "x"]

    /// A store of `count` people (one in five a pilot) in 4 teams, with seeded random names, ages
    /// and notes (some not plain ASCII), on 4 KiB pages so that it has many leaves.
    static func store(count: Int, seed: UInt64, fs: InMemoryFileSystem = InMemoryFileSystem()) throws -> ObjectStore {
        var options = StoreOptions(fileSystem: fs)
        options.pageSize = 4096
        options.cacheBytes = 4096 * 64
        options.durability = .off
        let store = try ObjectStore.open(path: "/q.cdstore", model: try model(), options: options)
        var rng = SplitMix64(seed: seed)
        var changes = ChangeSet()
        let teams = try store.newObjectIDs(entity: "Team", count: 4)
        for (i, team) in teams.enumerated() { changes.inserted[team] = ["name": .attribute(.string("Team \(i)"))] }
        let pilots = try store.newObjectIDs(entity: "Pilot", count: count / 5)
        let people = try store.newObjectIDs(entity: "Person", count: count - count / 5)
        for id in (pilots + people).shuffled(using: &rng) {
            let notes = (0..<Int.random(in: 0...12, using: &rng)).map { _ in words.randomElement(using: &rng)! }
            var values: [String: PropertyValue] = [
                "name": .attribute(.string(String(UnicodeScalar(UInt8.random(in: 65...90, using: &rng))) + "\(id)")),
                "age": .attribute(.integer(Int64.random(in: 0..<100, using: &rng))),
                "team": .toOne(teams.randomElement(using: &rng)!),
            ]
            if !notes.isEmpty { values["notes"] = .attribute(.string(notes.joined(separator: " "))) }
            if id.entity == "Pilot" { values["hours"] = .attribute(.integer(Int64.random(in: 0..<5000, using: &rng))) }
            changes.inserted[id] = values
        }
        _ = try store.apply(changes)
        try store.engine.checkpoint()
        return store
    }

    /// A request for `entity` with `format` and sort keys.
    static func request(
        _ entity: String, _ format: String?, sort: [CdObjects.SortDescriptor] = []
    ) throws -> FetchRequest {
        var r = FetchRequest(entity: entity)
        r.predicate = try format.map { try CdPredicate(format: $0) }
        r.sortDescriptors = sort
        return r
    }

    /// The requests every store is read with; `split` says whether the read must go to other
    /// threads (shareable rules, a large enough read) or stay (a fallback, a limit).
    static func requests() throws -> [(request: FetchRequest, split: Bool)] {
        var limited = try request("Person", "notes CONTAINS[c] 'lisbon'")
        limited.limit = 10
        return [
            (try request("Person", "notes CONTAINS[c] 'lisbon'"), true),
            (try request("Person", "notes CONTAINS 'café' OR name BEGINSWITH 'Q'"), true),
            (try request("Person", "NOT (notes ENDSWITH[c] 'TRAM') AND age != 3"), true),
            (try request("Person", "age >= 20 AND age < 70"), true),  // index range, ~2,000 keys
            (try request("Pilot", "hours > 2500"), true),
            (
                try request(
                    "Person", "age BETWEEN {10, 40}", sort: [CdObjects.SortDescriptor("name", ascending: false)]), true
            ),
            (
                try request(
                    "Person", nil,
                    sort: [CdObjects.SortDescriptor("name", ascending: false), CdObjects.SortDescriptor("age")]), true
            ),
            (try request("Person", "notes == nil OR notes LIKE '*iver*'"), true),
            // An interpreter fallback.
            (try request("Person", "team.name == 'Team 2' OR age == 5"), false),
            // A sort key through a relationship.
            (try request("Person", "age > 50", sort: [CdObjects.SortDescriptor("team.name")]), false),
            (limited, false),
        ]
    }

    /// IDs, values and counts of `request` with `threads` read threads on `snapshot`.
    static func answers(_ snapshot: ObjectSnapshot, _ request: FetchRequest, threads: Int) throws -> String {
        snapshot.stored.readThreads = threads
        let ids = try snapshot.fetchIDs(request)
        let objects = try snapshot.fetchObjects(request).map { "\($0.id)=\($0.values?["notes"].map { "\($0)" } ?? "")" }
        let count = try snapshot.count(request)
        return "\(count) \(ids) \(objects)"
    }

    /// The seeds of the randomized stores: `CADMIUM_SEED` replays one.
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["CADMIUM_SEED"].flatMap(UInt64.init).map { [$0] } ?? [7, 8]

    @Test(arguments: seeds)
    func manyThreadsAnswerAsOneThread(seed: UInt64) throws {
        let store = try Self.store(count: 4000, seed: seed)
        defer { try? store.close() }
        let snapshot = try store.beginRead()
        defer { snapshot.end() }
        for (request, split) in try Self.requests() {
            let one = try Self.answers(snapshot, request, threads: 1)
            for threads in [2, 3, 4, 16] {
                let before = store.engine.parallelReadCount
                let many = try Self.answers(snapshot, request, threads: threads)
                let label = request.predicate.map { "\($0)" } ?? "all"
                #expect(many == one, "seed \(seed) (replay with CADMIUM_SEED=\(seed)), \(threads) threads: \(label)")
                let splits = store.engine.parallelReadCount - before
                #expect(
                    split ? splits > 0 : splits == 0,
                    "\(request.predicate.map { "\($0)" } ?? "all"): \(splits) reads split, expected \(split)")
            }
        }
    }

    @Test func aSmallStoreStaysOnOneThread() throws {
        let store = try Self.store(count: 40, seed: 3)
        defer { try? store.close() }
        try store.read { snapshot in
            for (request, _) in try Self.requests() {
                #expect(try Self.answers(snapshot, request, threads: 16) == Self.answers(snapshot, request, threads: 1))
            }
        }
        #expect(store.engine.parallelReadCount == 0)
    }

    /// Damaged records in the record tree: the error of the first in key order, as one thread
    /// reports it, whichever thread meets which.
    @Test func damagedRecordsGiveTheOneThreadError() throws {
        let store = try Self.store(count: 4000, seed: 5)
        defer { try? store.close() }
        let tree = store.layout.entities["Person"]!.recordTree
        for damaged: [Int64] in [[2_000], [3_500, 1_200], [4_000, 7]] {
            try store.engine.write { tx in
                let t = try #require(try tx.tree(tree))
                for pk in damaged { try t.put(withUnsafeBytes(of: UInt64(pk).bigEndian, Array.init), [0xFF, 1, 2]) }
            }
            try store.read { snapshot in
                for (request, split) in try Self.requests() where split {
                    snapshot.stored.readThreads = 1
                    let one = Result { try snapshot.fetchIDs(request) }
                    // A scan meets the first damaged record in key order; an index range only
                    // the damaged records it lists (and may list none).
                    if try snapshot.explain(request).hasPrefix("FULL SCAN") {
                        let error = try #require(one.failure, "\(damaged) read fine on one thread")
                        #expect("\(error)".contains("record \(damaged.min()!):"), "\(error)")
                    }
                    for threads in [2, 4, 16] {
                        snapshot.stored.readThreads = threads
                        let many = Result { try snapshot.fetchIDs(request) }
                        #expect(many.failure.map { $0 is CdError } ?? true)
                        #expect("\(many)" == "\(one)", "\(threads) threads")
                    }
                }
            }
        }
    }

    /// A parallel fetch on a held snapshot while another thread commits changes and checkpoints.
    @Test func aHeldSnapshotAnswersAsBeforeWhileAWriterCommitsAndCheckpoints() throws {
        final class WriterControl: Sendable {
            let stop = Atomic<Bool>(false)
            let finished = Atomic<Bool>(false)
            let checkpoints = Atomic<Int>(0)
        }
        let store = try Self.store(count: 4000, seed: 9)
        defer { try? store.close() }
        let requests = try Self.requests().filter(\.split).map(\.request)
        let snapshot = try store.beginRead()
        defer { snapshot.end() }
        let expected = try requests.map { try Self.answers(snapshot, $0, threads: 1) }
        let control = WriterControl()
        let writer = Thread {
            var rng = SplitMix64(seed: 99)
            var round = 0
            while !control.stop.load(ordering: .relaxed) {
                round += 1
                var changes = ChangeSet()
                for _ in 0..<100 {
                    let id = ObjectID(entity: "Person", primaryKey: Int64.random(in: 1...3200, using: &rng))
                    changes.updated[id] = [
                        "notes": .attribute(.string("lisbon \(round)")),
                        "age": .attribute(.integer(Int64.random(in: 0..<100, using: &rng))),
                    ]
                }
                _ = try? store.apply(changes)
                if round % 3 == 0, (try? store.engine.checkpoint()) != nil {
                    control.checkpoints.wrappingAdd(1, ordering: .relaxed)
                }
            }
            control.finished.store(true, ordering: .releasing)
        }
        writer.start()
        defer { control.stop.store(true, ordering: .relaxed) }
        var rounds = 0
        let deadline = Date().addingTimeInterval(60)
        while rounds < 3 || (control.checkpoints.load(ordering: .relaxed) < 3 && Date() < deadline) {
            for (request, answer) in zip(requests, expected) {
                #expect(try Self.answers(snapshot, request, threads: 4) == answer, "round \(rounds)")
            }
            rounds += 1
        }
        control.stop.store(true, ordering: .relaxed)
        while !control.finished.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
        #expect(control.checkpoints.load(ordering: .relaxed) >= 3, "the writer checkpointed while the reads ran")
        let fresh = try store.beginRead()
        defer { fresh.end() }
        #expect(
            try Self.answers(fresh, requests[0], threads: 4) != expected[0], "the writer's commits are visible anew")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
