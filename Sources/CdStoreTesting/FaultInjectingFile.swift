// A file of `FaultInjectingFileSystem`. Each call is one operation of the file system's sequence:
// it is admitted (counted, logged, matched against the plan) and performed under the file
// system's lock, and it keeps the disk model's invariants FD1–FD2 (see FaultInjectingFileSystem.swift).

import CdStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened by `FaultInjectingFileSystem`; thread-safe.
///
/// Writes and truncates stay volatile until `sync()`:
///
/// ```swift
/// let fs = FaultInjectingFileSystem()
/// let file = try fs.open("wal", mode: .createIfMissing)
/// try fs.syncDirectory(containing: "wal")
/// try file.write([1, 2, 3], at: 0)
/// #expect(fs.survivingFiles(seed: 1)["wal"] == [])       // not synced: lost
/// try file.sync()
/// #expect(fs.survivingFiles(seed: 1)["wal"] == [1, 2, 3])
/// ```
public final class FaultInjectingFile: StoreFile {
    /// The path the file was opened at.
    public let path: String
    private let fileSystem: FaultInjectingFileSystem
    private let handle: InMemoryVolume.HandleID

    init(fileSystem: FaultInjectingFileSystem, handle: InMemoryVolume.HandleID, path: String) {
        self.fileSystem = fileSystem
        self.handle = handle
        self.path = path
    }

    deinit {
        // A dropped handle releases its lock, without counting as an operation.
        let (handle, path) = (handle, path)
        fileSystem.state.withLock { try? $0.volume.close(handle, path: path) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try fileSystem.state.withLock { state in
            try state.perform(.read, path, offset: offset, length: buffer.count) { state, _ in
                try state.volume.read(handle, path: path, into: buffer, at: offset)
            }
        }
    }

    /// Writes into the volatile cache (pending until `sync`); an injected short write or torn
    /// crash lands only a prefix of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try fileSystem.state.withLock { state in
            try state.perform(.write, path, offset: offset, length: bytes.count) { state, fault in
                let landing: Int
                switch fault {
                case let .shortWrite(count, _)?: landing = max(0, min(count, bytes.count))
                case let .crash(count)?: landing = max(0, min(count, bytes.count))
                case .fail?, nil: landing = bytes.count
                }
                let prefix = UnsafeRawBufferPointer(rebasing: bytes[..<landing])
                try state.volume.write(handle, path: path, prefix, at: offset)
                if landing > 0, let node = state.volume.node(ofHandle: handle) {
                    state.shadows[node]!.pending.append(.write(offset: offset, bytes: Array(prefix)))  // keeps FD1
                }
                switch fault {
                case let .shortWrite(_, code)?:
                    state.record(.shortWrite(written: landing, errno: code))
                    throw StoreError.io(operation: "pwrite", path: path, errno: code)
                case .crash?:
                    let crash = SimulatedCrash(operation: state.sequence, kind: .write, path: path)
                    state.crash = crash
                    state.record(.crashed(landed: landing))
                    throw crash
                case .fail?, nil:
                    break
                }
            }
        }
    }

    /// Makes the file's current bytes its durable image (FD2).
    public func sync() throws {
        try fileSystem.state.withLock { state in
            try state.perform(.sync, path) { state, _ in
                try state.volume.checkOpen(handle, path: path, "fdatasync")
                guard let node = state.volume.node(ofHandle: handle) else { return }
                state.shadows[node] = FaultState.Shadow(durable: state.volume.contents(ofNode: node))
            }
        }
    }

    public func size() throws -> UInt64 {
        try fileSystem.state.withLock { state in
            try state.perform(.size, path) { state, _ in try state.volume.size(handle, path: path) }
        }
    }

    /// Truncates in the volatile cache (pending until `sync`).
    public func truncate(to size: UInt64) throws {
        try fileSystem.state.withLock { state in
            try state.perform(.truncate, path, offset: size) { state, _ in
                try state.volume.truncate(handle, path: path, to: size)
                if let node = state.volume.node(ofHandle: handle) {
                    state.shadows[node]!.pending.append(.truncate(size: size))  // keeps FD1
                }
            }
        }
    }

    public func lock(_ kind: FileLockKind) throws {
        try fileSystem.state.withLock { state in
            try state.perform(.lock, path) { state, _ in try state.volume.lock(handle, path: path, kind) }
        }
    }

    /// Closes the handle. Like Linux `close`, an injected failure still releases the handle and
    /// its lock (but a crash does not: the process is gone, and so is everything it could do).
    public func close() throws {
        try fileSystem.state.withLock { state in
            do {
                try state.perform(.close, path) { state, _ in try state.volume.close(handle, path: path) }
            } catch let error as StoreError {
                try? state.volume.close(handle, path: path)
                throw error
            }
        }
    }
}
