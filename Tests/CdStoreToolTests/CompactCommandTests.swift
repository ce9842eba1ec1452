// `cdstore compact`: the live objects, IDs and next keys survive a rewrite into a smaller file,
// and a store another handle has open is refused without a change.

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct CompactCommandTests {
    /// The sample store, grown by 2,000 objects inserted and then deleted (free pages and a
    /// larger next key).
    static func bloated(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("bloated.cdstore").path
        try SampleStore.create(at: path)
        let store = try ObjectStore.open(path: path, model: SampleStore.model)
        defer { try? store.close() }
        let ids = try store.newObjectIDs(entity: "Employee", count: 2000)
        let filler = String(repeating: "x", count: 200)
        try store.apply(
            ChangeSet(
                inserted: Dictionary(
                    uniqueKeysWithValues: ids.map { ($0, ["name": .attribute(.string("\(filler)\($0.primaryKey)"))]) }))
        )
        try store.apply(ChangeSet(deleted: Set(ids)))
        return path
    }

    static func export(_ path: String) throws -> String {
        let r = try Cdstore.run(["export", path, "--format", "ndjson"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test func compactionKeepsEveryObjectAndShrinksTheFile() throws {
        try Cdstore.withTempDir { dir in
            let path = try Self.bloated(in: dir)
            let before = try Self.export(path)
            let sizeBefore = StoreSize.of(path)
            let r = try Cdstore.run(["compact", path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasPrefix("\(path): ") && r.stdout.contains(" before, ") && r.stdout.hasSuffix(" after\n"))
            #expect(try Self.export(path) == before)
            #expect(StoreSize.of(path) < sizeBefore, "\(sizeBefore) → \(StoreSize.of(path))")
            #expect(!FileManager.default.fileExists(atPath: path + ".migration"))
            let verify = try Cdstore.run(["verify", "--quiet", path])
            #expect(verify.status == 0, "\(verify.stdout)")
            // CP1: the keys handed out before compaction are never handed out again.
            let store = try ObjectStore.open(path: path, model: SampleStore.model)
            defer { try? store.close() }
            #expect(try store.newObjectIDs(entity: "Employee", count: 1).first?.primaryKey == 2005)
        }
    }

    @Test func aStoreOpenElsewhereIsRefusedUnchanged() throws {
        try Cdstore.withTempDir { dir in
            let path = try Self.bloated(in: dir)
            let sizeBefore = StoreSize.of(path)
            let store = try ObjectStore.open(path: path, model: SampleStore.model)
            defer { try? store.close() }
            let r = try Cdstore.run(["compact", path])
            #expect(r.status == 8)
            #expect(r.stderr == "cdstore: \(path): store is open for writing by another process\n")
            #expect(StoreSize.of(path) == sizeBefore)
            #expect(!FileManager.default.fileExists(atPath: path + ".migration"))
        }
    }

    @Test func anEngineStoreWithoutAModelIsRefused() throws {
        try Cdstore.withTempDir { dir in
            let path = try Cdstore.copyFixtureStore("stores/v1-clean.cdstore", to: dir)
            let r = try Cdstore.run(["compact", path])
            #expect(r.status == 8)
            #expect(r.stderr == "cdstore: \(path): an engine store without an object model (no cd.meta tree)\n")
        }
    }
}

/// The bytes of a store's page file and WAL together.
enum StoreSize {
    static func of(_ path: String) -> UInt64 {
        [path, path + "-wal"].reduce(0) {
            $0 + (((try? FileManager.default.attributesOfItem(atPath: $1))?[.size] as? NSNumber)?.uint64Value ?? 0)
        }
    }
}
