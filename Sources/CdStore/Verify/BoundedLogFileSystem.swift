// The verifier's view of a store's files at its snapshot (VerifierSnapshot VS2): every file as it
// is, except the WAL, which ends at the snapshot's log end. Bytes past it (commits other processes
// append while the verifier reads) are not there for the passes, so a commit being written is
// never seen half-written, and every pass — the engine's and the object layer's, which opens the
// store read-only through this file system — sees the same commits.
//
// Read-only: opening the WAL for writing, writing, truncating or syncing through the view throws.

/// A file system that shows the WAL at `walPath` cut at `limit` bytes (VS2).
struct BoundedLogFileSystem: StoreFileSystem {
    let base: any StoreFileSystem
    let walPath: String
    let limit: UInt64

    func open(_ path: String, mode: FileOpenMode) throws -> any StoreFile {
        guard path == walPath else { return try base.open(path, mode: mode) }
        guard mode == .readOnly else { throw StoreError.readOnly(path: path) }
        return BoundedFile(base: try base.open(path, mode: .readOnly), limit: limit)
    }

    func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    func remove(_ path: String) throws { throw StoreError.readOnly(path: path) }
    func rename(_ path: String, to newPath: String) throws { throw StoreError.readOnly(path: path) }
    func syncDirectory(containing path: String) throws { try base.syncDirectory(containing: path) }
}

/// A read-only file that ends at `limit` (or where the file ends, when that is sooner).
final class BoundedFile: StoreFile {
    let base: any StoreFile
    let limit: UInt64
    var path: String { base.path }

    init(base: any StoreFile, limit: UInt64) {
        self.base = base
        self.limit = limit
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        guard offset < limit else { return 0 }
        let count = Int(min(UInt64(buffer.count), limit - offset))
        return try base.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { throw StoreError.readOnly(path: path) }
    func sync() throws { throw StoreError.readOnly(path: path) }
    func size() throws -> UInt64 { min(try base.size(), limit) }
    func truncate(to size: UInt64) throws { throw StoreError.readOnly(path: path) }
    func lock(_ kind: FileLockKind) throws { try base.lock(kind) }
    func close() throws { try base.close() }
}
