// The one error type of the storage engine. Everything that comes from disk or from a caller's
// data is reported as a `StoreError`; `precondition` is kept for internal programming errors.

/// A failure of the storage engine: I/O, corruption, locking, format, or misuse of a transaction.
///
/// Every case names *where* it happened: the path, and for corruption the page number or file
/// offset and what failed, so that a user (or `cdstore-verify`) can act on it.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed. `operation` is the call (`pread`, `fsync`, …), `errno` its error number.
    case io(operation: String, path: String, errno: Int32)
    /// Stored bytes are damaged: `location` says which page, frame or offset, `detail` what failed.
    case corruption(path: String, location: CorruptionLocation, detail: String)
    /// Another opener (another process, or this one through another handle) holds the store.
    case locked(path: String)
    /// The file is a Cadmium store of a format version this build cannot read.
    case unsupportedFormatVersion(path: String, found: UInt32, supported: UInt32)
    /// The file exists but is not a Cadmium store at all (wrong magic, too short to hold a header).
    case notAStore(path: String, detail: String)
    /// A write was attempted on a store opened read-only.
    case readOnly(path: String)
    /// A key longer than the tree's limit for this page size.
    case keyTooLarge(size: Int, limit: Int)
    /// A value longer than the engine's limit.
    case valueTooLarge(size: Int, limit: Int)
    /// An argument outside its documented range (page size, tree name, option).
    case invalidArgument(String)
    /// No tree of that name exists in the catalog.
    case treeNotFound(String)
    /// A tree of that name already exists in the catalog.
    case treeExists(String)
    /// The store was closed; the handle cannot be used any more.
    case closed(path: String)
    /// The transaction was already committed or aborted.
    case transactionFinished
    /// An earlier durability failure (a failed fsync or WAL write) left the in-memory state unsure;
    /// the store must be closed and reopened, which recovers from the WAL.
    case poisoned(path: String, cause: String)
    /// A backup's destination (or its log) already exists; a backup never replaces a file.
    case backupDestinationExists(path: String)

    public var description: String {
        switch self {
        case let .io(operation, path, errno):
            return "I/O error: \(operation) on \(path) failed with errno \(errno) (\(errnoName(errno)))"
        case let .corruption(path, location, detail):
            return "corruption in \(path) at \(location): \(detail)"
        case let .locked(path):
            return "store \(path) is locked: another process or handle has it open"
        case let .unsupportedFormatVersion(path, found, supported):
            return "store \(path) has format version \(found); this build reads version \(supported)"
        case let .notAStore(path, detail):
            return "\(path) is not a Cadmium store: \(detail)"
        case let .readOnly(path):
            return "store \(path) is open read-only"
        case let .keyTooLarge(size, limit):
            return "key of \(size) bytes exceeds the limit of \(limit) bytes"
        case let .valueTooLarge(size, limit):
            return "value of \(size) bytes exceeds the limit of \(limit) bytes"
        case let .invalidArgument(text):
            return "invalid argument: \(text)"
        case let .treeNotFound(name):
            return "no tree named '\(name)'"
        case let .treeExists(name):
            return "a tree named '\(name)' already exists"
        case let .closed(path):
            return "store \(path) is closed"
        case .transactionFinished:
            return "the transaction has already been committed or aborted"
        case let .poisoned(path, cause):
            return "store \(path) must be reopened after a durability failure: \(cause)"
        case let .backupDestinationExists(path):
            return "backup destination \(path) already exists: a backup never replaces a file"
        }
    }
}

/// Where in a store damage was found.
public enum CorruptionLocation: Sendable, Equatable, CustomStringConvertible {
    /// The file header (superblock) copy at this byte offset.
    case header(offset: UInt64)
    /// A logical page.
    case page(PageNumber)
    /// The page map or its directory.
    case pageMap(detail: String)
    /// A frame of the write-ahead log, counted from 0.
    case walFrame(index: Int, offset: UInt64)
    /// A byte offset in the file.
    case offset(UInt64)

    public var description: String {
        switch self {
        case let .header(offset): return "file header at offset \(offset)"
        case let .page(page): return "page \(page.rawValue)"
        case let .pageMap(detail): return "page map (\(detail))"
        case let .walFrame(index, offset): return "WAL frame \(index) at offset \(offset)"
        case let .offset(offset): return "offset \(offset)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func errnoName(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "unknown" }
    return String(cString: text)
}
