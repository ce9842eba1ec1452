import Foundation
import Testing
@testable import CdStore

/// `NAME-shm` outlives its stores (docs/FORMAT.md, "The shared file"): a close leaves it, and
/// whatever a left file holds — the last store's state, a dead process's half-written words, the
/// state of another store that once lay at the same path — is rebuilt by the next store that
/// opens it alone, which then reads exactly what the page file and the WAL hold.
@Suite struct SharedFileLifetimeTests {
    static func words(_ path: String) throws -> [UInt64] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path + "-shm"))
        return data.withUnsafeBytes { raw in
            (0..<(raw.count / 8)).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) }
        }
    }

    static func overwrite(_ path: String, word: Int, with value: UInt64) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path + "-shm"))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(word * 8))
        handle.write(withUnsafeBytes(of: value.littleEndian) { Data($0) })
    }

    @Test func theLastCloseLeavesTheFileAndTheNextOpenUsesIt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("s")
        let a = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        try StoreSharingTests.put(a, "x", "1")
        try a.close()
        #expect(FileManager.default.fileExists(atPath: path + "-shm"))
        let inode = try FileManager.default.attributesOfItem(atPath: path + "-shm")[.systemFileNumber] as? Int
        let b = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        #expect(try StoreSharingTests.value(b, "x") == "1")
        try StoreSharingTests.put(b, "x", "2")
        // The reopened store uses the same file, not a new one.
        #expect(try FileManager.default.attributesOfItem(atPath: path + "-shm")[.systemFileNumber] as? Int == inode)
        try b.close()
        let c = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        #expect(try StoreSharingTests.value(c, "x") == "2")
        try c.close()
    }

    /// A left file whose words claim things the files do not say: an odd sequence (a writer that
    /// died mid-publish), a checkpoint running, a live reader mark in a slot, a commit far past the
    /// WAL's. An open alone rebuilds every word; the store reads and writes as if the file were new.
    @Test func aLeftFileWithStaleOrHostileWordsIsRebuiltByTheNextOpenAlone() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("s")
        let a = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        for i in 0..<20 { try StoreSharingTests.put(a, "k\(i)", "\(i)") }
        try a.close()
        try Self.overwrite(path, word: SharedStateLayout.sequenceWord, with: 7)
        try Self.overwrite(path, word: SharedStateLayout.checkpointWord, with: 3)
        try Self.overwrite(path, word: 3, with: 1 << 40)
        try Self.overwrite(path, word: SharedStateLayout.durableWord, with: 1 << 40)
        try Self.overwrite(path, word: SharedStateLayout.markWord(slot: 5), with: 2)
        let b = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        let words = try Self.words(path)
        #expect(words[SharedStateLayout.sequenceWord] & 1 == 0)
        #expect(words[SharedStateLayout.checkpointWord] == 0)
        #expect(words[SharedStateLayout.markWord(slot: 5)] == 0)
        #expect(words[SharedStateLayout.durableWord] == b.lastCommit.rawValue)
        for i in 0..<20 { #expect(try StoreSharingTests.value(b, "k\(i)") == "\(i)") }
        try StoreSharingTests.put(b, "after", "1")
        // A checkpoint is not held back by the old mark: it copies and resets the WAL.
        let result = try b.checkpoint()
        #expect(result.pagesCopied > 0 && result.walReset)
        try b.close()
        #expect(try StoreVerifier.verify(path: path).isClean)
    }

    /// A store deleted and made again at the same path finds the old store's file: the new store
    /// must not take the old commit numbers or WAL position for its own.
    @Test func aStoreMadeAgainAtTheSamePathIgnoresTheOldStoresFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("s")
        let old = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        for i in 0..<50 { try StoreSharingTests.put(old, "old\(i)", "\(i)") }
        let oldCommit = old.lastCommit
        try old.close()
        for suffix in ["", "-wal"] { try FileManager.default.removeItem(atPath: path + suffix) }
        #expect(FileManager.default.fileExists(atPath: path + "-shm"))
        let new = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        #expect(new.lastCommit < oldCommit)
        #expect(try StoreSharingTests.value(new, "old0") == nil)
        try StoreSharingTests.put(new, "new", "1")
        let other = try Store.open(path: path, options: StoreSharingTests.options(POSIXFileSystem()))
        #expect(try StoreSharingTests.value(other, "new") == "1")
        #expect(other.lastCommit == new.lastCommit)
        try other.close()
        try new.close()
        #expect(try StoreVerifier.verify(path: path).isClean)
    }
}
