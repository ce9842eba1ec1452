import CdStore
import CdStoreTesting
import Foundation
import Testing
@testable import CdObjects

/// An update or a delete of many stored objects is written with a quarter of the engine's
/// dirty-page limit (ChangeApplier U4, WriteTransaction R9), so its pages go to the log in several
/// spills before its commit record, and the commit's frames in several writes (R8). The change set
/// stays all-or-nothing: a crash at any of those writes, or a failure after the spills, leaves
/// every object as it was; a commit leaves exactly the change set's result, indexes and
/// relationship trees included (the object-level check finds nothing).
@Suite struct LargeChangeSpillTests {
    static let path = "/data/large-change.cdstore"
    static let employeeCount = 1200

    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.cacheBytes = 4096 * 64
        o.spillThresholdBytes = 4096 * 64  // 16 pages for an update or delete (R9)
        o.checkpointThresholdBytes = 1 << 30  // the big change set stays in the log
        return o
    }

    /// Two departments and `employeeCount` employees, half in each, in one change set.
    static func populate(_ store: ObjectStore) throws -> (departments: [ObjectID], employees: [ObjectID]) {
        let departments = try store.newObjectIDs(entity: "Department", count: 2)
        let employees = try store.newObjectIDs(entity: "Employee", count: employeeCount)
        var inserts: [ObjectID: [String: PropertyValue]] = [:]
        for (i, d) in departments.enumerated() {
            inserts[d] = ["name": str("D\(i)"), "budget": int(1000)]
        }
        for (i, e) in employees.enumerated() {
            inserts[e] = [
                "badge": str("B\(i)"), "name": str("Employee \(i) " + String(repeating: "x", count: 120)),
                "salary": int(Int64(50_000 + (i * 7919) % 40_000)), "department": .toOne(departments[i % 2]),
            ]
        }
        try store.apply(ChangeSet(inserted: inserts))
        return (departments, employees)
    }

    /// The change sets under test: a raise for every employee, a delete of every tenth, a
    /// department's delete that cascades to its employees, and that cascade with a raise for
    /// every third employee it reaches (loaded before their delete, so their records leave the
    /// tree by key, ChangeApplier+Delete D3) and a delete of every tenth employee of the other
    /// department (read and removed in one descent).
    static func changeSets(_ departments: [ObjectID], _ employees: [ObjectID]) -> [(String, ChangeSet)] {
        var raise = ChangeSet()
        for (i, e) in employees.enumerated() { raise.updated[e] = ["salary": int(Int64(100_000 + i))] }
        let tenth = Set(employees.enumerated().filter { $0.offset % 10 == 0 }.map(\.element))
        var mixed = ChangeSet(deleted: tenth.union([departments[1]]))
        for (i, e) in employees.enumerated() where i % 2 == 1 && i % 3 == 0 {
            mixed.updated[e] = ["salary": int(Int64(300_000 + i))]
        }
        return [
            ("update", raise), ("delete", ChangeSet(deleted: tenth)),
            ("cascade", ChangeSet(deleted: [departments[1]])), ("mixed", mixed),
        ]
    }

    static func walWrites(_ fs: FaultInjectingFileSystem) -> Int {
        fs.operationLog.filter { $0.kind == .write && $0.path == path + "-wal" }.count
    }

    /// The engine's and the object store's checks find nothing.
    static func verifyClean(_ fs: any StoreFileSystem, _ label: String) throws {
        var options = VerifierOptions(fileSystem: fs)
        options.additionalPasses = [ObjectStoreCheck()]
        let report = try StoreVerifier.verify(path: path, options: options)
        #expect(report.problemCount == 0, "\(label): \(report.problems.prefix(3))")
    }

    /// After a power loss (`mode`, seeded) of `fs`, the store verifies clean and reopens holding
    /// `state`.
    static func expectRecovered(
        _ fs: FaultInjectingFileSystem, seed: UInt64, mode: PowerLossMode = .dropUnsynced,
        holding state: ObjectStoreFaultTests.State, _ label: String
    ) throws {
        let rebooted = fs.powerLoss(seed: seed, mode: mode)
        try verifyClean(rebooted, label)
        let reopened = try open(rebooted)
        #expect(try ObjectStoreFaultTests.state(reopened) == state, "\(label)")
        try reopened.close()
    }

    static func open(_ fs: any StoreFileSystem) throws -> ObjectStore {
        try ObjectStore.open(path: path, model: try companyModel(), options: options(fs))
    }

    @Test(arguments: ["update", "delete", "cascade", "mixed"])
    func aLargeChangeSetSpillsAndCommitsWhole(name: String) throws {
        let fs = FaultInjectingFileSystem()
        let store = try Self.open(fs)
        let (departments, employees) = try Self.populate(store)
        let change = Self.changeSets(departments, employees).first { $0.0 == name }!.1
        let before = Self.walWrites(fs)
        try store.apply(change)
        // Several spills and commit writes: more log writes than one commit of a few pages.
        #expect(Self.walWrites(fs) - before > 3, "\(name): \(Self.walWrites(fs) - before) log writes")
        let after = try ObjectStoreFaultTests.state(store)
        switch name {
        case "update":
            for (i, e) in employees.enumerated() { #expect(after[e]?["salary"] == int(Int64(100_000 + i))) }
        case "delete":
            #expect(after.keys.filter { $0.entity == "Employee" }.count == Self.employeeCount * 9 / 10)
        case "mixed":
            // Department 0 keeps its employees but every tenth; department 1 goes with all of its.
            #expect(after.keys.filter { $0.entity == "Employee" }.count == Self.employeeCount / 2 * 4 / 5)
            #expect(after[departments[1]] == nil)
            for (i, e) in employees.enumerated() { #expect((after[e] != nil) == (i % 2 == 0 && i % 10 != 0)) }
            try Self.expectNoIndexEntry(store, salariesAtLeast: 200_000)
        default:
            #expect(after.keys.filter { $0.entity == "Employee" }.count == Self.employeeCount / 2)
            #expect(after[departments[1]] == nil)
        }
        try store.close()
        try Self.expectRecovered(fs, seed: 1, holding: after, "\(name) after recovery")
    }

    /// The change set's log writes (those after the first `first` writes of the log), numbered
    /// from 1, each an append (a spill's new frames, the commit's frames and its record) or a write
    /// in place (a page spilled again, the commit chaining the spilled frames).
    static func changeSetWrites(_ fs: FaultInjectingFileSystem, after first: Int) -> [(point: Int, kind: String)] {
        var end: UInt64 = 0
        var writes: [(point: Int, kind: String)] = []
        for (n, write) in fs.operationLog.filter({ $0.kind == .write && $0.path == path + "-wal" }).enumerated() {
            let offset = write.offset ?? 0
            if n >= first { writes.append((n - first + 1, offset >= end ? "append" : "in place")) }
            end = max(end, offset + UInt64(write.length ?? 0))
        }
        return writes
    }

    /// A crash at a log write of the change set (its spills and its commit): after the power loss
    /// the store holds every object as before it, and verifies clean. The writes tried are a
    /// `CrashPointSample` that holds the first and the last append and write in place:
    /// `CADMIUM_LARGE_CHANGE_CRASH_POINTS` of them (4 in `make test`, every write in `make
    /// crash-test`), drawn with `CADMIUM_CRASH_SEED`.
    @Test(arguments: ["update", "delete", "cascade", "mixed"])
    func aCrashAtAnyWriteOfALargeChangeSetKeepsEveryObject(name: String) throws {
        // A run without faults lists the change set's log writes.
        let probe = FaultInjectingFileSystem()
        let probeStore = try Self.open(probe)
        let (departments, employees) = try Self.populate(probeStore)
        let change = Self.changeSets(departments, employees).first { $0.0 == name }!.1
        let first = Self.walWrites(probe)
        try probeStore.apply(change)
        let writes = Self.changeSetWrites(probe, after: first)
        try probeStore.close()
        #expect(writes.count > 3)
        let sample = CrashPointSample(
            writes, count: CrashPointSample.count("CADMIUM_LARGE_CHANGE_CRASH_POINTS", default: 4),
            seed: CrashPointSample.seed(default: 0x1A2C))
        #expect(Set(sample.kinds) == ["append", "in place"], "\(name): \(sample.kinds)")
        let replay = "CADMIUM_CRASH_SEED=\(sample.seed) CADMIUM_LARGE_CHANGE_CRASH_POINTS=\(sample.count)"
        print("LargeChangeSpillTests \(name): log writes \(sample.points), \(sample) (replay with \(replay))")
        for k in sample.points {
            let fs = FaultInjectingFileSystem()
            let store = try Self.open(fs)
            _ = try Self.populate(store)
            let before = try ObjectStoreFaultTests.state(store)
            fs.plan = .crash(at: .write, occurrence: Self.walWrites(fs) + k, path: Self.path + "-wal", landing: 700)
            #expect(throws: (any Error).self, "\(name): crash at log write \(k) of \(writes.count)") {
                try store.apply(change)
            }
            for mode: PowerLossMode in [.dropUnsynced, [.reorderUnsynced, .tearLast]] {
                let label = "\(name), crash at log write \(k) of \(writes.count), \(mode.rawValue) (\(replay))"
                try Self.expectRecovered(fs, seed: UInt64(k), mode: mode, holding: before, label)
            }
        }
    }

    /// The salary index holds no entry at or above `salary`, and a fetch through it finds nothing.
    static func expectNoIndexEntry(_ store: ObjectStore, salariesAtLeast salary: Int64) throws {
        var request = FetchRequest(entity: "Employee")
        request.predicate = try CdPredicate(format: "salary >= %@", salary)
        #expect(try store.read { try $0.explain(request) }.hasPrefix("INDEX SCAN"))
        #expect(try store.fetch(request) == [])
    }

    /// A delete of every tenth employee that fails after its records have left the record tree
    /// and its pages have spilled (ChangeApplier+Delete D3): by a uniqueness violation of an
    /// update in phase 4, or by a deny rule. The apply throws, and nothing of it is stored.
    @Test(arguments: ["unique", "deny"])
    func aLargeDeleteThatFailsAfterItsRecordsLeftTheTreeLeavesNothing(failure: String) throws {
        let fs = FaultInjectingFileSystem()
        let store = try Self.open(fs)
        let (departments, employees) = try Self.populate(store)
        let office = try store.insert("Office", ["city": str("Paris")])
        try store.apply(ChangeSet(updated: [departments[0]: ["office": .toOne(office)]]))
        let before = try ObjectStoreFaultTests.state(store)
        var change = ChangeSet(deleted: Set(employees.enumerated().filter { $0.offset % 10 == 0 }.map(\.element)))
        if failure == "unique" {
            change.updated[employees.last!] = ["badge": str("B1")]  // employee 1's badge, kept
        } else {
            change.deleted.insert(office)  // its departments deny the delete
        }
        let writesBefore = Self.walWrites(fs)
        #expect {
            try store.apply(change)
        } throws: { error in
            switch (failure, error) {
            case ("unique", CdError.constraintViolation): return true
            case ("deny", CdError.relationshipDeniedDelete): return true
            default: return false
            }
        }
        #expect(Self.walWrites(fs) - writesBefore > 1, "the delete spilled before it failed")
        #expect(try ObjectStoreFaultTests.state(store) == before)
        var request = FetchRequest(entity: "Employee")
        request.predicate = try CdPredicate(format: "salary >= 0")
        #expect(try store.fetch(request).count == Self.employeeCount)
        try store.close()
        try Self.expectRecovered(fs, seed: 3, holding: before, "after a failed large delete (\(failure))")
    }

    /// An update of every employee whose last record breaks a uniqueness constraint: the failure
    /// comes after the spills, the apply throws the violation, and nothing of it is stored.
    @Test func aLargeUpdateThatFailsAfterItsSpillsLeavesNothing() throws {
        let fs = FaultInjectingFileSystem()
        let store = try Self.open(fs)
        let (_, employees) = try Self.populate(store)
        let before = try ObjectStoreFaultTests.state(store)
        var change = ChangeSet()
        for (i, e) in employees.enumerated() { change.updated[e] = ["salary": int(Int64(200_000 + i))] }
        change.updated[employees.last!]!["badge"] = str("B0")  // employee 0's badge
        let writesBefore = Self.walWrites(fs)
        #expect {
            try store.apply(change)
        } throws: { error in
            guard case CdError.constraintViolation = error else { return false }
            return true
        }
        #expect(Self.walWrites(fs) - writesBefore > 1, "the update spilled before it failed")
        #expect(try ObjectStoreFaultTests.state(store) == before)
        try store.apply(ChangeSet(updated: [employees[3]: ["salary": int(1)]]))
        var expected = before
        expected[employees[3]]!["salary"] = int(1)
        #expect(try ObjectStoreFaultTests.state(store) == expected)
        try store.close()
        try Self.expectRecovered(fs, seed: 2, holding: expected, "after a failed large update")
    }
}
