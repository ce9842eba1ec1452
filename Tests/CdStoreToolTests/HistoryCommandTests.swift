// `cdstore history` and the history line of `cdstore info`: a store that records history, read
// as a table and as JSON, after a token, by author and by entity; a store without history and a
// bad token get one-line errors.

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct HistoryCommandTests {
    /// The sample model in a store with history: three commits (an import by "importer", a raise,
    /// a delete).
    static func store(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("history.cdstore").path
        var options = StoreOptions()
        options.history = .tracked
        let store = try ObjectStore.open(path: path, model: SampleStore.model, options: options)
        defer { try? store.close() }
        let department = try store.newObjectIDs(entity: "Department", count: 1)[0]
        let people = try store.newObjectIDs(entity: "Employee", count: 2)
        var first = ChangeSet(inserted: [
            department: ["name": .attribute(.string("R&D"))],
            people[0]: ["name": .attribute(.string("Ada")), "department": .toOne(department)],
            people[1]: ["name": .attribute(.string("Alan"))],
        ])
        first.author = "importer"
        try store.apply(first)
        try store.apply(ChangeSet(updated: [people[0]: ["salary": .attribute(.integer(150_000))]]))
        try store.apply(ChangeSet(deleted: [people[1]]))
        return path
    }

    @Test func jsonHasEveryTransactionWithItsChanges() throws {
        try Cdstore.withTempDir { dir in
            let path = try Self.store(in: dir)
            let r = try Cdstore.run(["history", path, "--format", "ndjson"])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = try r.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(lines.map { $0["number"] as? Int } == [1, 2, 3])
            #expect(lines.map { $0["author"] as? String } == ["importer", nil, nil])
            let firstChanges = try #require(lines[0]["changes"] as? [[String: Any]])
            #expect(firstChanges.count == 3)
            let raise = try #require((lines[1]["changes"] as? [[String: Any]])?.first)
            #expect(raise["objectID"] as? String == "Employee/1")
            #expect(raise["kind"] as? String == "update")
            #expect(raise["updatedProperties"] as? [String] == ["salary"])
            let deletions = try #require(lines[2]["changes"] as? [[String: Any]])
            #expect(deletions.map { $0["kind"] as? String } == ["delete"])
        }
    }

    @Test func afterAuthorAndEntityFilter() throws {
        try Cdstore.withTempDir { dir in
            let path = try Self.store(in: dir)
            let after = try Cdstore.run(["history", path, "--after", "1", "--format", "ndjson"])
            #expect(after.stdout.split(separator: "\n").count == 2, "\(after.stderr)")
            let token = try #require(
                (try JSONSerialization.jsonObject(with: Data(after.stdout.split(separator: "\n")[0].utf8))
                    as? [String: Any])?["token"] as? String)
            let afterToken = try Cdstore.run(["history", path, "--after", token, "--format", "ndjson"])
            #expect(afterToken.stdout.split(separator: "\n").count == 1)
            let byAuthor = try Cdstore.run(["history", path, "--author", "importer", "--format", "ndjson"])
            #expect(byAuthor.stdout.split(separator: "\n").count == 1)
            let departments = try Cdstore.run(["history", path, "--entity", "Department"])
            #expect(departments.status == 0)
            #expect(departments.stdout.contains("Department/1"))
            #expect(!departments.stdout.contains("Employee/"))
            let table = try Cdstore.run(["history", path])
            #expect(table.stdout.hasPrefix("#  time"))
            #expect(table.stdout.contains("importer"))
        }
    }

    @Test func infoSaysWhetherHistoryIsTracked() throws {
        try Cdstore.withTempDir { dir in
            let tracked = try Cdstore.run(["info", try Self.store(in: dir)])
            #expect(tracked.stdout.contains("history        tracked, 3 transactions ("), "\(tracked.stdout)")
            let plain = try Cdstore.run(["info", try ExportCommandTests.sample(in: dir)])
            #expect(plain.stdout.contains("history        off"))
        }
    }

    @Test func storesWithoutHistoryAndBadTokensAreOneLineErrors() throws {
        try Cdstore.withTempDir { dir in
            let plain = try ExportCommandTests.sample(in: dir)
            let none = try Cdstore.run(["history", plain])
            #expect(none.status == 8)
            #expect(
                none.stderr.hasSuffix(
                    "the store records no persistent history (StoreOptions.history = .tracked starts it)\n"))
            let path = try Self.store(in: dir)
            let bad = try Cdstore.run(["history", path, "--after", "yesterday"])
            #expect(bad.status == 16)
            #expect(bad.stderr == "cdstore: --after yesterday: not a history token (STOREID#N, or N)\n")
            let other = try Cdstore.run(["history", path, "--after", "\(UUID().uuidString)#1"])
            #expect(other.status != 0)
            #expect(other.stderr.split(separator: "\n").count == 1)
        }
    }
}
