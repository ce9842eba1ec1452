import CdStore
import CdStoreTesting
import Foundation
import Testing
@testable import CdObjects

/// The recorded history against a model of the expected changes: each commit's changes must be
/// exactly the difference between the store's objects before and after it (inserted objects with
/// the properties they hold, updated ones with the properties that changed, deleted ones with
/// their preserved attributes), whether the store made the change itself (inverses, nullify,
/// cascades), a batch made it, or a streaming writer applied it in several batches.
@Suite struct HistoryRandomizedTests {
    /// The random workload on one store; `CD_SEED` replays a run.
    final class Workload {
        /// The store the next step writes through (two stores on one file are two processes).
        var store: ObjectStore
        var rng: SeededGenerator
        var counter = 0
        var last: CdHistoryToken?
        var commits = 0

        init(store: ObjectStore, seed: UInt64) {
            self.store = store
            rng = SeededGenerator(seed: seed)
        }

        func ids(_ entity: String) throws -> [ObjectID] { try store.fetch(FetchRequest(entity: entity)) }
        func pick(_ ids: [ObjectID]) -> ObjectID? {
            ids.isEmpty ? nil : ids[Int.random(in: 0..<ids.count, using: &rng)]
        }
        func next() -> Int64 { counter += 1; return Int64(counter) }

        /// One random change set over the store as it is now.
        func changeSet() throws -> ChangeSet {
            var c = ChangeSet()
            let departments = try ids("Department"), employees = try ids("Employee"), projects = try ids("Project")
            let desks = try ids("Desk")
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0:
                    let id = try store.newObjectIDs(entity: "Department", count: 1)[0]
                    c.inserted[id] = ["name": str("d\(next())"), "budget": int(Int64.random(in: 0...9, using: &rng))]
                case 1, 2:
                    let entity = Bool.random(using: &rng) ? "Employee" : "Manager"
                    let id = try store.newObjectIDs(entity: entity, count: 1)[0]
                    var values: [String: PropertyValue] = ["badge": str("b\(next())")]
                    if Bool.random(using: &rng) { values["name"] = str("n\(next() % 5)") }
                    if let d = pick(departments) { values["department"] = .toOne(d) }
                    c.inserted[id] = values
                case 3:
                    let id = try store.newObjectIDs(entity: "Project", count: 1)[0]
                    let members = Array(Set((0..<2).compactMap { _ in pick(employees) }))
                    c.inserted[id] = ["title": str("p\(next())"), "members": .toMany(members)]
                case 4:
                    let id = try store.newObjectIDs(entity: "Desk", count: 1)[0]
                    var values: [String: PropertyValue] = ["floor": int(next()), "number": int(1)]
                    if let e = pick(employees) { values["owner"] = .toOne(e) }
                    c.inserted[id] = values
                case 5:
                    if let e = pick(employees) {
                        c.updated[e, default: [:]]["salary"] = int(Int64.random(in: 0...3, using: &rng))
                    }
                case 6:
                    if let e = pick(employees) { c.updated[e, default: [:]]["department"] = .toOne(pick(departments)) }
                case 7:
                    if let p = pick(projects) {
                        c.updated[p, default: [:]]["members"] = .toMany(
                            Array(Set((0..<2).compactMap { _ in pick(employees) })))
                    }
                case 8:
                    if let d = pick(desks) { c.updated[d, default: [:]]["owner"] = .toOne(pick(employees)) }
                default:
                    // Deletes: a department cascades to its employees; an employee nullifies its
                    // projects' members and its desk's owner.
                    if let victim = pick(Bool.random(using: &rng) ? departments : employees + projects) {
                        c.deleted.insert(victim)
                    }
                }
            }
            for id in c.deleted { c.updated[id] = nil }
            c.author = Bool.random(using: &rng) ? "author\(Int.random(in: 0..<3, using: &rng))" : nil
            return c
        }

        /// Applies `commit` (which returns whether it committed) and compares the history it
        /// recorded with the difference of the store's objects. `batches`: the composed changes
        /// of a streaming write's batches, each the difference its batch made (the writer records
        /// a part per batch; nil for one apply).
        func check(_ label: String, _ commit: (_ batches: inout [ObjectID: ExpectedChange]?) throws -> Bool) throws {
            let before = try store.everyObjectState()
            var batches: [ObjectID: ExpectedChange]?
            let committed = try commit(&batches)
            let after = try store.everyObjectState()
            let recorded = try store.history(after: last)
            let expected = batches ?? expectedChanges(from: before, to: after, model: store.model)
            if !committed || expected.isEmpty {
                #expect(recorded.isEmpty, "\(label): no change, no transaction")
                if !committed { #expect(before == after) }
                return
            }
            try #require(recorded.count == 1, "\(label): one transaction per commit")
            let t = recorded[0]
            #expect(t.token.number == (last?.number ?? 0) + 1, "\(label): numbers without a gap")
            #expect(recordedChanges(t) == expected, "\(label)")
            last = t.token
            commits += 1
        }

        /// One step: an apply, a streaming write of several batches, or a history deletion.
        func step(_ i: Int) throws {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0:
                try check("writer #\(i)") { batches in
                    let writer = try store.beginWriter()
                    var changes: [ObjectID: ExpectedChange] = [:]
                    do {
                        var state = try store.everyObjectState()
                        for _ in 0..<Int.random(in: 2...3, using: &rng) {
                            // Each batch sees what the earlier ones wrote (BW1).
                            try writer.apply(try changeSet())
                            let now = try objectStates(writer.snapshot())
                            changes = composed(changes, expectedChanges(from: state, to: now, model: store.model))
                            state = now
                        }
                        try writer.commit()
                        batches = changes
                        return true
                    } catch is CdError {
                        writer.rollback()
                        return false
                    }
                }
            case 1:
                if let last, Int.random(in: 0..<3, using: &rng) == 0 {
                    try store.deleteHistory(before: last)
                    #expect(try store.history(after: nil).map(\.token) == [last], "the token's own transaction is kept")
                    if last.number > 1 {
                        let old = CdHistoryToken(storeID: last.storeID, number: last.number - 2)
                        #expect(errorCode { _ = try store.history(after: old) } == 134301)
                    }
                }
            default:
                try check("apply #\(i)") { _ in
                    do {
                        try store.apply(try changeSet())
                        return true
                    } catch let e as CdError where e.code != nil && e.code! < 2000 {
                        return false  // validation, uniqueness, deny: nothing was written
                    }
                }
            }
        }
    }

    /// Two stores on one file (two processes, StoreSharingTests) take turns at random: each
    /// commit's history matches its changes whichever process wrote it, the numbers run without a
    /// gap across both, and both read the same history at every point.
    @Test(arguments: ["memory", "posix"])
    func historyWrittenByTwoProcessesInTurnMatchesEveryCommit(_ kind: String) throws {
        let seed = testSeed("historyWrittenByTwoProcessesInTurnMatchesEveryCommit")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs: any StoreFileSystem = kind == "memory" ? InMemoryFileSystem() : POSIXFileSystem()
        let path = kind == "memory" ? "/data/history.cdstore" : dir.appendingPathComponent("history.cdstore").path
        let model = try historyModel()
        let a = try ObjectStore.open(path: path, model: model, options: trackedOptions(fs))
        let b = try ObjectStore.open(path: path, model: model, options: trackedOptions(fs))
        let w = Workload(store: a, seed: seed)
        var writers: [ObjectIdentifier: Int] = [:]
        for i in 0..<120 {
            w.store = Bool.random(using: &w.rng) ? a : b
            writers[ObjectIdentifier(w.store), default: 0] += 1
            try w.step(i)
            if i % 10 == 9 {
                let seenByA = try a.history(after: nil)
                #expect(try b.history(after: nil) == seenByA, "step \(i): both processes read one history")
                #expect(try a.lastHistoryToken() == w.last && b.lastHistoryToken() == w.last, "step \(i)")
            }
        }
        #expect(writers.count == 2 && w.commits > 40, "both processes commit")
        let all = try b.history(after: nil)
        #expect(all.map(\.token.number) == Array((all.first?.token.number ?? 1)...(w.last?.number ?? 0)))
        #expect(try a.verify().isEmpty)
        try a.close()
        #expect(try b.verify().isEmpty)
        try b.close()
    }

    @Test func recordedHistoryMatchesTheChangesOfEveryCommit() throws {
        let seed = testSeed("recordedHistoryMatchesTheChangesOfEveryCommit")
        let fs = InMemoryFileSystem()
        let path = "/data/history.cdstore"
        let model = try historyModel()
        let store = try ObjectStore.open(path: path, model: model, options: trackedOptions(fs))
        let w = Workload(store: store, seed: seed)
        for i in 0..<150 {
            try w.step(i)
            if i % 25 == 24 { #expect(try store.verify().isEmpty, "step \(i)") }
        }
        #expect(w.commits > 50, "the workload commits")
        let all = try store.history(after: nil)
        #expect(all.map(\.token.number) == Array((all.first?.token.number ?? 1)...(w.last?.number ?? 0)))
        #expect(try store.lastHistoryToken() == w.last)
        let last = try #require(w.last)
        try store.close()

        // Reopened without the option, the store goes on recording (HS6) and reads its history.
        var untracked = trackedOptions(fs)
        untracked.history = .off
        let reopened = try ObjectStore.open(path: path, model: model, options: untracked)
        #expect(reopened.isHistoryTracked)
        #expect(try reopened.history(after: nil).map(\.token) == all.map(\.token))
        let w2 = Workload(store: reopened, seed: seed &+ 1)
        w2.last = last
        for i in 0..<20 { try w2.step(i) }
        let lastBeforeMigration = try #require(w2.last)
        let kept = try reopened.history(after: nil)
        try reopened.close()

        // Compaction rewrites the store to the same model, keeping every ID: history is carried.
        try ObjectStore.compact(path: path, options: untracked)
        let compacted = try ObjectStore.open(path: path, model: model, options: untracked)
        #expect(try compacted.history(after: nil) == kept)
        #expect(try compacted.verify().isEmpty)
        try compacted.close()

        // A migration starts the history anew (MG11, HS5): old tokens expire, numbering restarts.
        let v2 = try historyModel(extraProjectAttribute: true)
        let migrated = try ObjectStore.open(
            path: path, model: v2, options: untracked, migration: MigrationOptions())
        #expect(migrated.isHistoryTracked)
        #expect(try migrated.history(after: nil).isEmpty)
        #expect(errorCode { _ = try migrated.history(after: lastBeforeMigration) } == 134301)
        #expect(try migrated.verify().isEmpty)
        let w3 = Workload(store: migrated, seed: seed &+ 2)
        for i in 0..<30 { try w3.step(i) }
        let numbers = try migrated.history(after: nil).map(\.token.number)
        if let first = numbers.first { #expect(first >= 1 && numbers == Array(first...(w3.last?.number ?? 0))) }
        #expect(try migrated.verify().isEmpty)
        try migrated.close()
    }
}
