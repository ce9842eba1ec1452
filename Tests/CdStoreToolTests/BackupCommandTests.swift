// `cdstore backup`: the copy holds every object, value, next key and history transaction of the
// store, verifies, and is reported; an existing destination and a missing store are refused with
// exit code 8 and nothing written.

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct BackupCommandTests {
    @Test func theCopyHoldsEveryObjectAndItsHistoryAndVerifies() throws {
        try Cdstore.withTempDir { dir in
            let path = try HistoryCommandTests.store(in: dir)
            let copy = dir.appendingPathComponent("copy.cdstore").path
            let r = try Cdstore.run(["backup", path, copy])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasPrefix("\(copy): commit "), "\(r.stdout)")
            #expect(r.stdout.hasSuffix("\(copy): verified, no problems\n"), "\(r.stdout)")
            for command in [["export", "--format", "ndjson"], ["history", "--format", "ndjson"]] {
                let original = try Cdstore.run([command[0], path] + command.dropFirst())
                let copied = try Cdstore.run([command[0], copy] + command.dropFirst())
                #expect(original.status == 0 && copied.status == 0, "\(original.stderr) \(copied.stderr)")
                #expect(copied.stdout == original.stdout && !copied.stdout.isEmpty)
            }
            // The next keys came across: a new employee in the copy does not reuse a key.
            let store = try ObjectStore.open(path: copy, model: SampleStore.model)
            defer { try? store.close() }
            #expect(try store.newObjectIDs(entity: "Employee", count: 1).first?.primaryKey == 3)
        }
    }

    @Test func aStoreThatAnApplicationHoldsOpenIsBackedUpWithItsLastCommit() throws {
        try Cdstore.withTempDir { dir in
            let path = try HistoryCommandTests.store(in: dir)
            // This process holds the store open for writing, as an app would, and commits again.
            let app = try ObjectStore.open(path: path, model: SampleStore.model)
            defer { try? app.close() }
            let hire = try app.newObjectIDs(entity: "Employee", count: 1)[0]
            try app.apply(ChangeSet(inserted: [hire: ["name": .attribute(.string("Grace"))]]))
            let copy = dir.appendingPathComponent("copy.cdstore").path
            let r = try Cdstore.run(["backup", path, copy])
            #expect(r.status == 0, "\(r.stderr)")
            let query = try Cdstore.run(["query", copy, "Employee", "name == 'Grace'", "--count"])
            #expect(query.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(query.stderr)")
            // The app goes on writing after the backup.
            try app.apply(ChangeSet(updated: [hire: ["salary": .attribute(.integer(1))]]))
        }
    }

    @Test func jsonSaysWhatWasCopiedAndThatItVerifies() throws {
        try Cdstore.withTempDir { dir in
            let path = try HistoryCommandTests.store(in: dir)
            let copy = dir.appendingPathComponent("copy.cdstore").path
            let r = try Cdstore.run(["backup", path, copy, "--format", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(json["source"] as? String == path && json["destination"] as? String == copy)
            #expect(json["verified"] as? Bool == true && json["problems"] as? Int == 0)
            #expect((json["trees"] as? Int ?? 0) > 3 && (json["entries"] as? Int ?? 0) > 3, "\(json)")
            #expect((json["commit"] as? Int ?? 0) >= 1)
            #expect(json["fileBytes"] as? Int == Int(StoreSize.of(copy)), "\(json)")
            // Without the check, nothing is said about it.
            let unchecked = dir.appendingPathComponent("unchecked.cdstore").path
            let u = try Cdstore.run(["backup", path, unchecked, "--format", "json", "--no-verify"])
            let plain = try #require(try JSONSerialization.jsonObject(with: Data(u.stdout.utf8)) as? [String: Any])
            #expect(plain["verified"] == nil && plain["problems"] == nil, "\(plain)")
        }
    }

    @Test func anExistingDestinationAndAMissingStoreAreRefused() throws {
        try Cdstore.withTempDir { dir in
            let path = try HistoryCommandTests.store(in: dir)
            let existing = dir.appendingPathComponent("existing.cdstore").path
            _ = FileManager.default.createFile(atPath: existing, contents: Data("keep me".utf8))
            let refused = try Cdstore.run(["backup", path, existing])
            #expect(refused.status == 8)
            #expect(refused.stderr.contains("\(existing) already exists"), "\(refused.stderr)")
            #expect(FileManager.default.contents(atPath: existing) == Data("keep me".utf8))

            let missing = dir.appendingPathComponent("missing.cdstore").path
            let copy = dir.appendingPathComponent("copy.cdstore").path
            let none = try Cdstore.run(["backup", missing, copy])
            #expect(none.status == 8)
            #expect(none.stderr.contains("\(missing): no such file"), "\(none.stderr)")
            #expect(!FileManager.default.fileExists(atPath: copy))
        }
    }
}
