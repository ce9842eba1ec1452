// All engine I/O goes through these two protocols, so that one small seam can be traced and
// broken on demand: the POSIX implementation for real files, an in-memory one for fast tests
// and in-memory stores, and (in the test-only target CdStoreTesting) a fault-injecting one that
// can fail any call, cut a write short, tear a write and, on "power loss", drop everything that
// was not synced.
//
// Contract every implementation keeps:
//  FS1. `read` returns the number of bytes read; fewer than asked only at end of file.
//  FS2. `write` writes all bytes or throws; it may extend the file (a gap reads as zeros).
//  FS3. After `sync` returns, every earlier `write` and `truncate` of that file survives power loss.
//  FS4. `lock` is advisory and per handle: a second handle on the same path — in this process or
//       another — cannot take a conflicting lock and gets `StoreError.locked`.
//  FS5. Errors are `StoreError.io` carrying the operation, the path and the errno.

/// How a file is opened.
public enum FileOpenMode: Sendable, Equatable {
    /// Read only; the file must exist.
    case readOnly
    /// Read and write; the file must exist.
    case readWrite
    /// Read and write; the file is created empty if it does not exist.
    case createIfMissing
}

/// The kind of advisory lock taken on a store file.
public enum FileLockKind: Sendable, Equatable {
    /// Many shared holders (read-only openers such as the verifier).
    case shared
    /// One holder and no shared ones (the writer).
    case exclusive
}

/// An open file, read and written at absolute offsets.
public protocol StoreFile: AnyObject, Sendable {
    /// The path this file was opened at (for error messages).
    var path: String { get }
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (FS1).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int
    /// Writes all of `bytes` at `offset` (FS2).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Makes every earlier write durable (FS3).
    func sync() throws
    /// The current size in bytes.
    func size() throws -> UInt64
    /// Cuts or extends the file to `size` bytes.
    func truncate(to size: UInt64) throws
    /// Takes an advisory lock without waiting, or throws `StoreError.locked` (FS4).
    func lock(_ kind: FileLockKind) throws
    /// Releases the lock and the handle. Further calls fail.
    func close() throws
}

/// Opens files and changes directories.
public protocol StoreFileSystem: Sendable {
    /// Opens (or creates) the file at `path`.
    func open(_ path: String, mode: FileOpenMode) throws -> any StoreFile
    /// Whether a file exists at `path`.
    func fileExists(_ path: String) -> Bool
    /// Removes the file at `path`; removing a missing file is not an error.
    func remove(_ path: String) throws
    /// Renames the file at `path` to `newPath` in one atomic step, replacing a file there (POSIX
    /// `rename`): a crash leaves the old name or the new one, never neither. Durable after
    /// `syncDirectory(containing:)`. Both names must be in the same directory.
    func rename(_ path: String, to newPath: String) throws
    /// Makes the directory entry of `path` durable (after creating or removing a file there).
    func syncDirectory(containing path: String) throws
}

extension StoreFile {
    /// Reads exactly `count` bytes at `offset`, or throws corruption naming `location` when the
    /// file ends first. Never allocates more than `count` bytes.
    func readExactly(_ count: Int, at offset: UInt64, location: CorruptionLocation) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = try bytes.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        guard got == count else {
            throw StoreError.corruption(
                path: path, location: location,
                detail: "file ends after \(got) of \(count) bytes at offset \(offset)")
        }
        return bytes
    }

    /// Writes a byte array at `offset`.
    func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreFile {
    /// Takes `kind`, waiting up to `seconds` while another handle holds a conflicting lock, then
    /// throws `StoreError.locked` (FS4). The short wait covers a lock that outlives its holder for
    /// an instant: a process that spawns a child (posix_spawn) lends it copies of its open
    /// descriptors until the child's exec closes them, and with them the `flock` of a store the
    /// parent has just closed. A real second opener still gets `locked`, only that much later.
    func lock(_ kind: FileLockKind, waitingUpTo seconds: Double) throws {
        var waited = 0.0
        while true {
            do {
                return try lock(kind)
            } catch StoreError.locked(let path) {
                guard waited < seconds else { throw StoreError.locked(path: path) }
                usleep(5_000)
                waited += 0.005
            }
        }
    }
}
