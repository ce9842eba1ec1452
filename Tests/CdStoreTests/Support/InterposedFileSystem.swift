import Foundation
@testable import CdStore

/// An in-memory file system whose files call a test's hook before each read and size query, so a
/// test can let "another process" act at one exact step of an open or a read, without timing
/// anything. Shared regions are the base file system's, so stores opened through this one and
/// through the base are two processes on one store.
final class InterposedFileSystem: StoreFileSystem, SharedRegionProvider, @unchecked Sendable {
    /// What a file was about to do when the hook ran.
    enum Step: Equatable {
        case size
        case read(offset: UInt64, count: Int)
    }

    let base: InMemoryFileSystem
    private let lock = NSLock()
    private var hook: (@Sendable (_ path: String, _ step: Step) -> Void)?

    init(_ base: InMemoryFileSystem) { self.base = base }

    /// Sets the hook (nil removes it). It runs on the calling thread, with no lock held.
    func interpose(_ hook: (@Sendable (_ path: String, _ step: Step) -> Void)?) { lock.withLock { self.hook = hook } }

    func before(_ path: String, _ step: Step) {
        let current = lock.withLock { hook }
        current?(path, step)
    }

    func open(_ path: String, mode: FileOpenMode) throws -> any StoreFile {
        InterposedFile(try base.open(path, mode: mode), fileSystem: self)
    }
    func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    func remove(_ path: String) throws { try base.remove(path) }
    func rename(_ path: String, to newPath: String) throws { try base.rename(path, to: newPath) }
    func syncDirectory(containing path: String) throws { try base.syncDirectory(containing: path) }
    func openSharedRegion(_ path: String, size: Int) throws -> any SharedRegion {
        try base.openSharedRegion(path, size: size)
    }
}

/// A file of an `InterposedFileSystem`: the hook runs before `size()` and each read.
final class InterposedFile: StoreFile, @unchecked Sendable {
    let file: any StoreFile
    unowned let fileSystem: InterposedFileSystem
    init(_ file: any StoreFile, fileSystem: InterposedFileSystem) {
        self.file = file
        self.fileSystem = fileSystem
    }
    var path: String { file.path }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        fileSystem.before(path, .read(offset: offset, count: buffer.count))
        return try file.read(into: buffer, at: offset)
    }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { try file.write(bytes, at: offset) }
    func sync() throws { try file.sync() }
    func size() throws -> UInt64 {
        fileSystem.before(path, .size)
        return try file.size()
    }
    func truncate(to size: UInt64) throws { try file.truncate(to: size) }
    func lock(_ kind: FileLockKind) throws { try file.lock(kind) }
    func close() throws { try file.close() }
}
