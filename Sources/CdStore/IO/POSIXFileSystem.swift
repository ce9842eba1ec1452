// The real file system: `StoreFileSystem` over POSIX calls (Linux first, Darwin compiles too).
//
// Every system call goes through `retryingInterrupts` / `posixFailure` so that EINTR is retried in
// one place and every failure becomes `StoreError.io(operation:path:errno:)` with the name of the
// call (FS5). The names are shared with the in-memory and fault-injecting file systems, so a test
// can expect the same error from all three.
//
// Durability: creating or removing a file changes its parent directory; the change survives
// power loss only after `syncDirectory(containing:)`, which fsyncs the directory (Linux's rule
// for a new file is create, write, fsync the file, fsync the parent directory; an unlink or
// truncate that acts as a commit point is durable only after the directory's fsync too).

import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `StoreFileSystem` of real files, through POSIX system calls.
///
/// Files are opened with `O_CLOEXEC` and created with mode `0644`. `lock(_:)` uses `flock`, whose
/// locks belong to the open file description: a second `open` of the same path in the same process
/// gets its own lock and conflicts with the first (FS4).
///
/// ```swift
/// let fs = POSIXFileSystem()
/// let file = try fs.open("/var/lib/app/store.cd", mode: .createIfMissing)
/// try file.lock(.exclusive)
/// try file.write([1, 2, 3], at: 0)
/// try file.sync()
/// try fs.syncDirectory(containing: "/var/lib/app/store.cd")   // the new file's name is durable
/// try file.close()
/// ```
///
/// A value of this type has no state; it may be used from any thread.
public struct POSIXFileSystem: StoreFileSystem {
    /// Creates the file system of real files.
    public init() {}

    /// Opens `path`; `.createIfMissing` creates it empty with mode `0644`.
    ///
    /// Throws `StoreError.io(operation: "open", path:, errno:)`, e.g. `ENOENT` for a missing file
    /// opened `.readOnly` or `.readWrite`, `EACCES` when permission is denied.
    public func open(_ path: String, mode: FileOpenMode) throws -> any StoreFile {
        let access: FileDescriptor.AccessMode
        var options: FileDescriptor.OpenOptions = [.closeOnExec]
        switch mode {
        case .readOnly:
            access = .readOnly
        case .readWrite:
            access = .readWrite
        case .createIfMissing:
            access = .readWrite
            options.insert(.create)
        }
        do {
            // swift-system retries the open on EINTR (`retryOnInterrupt` defaults to true).
            let descriptor = try FileDescriptor.open(
                FilePath(path), access, options: options,
                permissions: mode == .createIfMissing ? FilePermissions(rawValue: 0o644) : nil)
            return POSIXFile(descriptor: descriptor, path: path, writable: mode != .readOnly)
        } catch let error as Errno {
            throw StoreError.io(operation: "open", path: path, errno: error.rawValue)
        }
    }

    /// Whether anything exists at `path` (a file the caller may not be able to open still counts).
    public func fileExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Unlinks `path`; a missing file is not an error. Call `syncDirectory(containing:)` to make
    /// the removal durable.
    public func remove(_ path: String) throws {
        do {
            try retryingInterrupts { unlink(path) }
        } catch let error as Errno where error == .noSuchFileOrDirectory {
            return
        } catch let error as Errno {
            throw StoreError.io(operation: "unlink", path: path, errno: error.rawValue)
        }
    }

    /// `rename(2)`: atomic replacement of `newPath`. Call `syncDirectory(containing:)` to make it
    /// durable.
    public func rename(_ path: String, to newPath: String) throws {
        do {
            try retryingInterrupts { systemRename(path, newPath) }
        } catch let error as Errno {
            throw StoreError.io(operation: "rename", path: path, errno: error.rawValue)
        }
    }

    /// Opens the directory that contains `path` read-only and fsyncs it, so that files created or
    /// removed there survive power loss (a new file's name, and an unlink, are durable only once
    /// the parent directory is fsynced).
    ///
    /// Errors name the directory: `open` when it cannot be opened, `fsync` when the sync fails.
    public func syncDirectory(containing path: String) throws {
        let directory = Self.parentDirectory(of: path)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                FilePath(directory), .readOnly, options: [.closeOnExec, .directory])
        } catch let error as Errno {
            throw StoreError.io(operation: "open", path: directory, errno: error.rawValue)
        }
        defer { try? descriptor.close() }
        do {
            try retryingInterrupts { fsync(descriptor.rawValue) }
        } catch let error as Errno {
            throw StoreError.io(operation: "fsync", path: directory, errno: error.rawValue)
        }
    }

    /// The directory part of `path`: `"."` for a bare name, `"/"` for a file at the root.
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = path[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }
}

// MARK: - System call shims

/// Runs a C call that returns -1 and sets errno on failure, retrying while it fails with EINTR.
/// Returns the call's result when it is not -1; throws the `Errno` otherwise.
@discardableResult
func retryingInterrupts<R: BinaryInteger>(_ call: () -> R) throws -> R {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw Errno(rawValue: code)
    }
}

/// `rename(2)`, under a name that the file system's own `rename` method does not shadow.
private func systemRename(_ path: String, _ newPath: String) -> Int32 { rename(path, newPath) }
