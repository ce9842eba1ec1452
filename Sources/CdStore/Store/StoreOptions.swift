#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When a commit is made durable.
public enum Durability: Sendable, Equatable {
    /// fsync the WAL on every commit: a commit that returned survives power loss. The default.
    case full
    /// fsync only at checkpoints: a crash may lose the last commits but never corrupts the store.
    case normal
    /// Never fsync. For tests and throwaway data only.
    case off
}

/// How a store is opened (and, for a new store, created).
///
/// ```swift
/// var options = StoreOptions()
/// options.cacheBytes = 16 << 20
/// let store = try Store.open(path: "/tmp/app.cdstore", options: options)
/// ```
public struct StoreOptions: Sendable {
    /// Logical page size for a new store: a power of two from 4 KiB to 64 KiB. Ignored when opening
    /// an existing store, which keeps the size it was created with.
    public var pageSize: Int = 8192
    /// Byte budget of the page cache of decompressed pages.
    public var cacheBytes: Int = 64 << 20
    /// When commits are fsynced.
    public var durability: Durability = .full
    /// Deflate level for page images (zlib's scale): 0 stores raw pages, 1 (the default) is
    /// fastest, 9 smallest.
    public var compressionLevel: Int = 1
    /// The WAL size past which a commit runs a checkpoint.
    public var checkpointThresholdBytes: UInt64 = 4 << 20
    /// Open read-only: takes a shared lock, never writes the page file or the WAL. Recovery
    /// happens in memory only.
    public var readOnly: Bool = false
    /// Create the store when the file does not exist (ignored when read-only).
    public var createIfMissing: Bool = true
    /// How long an open waits for another handle's lock on the store before it throws
    /// `StoreError.locked` (a busy timeout; it also covers the instant a spawned child process
    /// keeps a just-closed store's lock alive).
    public var lockWaitSeconds: Double = 0.25
    /// The bytes of changed pages a write transaction keeps in memory before it spills them to the
    /// WAL (`SpillLog`); nil: the cache budget. Tests set it small to spill early.
    package var spillThresholdBytes: Int?
    /// Whether several processes may open the store at once (the default), or one at a time.
    public var sharing: StoreSharing = .processes
    /// Whether the object store records persistent history (`HistoryTracking`); off by default.
    public var history: HistoryTracking = .off
    /// The most threads one large read may use: a query that scans a record tree, or reads the
    /// records of many keys, inflates its pages and tests its records on up to this many threads
    /// at once, with the same results in the same order (docs/ARCHITECTURE.md, "Reads on several
    /// threads"). 1 reads on the calling thread only; values below 1 count as 1. By default the
    /// machine's online processors, at most 16 (`StoreOptions.defaultReadThreads`). Small reads
    /// stay on the calling thread whatever this says.
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.readThreads = 1   // every query on the thread that runs it
    /// ```
    public var readThreads: Int = StoreOptions.defaultReadThreads
    /// The file layer; tests pass an in-memory or fault-injecting one.
    public var fileSystem: any StoreFileSystem

    public init(fileSystem: any StoreFileSystem = POSIXFileSystem()) {
        self.fileSystem = fileSystem
    }

    /// The default of ``readThreads``: the processors online, at most 16 (the partitioning of a
    /// scan is designed for up to 16 threads; more rarely pays on one query).
    public static let defaultReadThreads: Int = {
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return Int(min(max(online, 1), 16))
    }()
}

/// Who may open a store at the same time (``StoreOptions/sharing``).
public enum StoreSharing: Sendable, Equatable {
    /// Any number of processes, each with any number of readers and one writer at a time across
    /// all of them, coordinated through the shared file `NAME-shm` beside the store (docs/FORMAT.md).
    /// A file system that cannot share memory (the fault-injecting test double) opens as `.exclusive`.
    case processes
    /// One process at a time: an exclusive `flock` on the page file (shared when read-only), and
    /// no shared file.
    case exclusive
}
