// Store.backup (BK1–BK4 of Store+Backup.swift): the copy holds exactly the commit the backup
// began on, whatever is committed meanwhile; it is whole after many small commits; an existing
// destination is refused before anything is written; a failed backup leaves no destination.

import Foundation
import Testing
@testable import CdStore

@Suite struct StoreBackupTests {
    /// A store of three trees with `perTree` random entries each, and its contents.
    static func filled(_ path: String, perTree: Int, seed: UInt64) throws -> (Store, StoreModel) {
        var rng = SeededGenerator(seed: seed)
        var options = StoreOptions()
        options.durability = .off
        let store = try Store.open(path: path, options: options)
        try store.write { tx in
            for name in ["accounts", "ledger", "zeta"] {
                let tree = try tx.createTree(name)
                for i in 0..<perTree {
                    var key = Array("\(name)-".utf8)
                    key.append(contentsOf: withUnsafeBytes(of: UInt32(i).bigEndian, Array.init))
                    try tree.put(key, randomBytes(Int.random(in: 1...300, using: &rng), &rng))
                }
            }
        }
        let model = try store.read { try snapshotModel($0) }
        return (store, model)
    }

    @Test func theCopyHoldsTheCommitTheBackupBeganOnWhileWritesGoOn() throws {
        let dir = try TemporaryDirectory()
        let (store, before) = try Self.filled(dir.path("source.cdstore"), perTree: 2_000, seed: 7)
        defer { try? store.close() }
        var options = BackupOptions()
        options.commitBytes = 64 << 10  // many commits of the copy
        // After each tree is copied, another writer changes every tree, the ones still to copy too.
        options.progress = { @Sendable progress in
            try? store.write { tx in
                for name in try tx.treeNames() {
                    try tx.tree(name)!.put(Array("late".utf8), [UInt8(progress.treesCopied)])
                }
                _ = try tx.tree("zeta")!.delete(Array("zeta-".utf8) + [0, 0, 0, 1])
                _ = try tx.createTree("created-\(progress.treesCopied)")
            }
        }
        let result = try store.backup(to: dir.path("copy.cdstore"), options: options)
        #expect(result.copied.trees == 3 && result.copied.treesCopied == 3)
        #expect(result.copied.entries == 6_000)
        #expect(!FileManager.default.fileExists(atPath: dir.path("copy.cdstore.backup")))
        #expect(!FileManager.default.fileExists(atPath: dir.path("copy.cdstore-wal")))

        let report = try StoreVerifier.verify(path: dir.path("copy.cdstore"))
        #expect(report.problemCount == 0, "\(report.problems)")
        let copy = try Store.open(path: dir.path("copy.cdstore"))
        defer { try? copy.close() }
        let difference = try copy.read { try firstDifference($0, before) }
        #expect(difference == nil)
        // The source has moved on: trees created during the copy (one per progress call that saw a
        // new count of trees copied, "created-0" from the commits inside the first tree).
        #expect(try store.read { try $0.treeNames().filter { $0.hasPrefix("created-") }.count } == 4)
    }

    @Test func anExistingDestinationIsRefusedBeforeAnythingIsWritten() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try Self.filled(dir.path("source.cdstore"), perTree: 10, seed: 8)
        defer { try? store.close() }
        for existing in ["copy.cdstore", "copy.cdstore-wal"] {
            _ = FileManager.default.createFile(atPath: dir.path(existing), contents: Data("mine".utf8))
            #expect(throws: StoreError.backupDestinationExists(path: dir.path("copy.cdstore"))) {
                try store.backup(to: dir.path("copy.cdstore"))
            }
            #expect(FileManager.default.contents(atPath: dir.path(existing)) == Data("mine".utf8))
            #expect(!FileManager.default.fileExists(atPath: dir.path("copy.cdstore.backup")))
            try FileManager.default.removeItem(atPath: dir.path(existing))
        }
    }

    @Test func aFailedBackupLeavesNoDestinationAndALeftoverIsReplaced() throws {
        let dir = try TemporaryDirectory()
        let (store, before) = try Self.filled(dir.path("source.cdstore"), perTree: 50, seed: 9)
        defer { try? store.close() }
        // A destination in a folder that does not exist: the copy cannot be created.
        let nowhere = dir.path("missing/copy.cdstore")
        #expect(throws: StoreError.self) { try store.backup(to: nowhere) }
        #expect(!FileManager.default.fileExists(atPath: nowhere))
        // What an interrupted backup leaves beside the destination is not a store the next one uses.
        _ = FileManager.default.createFile(atPath: dir.path("copy.cdstore.backup"), contents: Data(count: 100))
        try store.backup(to: dir.path("copy.cdstore"))
        let copy = try Store.open(path: dir.path("copy.cdstore"))
        defer { try? copy.close() }
        #expect(try copy.read { try firstDifference($0, before) } == nil)
    }
}
