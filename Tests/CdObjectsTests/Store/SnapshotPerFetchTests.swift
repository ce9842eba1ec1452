// A layer that begins a snapshot per fetch (a SwiftData context) shares the catalog entries of a
// commit between those snapshots (CatalogRoots CR1–CR3 of CdStore): every fetch still sees the
// last commit of any process, including trees another process created or emptied since the
// previous fetch, and a snapshot held open keeps its own commit's trees.

import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite struct SnapshotPerFetchTests {
    /// Two object stores on one file: two processes (StoreCoordination), on an in-memory file
    /// system or on real files.
    private func twoProcesses(_ kind: String) throws -> (ObjectStore, ObjectStore, cleanUp: () -> Void) {
        var options = StoreOptions()
        options.durability = .normal
        let path: String
        var cleanUp: () -> Void = {}
        if kind == "memory" {
            options.fileSystem = InMemoryFileSystem()
            path = "/fetches.cdstore"
        } else {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fetches-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            cleanUp = { try? FileManager.default.removeItem(at: dir) }
            path = dir.appendingPathComponent("store.cdstore").path
        }
        let a = try ObjectStore.open(path: path, model: companyModel(), options: options)
        let b = try ObjectStore.open(path: path, model: companyModel(), options: options)
        return (a, b, cleanUp)
    }

    /// The badges of the employees earning `salary`, fetched in a snapshot of its own.
    private func badges(_ store: ObjectStore, salary: Int64) throws -> [String] {
        var request = FetchRequest(entity: "Employee")
        request.predicate = try CdPredicate(format: "salary == %@", salary)
        request.sortDescriptors = [SortDescriptor("badge")]
        return try store.read { snapshot in
            try snapshot.fetchSlotObjects(request).map { match -> String in
                guard case let .attribute(.string(badge))? = match.values?[0] else { return "?" }
                return badge
            }
        }
    }

    @Test(arguments: ["memory", "posix"])
    func eachFetchSeesTheOtherProcesssLastCommit(_ kind: String) throws {
        let (a, b, cleanUp) = try twoProcesses(kind)
        defer {
            try? a.close()
            try? b.close()
            cleanUp()
        }
        // Nothing stored yet: the record and index trees do not exist, and `b` learns so.
        #expect(try badges(b, salary: 10).isEmpty)
        #expect(try badges(b, salary: 10).isEmpty)
        // The other process's first insert creates them; `b`'s next fetch finds it.
        let first = try a.insert("Employee", ["badge": str("A1"), "salary": int(10)])
        #expect(try badges(b, salary: 10) == ["A1"])
        // Each later commit, of either process, is seen by the next fetch of the other.
        for i in 2...20 {
            let (writer, reader) = i % 2 == 0 ? (a, b) : (b, a)
            try writer.insert("Employee", ["badge": str("A\(i)"), "salary": int(10)])
            #expect(try badges(reader, salary: 10).count == i)
        }
        // A snapshot held open keeps its commit while the other process deletes and fetches move on.
        let held = try b.beginRead()
        defer { held.end() }
        try a.apply(ChangeSet(deleted: [first]))
        #expect(try badges(b, salary: 10).count == 19)
        #expect(try !b.read { try $0.exists(first) })
        #expect(try held.exists(first))
    }
}
