import Foundation
@testable import CdStore

/// A file system over another one whose WAL `sync()` calls wait while syncs are held, and then
/// succeed or fail: a test holds the first sync of a group commit open while more writers queue up
/// behind it, without timing anything.
final class HeldSyncFileSystem: StoreFileSystem, @unchecked Sendable {
    private let base: any StoreFileSystem
    private let condition = NSCondition()
    private var held = false
    private var failing = false
    private var waiting = 0
    private var syncs = 0

    init(_ base: any StoreFileSystem) { self.base = base }

    /// From now on, WAL syncs wait until `release(failing:)`.
    func hold() { condition.withLock { held = true } }

    /// Lets held and later WAL syncs go; `failing`: they throw EIO instead of syncing.
    func release(failing: Bool = false) {
        condition.withLock {
            held = false
            self.failing = failing
            condition.broadcast()
        }
    }

    /// WAL syncs waiting at the hold now.
    var waitingSyncs: Int { condition.withLock { waiting } }
    /// WAL syncs completed or failed so far.
    var walSyncs: Int { condition.withLock { syncs } }

    func syncWAL(_ file: any StoreFile) throws {
        let fail: Bool = condition.withLock {
            waiting += 1
            while held { condition.wait() }
            waiting -= 1
            syncs += 1
            return failing
        }
        if fail { throw StoreError.io(operation: "fsync", path: file.path, errno: EIO) }
        try file.sync()
    }

    func open(_ path: String, mode: FileOpenMode) throws -> any StoreFile {
        let file = try base.open(path, mode: mode)
        return path.hasSuffix("-wal") ? HeldSyncFile(file, fileSystem: self) : file
    }
    func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    func remove(_ path: String) throws { try base.remove(path) }
    func rename(_ path: String, to newPath: String) throws { try base.rename(path, to: newPath) }
    func syncDirectory(containing path: String) throws { try base.syncDirectory(containing: path) }
}

/// A WAL file of a `HeldSyncFileSystem`: everything but `sync()` goes straight through.
final class HeldSyncFile: StoreFile, @unchecked Sendable {
    let file: any StoreFile
    unowned let fileSystem: HeldSyncFileSystem
    init(_ file: any StoreFile, fileSystem: HeldSyncFileSystem) {
        self.file = file
        self.fileSystem = fileSystem
    }
    var path: String { file.path }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try file.read(into: buffer, at: offset)
    }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { try file.write(bytes, at: offset) }
    func sync() throws { try fileSystem.syncWAL(file) }
    func size() throws -> UInt64 { try file.size() }
    func truncate(to size: UInt64) throws { try file.truncate(to: size) }
    func lock(_ kind: FileLockKind) throws { try file.lock(kind) }
    func close() throws { try file.close() }
}
