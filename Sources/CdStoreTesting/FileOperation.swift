// One entry of `FaultInjectingFileSystem`'s operation log: what the engine asked the file system
// to do, in order. Tests compare the log (or sums over it, such as the bytes a commit wrote) with
// expected values: a test captures what the engine did and compares it with what it should
// have done.

import CdStore

/// A kind of file-system operation, as counted and logged by `FaultInjectingFileSystem`.
///
/// ```swift
/// let syncs = fs.operationLog.filter { $0.kind == .sync }.count
/// ```
public enum FileOperationKind: String, Sendable, Hashable, CaseIterable {
    case open
    case read
    case write
    case sync
    case size
    case truncate
    case lock
    case close
    case remove
    case rename
    case syncDirectory

    /// The POSIX call `POSIXFileSystem` makes for this operation; `StoreError.io` names it (FS5).
    public var systemCall: String {
        switch self {
        case .open: return "open"
        case .read: return "pread"
        case .write: return "pwrite"
        case .sync: return "fdatasync"
        case .size: return "fstat"
        case .truncate: return "ftruncate"
        case .lock: return "flock"
        case .close: return "close"
        case .remove: return "unlink"
        case .rename: return "rename"
        case .syncDirectory: return "fsync"
        }
    }
}

/// One operation as the fault-injecting file system saw it.
///
/// ```swift
/// let fs = FaultInjectingFileSystem()
/// let file = try fs.open("wal", mode: .createIfMissing)
/// try file.write([UInt8](repeating: 7, count: 32), at: 0)
/// #expect(fs.operationLog.map(\.description) == ["#1 open wal", "#2 write wal @0 +32"])
/// ```
public struct FileOperation: Sendable, Equatable, CustomStringConvertible {
    /// How the operation ended.
    public enum Outcome: Sendable, Equatable {
        /// It ran (it may still have failed for an ordinary reason, see `failed`).
        case completed
        /// It failed with this errno, injected or not (`EWOULDBLOCK` for a lock conflict).
        case failed(errno: Int32)
        /// A write of which only `written` bytes landed before it failed with `errno`.
        case shortWrite(written: Int, errno: Int32)
        /// The simulated process died here; for a write, `landed` bytes of it reached the cache.
        case crashed(landed: Int)
    }

    /// The operation's number in the file system's global sequence, counted from 1.
    public let sequence: Int
    /// What was asked.
    public let kind: FileOperationKind
    /// The path of the file, or for `syncDirectory` the path whose directory was synced.
    public let path: String
    /// The offset of a read or write, or the new size of a truncate.
    public let offset: UInt64?
    /// The number of bytes a read or write asked for.
    public let length: Int?
    /// How it ended.
    public internal(set) var outcome: Outcome

    /// The bytes of this operation that reached the file: all of a completed write, the prefix
    /// of a short or torn one, none for anything else.
    public var bytesWritten: Int {
        guard kind == .write else { return 0 }
        switch outcome {
        case .completed: return length ?? 0
        case let .shortWrite(written, _): return written
        case let .crashed(landed): return landed
        case .failed: return 0
        }
    }

    /// `#7 write store.cd @4096 +4096`, followed by ` -> …` when it did not simply complete.
    public var description: String {
        var text = "#\(sequence) \(kind.rawValue) \(path)"
        if let offset { text += kind == .truncate ? " to \(offset)" : " @\(offset)" }
        if let length { text += " +\(length)" }
        switch outcome {
        case .completed: break
        case let .failed(code): text += " -> errno \(code)"
        case let .shortWrite(written, code): text += " -> short \(written), errno \(code)"
        case let .crashed(landed): text += " -> crash, \(landed) landed"
        }
        return text
    }
}
