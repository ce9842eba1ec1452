// What the verifier found: a summary of the store (what it holds and how it is stored) and the
// list of findings. A value, Codable, so that `cdstore-verify --json` prints it as it is and tests
// and later layers read it in-process.

/// The result of ``StoreVerifier/verify(path:options:)``.
///
/// ```swift
/// let report = try StoreVerifier.verify(path: "/tmp/app.cdstore")
/// if report.problemCount > 0 { for p in report.problems { print(p) } }
/// ```
public struct VerificationReport: Codable, Sendable {
    /// What the store holds.
    public var summary = VerificationSummary()
    /// Findings in the order found, at most `VerifierOptions.maxProblems` of them.
    public var problems: [VerificationProblem] = []
    /// Findings of severity `.problem`, including those not listed because of the cap.
    public var problemCount = 0
    /// Findings of severity `.note`, including those not listed because of the cap.
    public var noteCount = 0
    /// Findings found but not listed because of the cap.
    public var omittedCount = 0

    public init() {}

    /// Whether the store has no problems (notes allowed).
    public var isClean: Bool { problemCount == 0 }
}

/// What the store holds, as the verifier saw it (page file plus the WAL commits recovery would
/// apply).
public struct VerificationSummary: Codable, Sendable {
    /// The store's page file.
    public var path = ""
    /// Size of the page file in bytes.
    public var fileBytes: UInt64 = 0
    /// Format version of the header copy in use.
    public var formatVersion: UInt32?
    /// Logical page size in bytes.
    public var pageSize: Int?
    /// Which header copy is in use (0 at offset 0, 1 at offset 4096).
    public var headerCopy: Int?
    /// Checkpoint sequence of the header copy in use.
    public var checkpointSequence: UInt64?
    /// The last commit the page file holds.
    public var pageFileCommit: UInt64?
    /// The last commit of the store: the page file's, or the newest WAL commit recovery applies.
    public var lastCommit: UInt64?
    /// Logical pages 1..<pageCount exist.
    public var pageCount: UInt32 = 0
    /// Logical pages by type ("meta", "branch", "leaf", "overflow", "free-list"), plus "free" for
    /// pages listed free and "unreadable" for pages whose image could not be read.
    public var pagesByType: [String: Int] = [:]
    /// Each tree: the catalog first, then every tree it names.
    public var trees: [TreeSummary] = []
    /// Bytes of the logical pages that have an image (page count × page size).
    public var logicalBytes: UInt64 = 0
    /// Bytes of those pages' images as stored (headers included).
    public var storedBytes: UInt64 = 0
    /// `logicalBytes / storedBytes` (0 when nothing is stored).
    public var compressionRatio: Double = 0
    /// Pages listed in the free list.
    public var freePages = 0
    /// Free-list trunk pages.
    public var freeListTrunks = 0
    /// Bytes of the page file's data area not used by any image, map chunk or directory.
    public var freeBytes: UInt64 = 0
    /// Bytes of the page file past the data end (kept for reuse, trimmed when large).
    public var fileTailBytes: UInt64 = 0
    /// The WAL, when the store has one.
    public var wal: WALSummary?

    public init() {}
}

/// One tree's statistics.
public struct TreeSummary: Codable, Sendable, Hashable {
    /// The tree's name; `"(catalog)"` for the catalog.
    public var name: String
    /// Its root page.
    public var root: UInt32
    /// Entries in its leaves.
    public var entries: Int
    /// Levels from the root to the leaves.
    public var depth: Int
    /// Pages it uses (branches, leaves and overflow pages).
    public var pages: Int
}

/// The WAL's statistics.
public struct WALSummary: Codable, Sendable, Hashable {
    /// Size of the WAL in bytes.
    public var bytes: UInt64 = 0
    /// The page file checkpoint sequence the log was started at.
    public var generation: UInt64?
    /// Frames in complete commits (page, tombstone and commit-record frames).
    public var frames = 0
    /// Complete commits in the log.
    public var commits = 0
    /// Of those, the commits newer than the page file that recovery would apply.
    public var commitsToApply = 0
    /// Frames after the last complete commit.
    public var tailFrames = 0
    /// Bytes after the last complete commit.
    public var tailBytes: UInt64 = 0
}
