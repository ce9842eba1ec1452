import CdStore
import CdStoreTesting
import Foundation
import Testing
@testable import CdObjects

/// Power loss and I/O errors under an object workload: change sets with inserts, updates, moves
/// between owners, many-to-many edits and cascading deletes, on the fault-injecting file system.
/// After a power cut at every I/O boundary (unsynced writes dropped, or reordered with the last
/// one torn) the store verifies clean at the engine and object levels and holds exactly the last
/// acknowledged change set or the one in flight. After EIO or ENOSPC at every operation the
/// failing `apply` throws a typed error, and a reopen holds exactly what was acknowledged.
@Suite struct ObjectStoreFaultTests {
    static let path = "/data/objects.cdstore"
    typealias State = [ObjectID: [String: PropertyValue]]

    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.cacheBytes = 4096 * 32
        o.checkpointThresholdBytes = 12_000  // checkpoints and WAL resets inside the workload
        return o
    }

    /// Every object of the company model with its stored values and to-many targets.
    static func state(_ store: ObjectStore) throws -> State {
        try store.read { snapshot in
            var out: State = [:]
            for root in ["Office", "Department", "Employee", "Project", "Desk"] {
                for id in try snapshot.fetchIDs(FetchRequest(entity: root)) {
                    var values = try #require(try snapshot.values(of: id))
                    for r in store.model.allRelationships(of: id.entity) where r.isToMany {
                        let targets = try snapshot.related(id, r.name)
                        values[r.name] = .toMany(r.isOrdered ? targets : targets.sorted())
                    }
                    out[id] = values
                }
            }
            return out
        }
    }

    /// The workload: deterministic change sets. After each acknowledged one (its `apply` returned)
    /// it calls `acknowledged` with a way to read the state then.
    static func run(
        _ store: ObjectStore, commits: Int, seed: UInt64, acknowledged: (() throws -> State) throws -> Void
    ) throws {
        var rng = SeededGenerator(seed: seed)
        let office = try store.newObjectIDs(entity: "Office", count: 1)[0]
        let departments = try store.newObjectIDs(entity: "Department", count: 3)
        var inserts: [ObjectID: [String: PropertyValue]] = [office: ["city": str("Zurich")]]
        for (i, d) in departments.enumerated() {
            inserts[d] = ["name": str("D\(i)"), "office": .toOne(office), "budget": int(1000)]
        }
        try store.apply(ChangeSet(inserted: inserts))
        try acknowledged { try state(store) }
        var employees: [ObjectID] = []
        var liveDepartments = departments
        var badge = 0
        for c in 0..<commits {
            var change = ChangeSet()
            if c == commits / 2 && liveDepartments.count > 1 {
                // A change set of its own: delete a department, and its employees with it (cascade).
                change.deleted.insert(liveDepartments.removeLast())
            }
            for _ in 0..<(change.isEmpty ? Int.random(in: 1...4, using: &rng) : 0) {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<4 where !liveDepartments.isEmpty:
                    let e = try store.newObjectIDs(entity: "Employee", count: 1)[0]
                    badge += 1
                    change.inserted[e] = [
                        "badge": str("B\(badge)"), "name": str("Employee \(badge) of commit \(c)"),
                        "salary": int(Int64(Int.random(in: 1...9, using: &rng) * 10_000)),
                        "department": .toOne(liveDepartments.randomElement(using: &rng)!),
                    ]
                    employees.append(e)
                case 4..<6 where !employees.isEmpty:
                    let e = employees.randomElement(using: &rng)!
                    if change.inserted[e] == nil && change.updated[e] == nil {
                        change.updated[e] = ["salary": int(Int64(c * 1000 + 7))]
                        if let d = liveDepartments.randomElement(using: &rng) {
                            change.updated[e]?["department"] = .toOne(d)
                        }
                    }
                case 6 where employees.count > 1:
                    let p = try store.newObjectIDs(entity: "Project", count: 1)[0]
                    let members = Array(Set((0..<2).map { _ in employees.randomElement(using: &rng)! }))
                        .filter { change.inserted[$0] == nil }
                    change.inserted[p] = ["title": str("Project \(c)"), "members": .toMany(members)]
                case 7 where !employees.isEmpty:
                    let e = employees.remove(at: Int.random(in: 0..<employees.count, using: &rng))
                    if change.inserted[e] == nil && change.updated[e] == nil {
                        change.deleted.insert(e)
                    } else {
                        employees.append(e)
                    }
                default:
                    break
                }
            }
            if change.isEmpty { continue }
            let applied = try store.apply(change)
            let gone = applied.deleted
            employees.removeAll { gone.contains($0) }
            try acknowledged { try state(store) }
        }
    }

    static func reference(seed: UInt64, commits: Int) throws -> (states: [State], operations: Int) {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        let store = try ObjectStore.open(path: path, model: try companyModel(), options: options(fs))
        var states: [State] = [[:]]
        try run(store, commits: commits, seed: seed) { states.append(try $0()) }
        try store.close()
        return (states, fs.operationCount)
    }

    static func verifyClean(_ fs: any StoreFileSystem, _ label: String) throws {
        var options = VerifierOptions(fileSystem: fs)
        options.additionalPasses = [ObjectStoreCheck()]
        let report = try StoreVerifier.verify(path: path, options: options)
        #expect(report.problemCount == 0, "\(label): \(report.problems.prefix(3))")
    }

    @Test func powerLossAtEveryIOBoundaryKeepsTheLastAcknowledgedChangeSet() throws {
        let seed: UInt64 = 41, commits = 12
        let (reference, total) = try Self.reference(seed: seed, commits: commits)
        #expect(total > 100)
        var recoveries = 0
        for point in 1...total {
            let fs = FaultInjectingFileSystem(
                plan: .crash(atOperation: point, landing: (point * 389) % 6000), logsOperations: false)
            var acknowledged = 0
            do {
                let store = try ObjectStore.open(path: Self.path, model: try companyModel(), options: Self.options(fs))
                try Self.run(store, commits: commits, seed: seed) { _ in acknowledged += 1 }
                try store.close()
            } catch  where fs.crash != nil {
            }
            for mode: PowerLossMode in [.dropUnsynced, [.reorderUnsynced, .tearLast]] {
                let rebooted = fs.powerLoss(seed: UInt64(point), mode: mode)
                let label =
                    "crash at op \(point)/\(total), mode \(mode.rawValue), \(acknowledged) change sets acknowledged"
                guard rebooted.fileExists(Self.path) else {
                    #expect(acknowledged == 0, "\(label): the store file is gone")
                    continue
                }
                // A creation cut off before anything was acknowledged may leave an empty file,
                // which the verifier rightly calls "not a store"; opening it creates the store.
                if acknowledged > 0 { try Self.verifyClean(rebooted, label) }
                let store = try ObjectStore.open(
                    path: Self.path, model: try companyModel(), options: Self.options(rebooted))
                let held = try Self.state(store)
                let candidates = [acknowledged, acknowledged + 1].filter { $0 < reference.count }
                #expect(
                    candidates.contains { reference[$0] == held },
                    "\(label): the recovered objects match neither the acknowledged change set nor the one in flight")
                try store.close()
                recoveries += 1
            }
        }
        #expect(recoveries > total)
    }

    @Test(arguments: [EIO, ENOSPC])
    func ioErrorAtEveryOperationLosesNothingAcknowledged(errno code: Int32) throws {
        let seed: UInt64 = 43, commits = 8
        let (reference, total) = try Self.reference(seed: seed, commits: commits)
        for op in 1...total {
            let fs = FaultInjectingFileSystem(plan: .fail(operation: op, errno: code), logsOperations: false)
            let label = "errno \(code) at op \(op)/\(total)"
            var acknowledged = 0
            do {
                let store = try ObjectStore.open(path: Self.path, model: try companyModel(), options: Self.options(fs))
                defer { try? store.close() }
                // The same reads as the reference run between change sets, so that operation `op`
                // is the reference's `op`: every operation of the measured workload gets its error.
                try Self.run(store, commits: commits, seed: seed) { read in
                    acknowledged += 1
                    _ = try read()
                }
            } catch let error as CdError {
                if case .store = error {} else { Issue.record("\(label): \(error) is not an I/O failure") }
            } catch is StoreError {
            } catch {
                Issue.record("\(label): untyped error \(error)")
            }
            // Reopen on the now healthy file system: exactly what was acknowledged, and it goes on.
            guard fs.fileExists(Self.path) else { #expect(acknowledged == 0); continue }
            if acknowledged > 0 { try Self.verifyClean(fs, label) }
            let store = try ObjectStore.open(path: Self.path, model: try companyModel(), options: Self.options(fs))
            #expect(
                try Self.state(store) == reference[acknowledged],
                "\(label): reopened store differs from change set \(acknowledged)")
            let id = try store.newObjectIDs(entity: "Office", count: 1)[0]
            try store.apply(ChangeSet(inserted: [id: ["city": str("Austin")]]))
            try store.close()
        }
    }
}
