// One open real file. `pread`/`pwrite` are thread-safe on their own; what needs guarding is the
// descriptor's lifetime: closing while another thread is inside `pread` would let the kernel reuse
// the number for an unrelated file, and the read would land there.
//
// Invariants (kept by `withDescriptor` and `close`):
//  PF1. Once `close()` has been called, no new call starts on the descriptor; each fails with EBADF.
//  PF2. The descriptor is closed exactly once, when `close()` has been called and no call is inside
//       a system call on it (`users == 0`), so a number is never used after the kernel reuses it.
//  PF3. Short reads and writes are looped: `read` stops early only at end of file (FS1), `write`
//       writes everything or throws (FS2).

import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened by `POSIXFileSystem`.
///
/// Safe to use from several threads at once: reads and writes at different offsets run in
/// parallel; `close()` waits for nothing but makes every later call fail with `EBADF`, and the
/// descriptor is released when the last call in flight returns (PF1, PF2).
///
/// ```swift
/// let file = try POSIXFileSystem().open(path, mode: .readOnly)
/// var header = [UInt8](repeating: 0, count: 100)
/// let count = try header.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }
/// try file.close()
/// ```
public final class POSIXFile: StoreFile {
    /// The path the file was opened at.
    public let path: String
    /// Whether the file was opened for writing.
    public let isWritable: Bool

    private struct DescriptorState {
        var descriptor: FileDescriptor?
        var users = 0
        var closeRequested = false
    }

    private let state: LockedState<DescriptorState>

    init(descriptor: FileDescriptor, path: String, writable: Bool) {
        self.path = path
        self.isWritable = writable
        self.state = LockedState(DescriptorState(descriptor: descriptor))
    }

    deinit {
        // A handle dropped without `close()` must not leak its descriptor (nor its flock).
        state.withLock { state in
            if let descriptor = state.descriptor { try? descriptor.close() }
            state.descriptor = nil
        }
    }

    // MARK: - StoreFile

    /// Reads up to `buffer.count` bytes at `offset`, looping over short `pread`s; returns fewer
    /// only at end of file (FS1, PF3).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try withDescriptor("pread") { descriptor in
            let start = try checkedOffset(offset, count: buffer.count)
            var done = 0
            while done < buffer.count {
                let got = try descriptor.read(
                    fromAbsoluteOffset: start + Int64(done),
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
                if got == 0 { break }
                done += got
            }
            return done
        }
    }

    /// Writes all of `bytes` at `offset`, looping over short `pwrite`s (FS2, PF3).
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try withDescriptor("pwrite") { descriptor in
            let start = try checkedOffset(offset, count: bytes.count)
            var done = 0
            while done < bytes.count {
                let put = try descriptor.write(
                    toAbsoluteOffset: start + Int64(done),
                    UnsafeRawBufferPointer(rebasing: bytes[done...]))
                // pwrite never returns 0 for a non-empty buffer on a regular file; if it did,
                // looping would spin forever, so report it as an I/O error.
                if put == 0 { throw Errno.ioError }
                done += put
            }
        }
    }

    /// `fdatasync`: the data and the size of the file are durable when it returns (FS3).
    public func sync() throws {
        try withDescriptor("fdatasync") { descriptor in
            #if canImport(Darwin)
            try retryingInterrupts { fcntl(descriptor.rawValue, F_FULLFSYNC) }
            #else
            try retryingInterrupts { fdatasync(descriptor.rawValue) }
            #endif
        }
    }

    /// The size from `fstat`.
    public func size() throws -> UInt64 {
        try withDescriptor("fstat") { descriptor in
            var info = stat()
            try retryingInterrupts { fstat(descriptor.rawValue, &info) }
            return UInt64(info.st_size)
        }
    }

    /// `ftruncate`: cuts the file, or extends it with zeros.
    public func truncate(to size: UInt64) throws {
        try withDescriptor("ftruncate") { descriptor in
            guard let length = Int64(exactly: size) else { throw Errno.fileTooLarge }
            try descriptor.resize(to: length)
        }
    }

    /// `flock(LOCK_SH|LOCK_NB)` or `flock(LOCK_EX|LOCK_NB)`; a conflict throws
    /// `StoreError.locked(path:)` (FS4). Converting a held lock follows Linux: if the new lock
    /// conflicts, the old one is gone too.
    public func lock(_ kind: FileLockKind) throws {
        let operation = (kind == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        do {
            try withDescriptor("flock") { descriptor in
                try retryingInterrupts { flock(descriptor.rawValue, operation) }
            }
        } catch StoreError.io(operation: "flock", path: _, errno: EWOULDBLOCK) {
            throw StoreError.locked(path: path)
        }
    }

    /// Closes the descriptor, which releases the lock. A second `close()` fails with `EBADF`.
    public func close() throws {
        let descriptor: FileDescriptor? = try state.withLock { state in
            guard state.descriptor != nil, !state.closeRequested else {
                throw StoreError.io(operation: "close", path: path, errno: EBADF)
            }
            state.closeRequested = true
            guard state.users == 0 else { return nil }  // the last user closes it (PF2)
            defer { state.descriptor = nil }
            return state.descriptor
        }
        guard let descriptor else { return }
        do {
            // Never retry close on EINTR: on Linux the descriptor is already gone.
            try descriptor.close()
        } catch let error as Errno {
            throw StoreError.io(operation: "close", path: path, errno: error.rawValue)
        }
    }

    // MARK: - Descriptor lifetime

    /// Runs `body` with the descriptor, counted as a user so that `close()` cannot release the
    /// number under it (PF1, PF2). Maps an `Errno` thrown by `body` to `StoreError.io` named
    /// `operation` (FS5).
    @discardableResult
    private func withDescriptor<R>(_ operation: String, _ body: (FileDescriptor) throws -> R) throws -> R {
        let descriptor: FileDescriptor = try state.withLock { state in
            guard let descriptor = state.descriptor, !state.closeRequested else {
                throw StoreError.io(operation: operation, path: path, errno: EBADF)
            }
            state.users += 1
            return descriptor
        }
        defer {
            let lastUser: FileDescriptor? = state.withLock { state in
                state.users -= 1
                guard state.closeRequested, state.users == 0 else { return nil }
                defer { state.descriptor = nil }
                return state.descriptor
            }
            // `close()` returned already; an error here has nobody left to report to.
            if let lastUser { try? lastUser.close() }
        }
        do {
            return try body(descriptor)
        } catch let error as Errno {
            throw StoreError.io(operation: operation, path: path, errno: error.rawValue)
        }
    }

    /// The offset as `off_t`, or `EFBIG` when `offset + count` does not fit.
    private func checkedOffset(_ offset: UInt64, count: Int) throws -> Int64 {
        guard let start = Int64(exactly: offset),
            start.addingReportingOverflow(Int64(count)).overflow == false
        else { throw Errno.fileTooLarge }
        return start
    }
}
