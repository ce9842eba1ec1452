#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The verifier (fsck) of a store, after SQLite's integrity_check (records in order, every page
// used once or free) and bbolt's check (every page reachable or free, keys in order against their
// parents), for our format. It opens the page file and the WAL read-only under a shared lock,
// never runs recovery nor a checkpoint, and checks the store as recovery would see it: the page
// file plus the WAL commits recovery applies (WALRecoveryPlan, the rule `Store.open` follows).
//
// The work is a list of passes over one `VerificationContext`, each one concept in its own file:
//   1. HeaderCheck        both header copies (magic, version, page size, CRC)
//   2. PageMapCheck       map directory and chunks, every extent inside the file, no overlaps
//   3. WALCheck           WAL header, frame chain, commit records, torn tail, commit gaps
//   4. PageImageCheck     every image in the page file and every committed WAL image
//   5. MetaCheck          the meta page against the header and the last commit
//   6. FreeListCheck      trunks, counts, listed pages have no image
//   7. TreeCheck          the catalog and every tree it names, through BTreeChecker
//   8. PageAccountingCheck every page below the page count owned exactly once; statistics
// Later layers add passes (`VerifierOptions.additionalPasses`) that read pages through
// `VerificationContext.source` and report through `VerificationContext.report(_:_:_:)`.
//
// Defence against damage: every length read from disk is checked against the file size and the
// largest page image before anything is allocated or read, page decoding goes through
// PageImage.decode (bounded by one page, Z1), and B-tree pages through BTreeNode's validating
// accessors. Damage is a finding; only I/O failures, a missing or foreign file and a lock held
// by a writer are thrown.

/// How far the verifier has got, for a progress bar.
public struct VerificationProgress: Sendable, Equatable {
    /// The pass running.
    public var phase: String
    /// Units done in this pass.
    public var done: Int
    /// Units in this pass.
    public var total: Int
}

/// One pass of the verifier over a `VerificationContext`.
///
/// ```swift
/// struct RecordCheck: VerificationPass {
///     let name = "records"
///     func run(_ context: VerificationContext) throws {
///         for (name, tree) in context.trees {
///             … context.report(.problem, VerificationLocation(area: .tree, tree: name), "…")
///         }
///     }
/// }
/// ```
public protocol VerificationPass: Sendable {
    /// A short name, shown in progress output.
    var name: String { get }
    /// Checks one aspect of the store; throws only for operational errors (I/O).
    func run(_ context: VerificationContext) throws
}

/// Options of a verification run.
public struct VerifierOptions: Sendable {
    /// The file layer (a real file system by default).
    public var fileSystem: any StoreFileSystem
    /// The most findings listed in the report; later ones are only counted.
    public var maxProblems = 100
    /// Called now and then with the progress of the current pass.
    public var progress: (@Sendable (VerificationProgress) -> Void)?
    /// Passes run after the engine's own (for example the object layer's).
    public var additionalPasses: [any VerificationPass] = []
    /// Bytes of decoded pages kept between the image pass and the tree walk.
    public var decodedPageCacheBytes = 64 << 20

    public init(fileSystem: any StoreFileSystem = POSIXFileSystem()) {
        self.fileSystem = fileSystem
    }
}

/// Checks a store file and its WAL without writing to either.
///
/// ```swift
/// let report = try StoreVerifier.verify(path: "/data/app.cdstore")
/// print(report.summary.pageCount, report.problemCount)
/// ```
public enum StoreVerifier {
    /// The engine's passes, in order.
    public static let enginePasses: [any VerificationPass] = [
        HeaderCheck(), PageMapCheck(), WALCheck(), PageImageCheck(), MetaCheck(), FreeListCheck(),
        TreeCheck(), PageAccountingCheck(),
    ]

    /// Verifies the store at `path`.
    ///
    /// - Throws: `StoreError.io` when a file cannot be opened or read (ENOENT for a missing
    ///   store), `.notAStore` for a file without a store header, `.unsupportedFormatVersion`,
    ///   and `.locked` when a writer holds the store.
    public static func verify(path: String, options: VerifierOptions = VerifierOptions()) throws -> VerificationReport {
        var options = options
        let fs = options.fileSystem
        guard fs.fileExists(path) else { throw StoreError.io(operation: "open", path: path, errno: ENOENT) }
        let file = try fs.open(path, mode: .readOnly)
        defer { try? file.close() }
        try file.lock(.shared, waitingUpTo: 0.25)
        // A store other processes have open: read it on a snapshot that no checkpoint changes
        // while the writers go on (VerifierSnapshot VS1, VS2).
        let snapshot = try VerifierSnapshot.take(path: path, fileSystem: fs)
        defer { snapshot.release() }
        let walPath = path + "-wal"
        if let limit = snapshot.walLimit {
            options.fileSystem = BoundedLogFileSystem(base: fs, walPath: walPath, limit: limit)
        }
        let wal = fs.fileExists(walPath) ? try options.fileSystem.open(walPath, mode: .readOnly) : nil
        defer { try? wal?.close() }
        let context = try VerificationContext(path: path, file: file, wal: wal, options: options)
        for pass in enginePasses + options.additionalPasses {
            if context.halted { break }
            try pass.run(context)
            if let error = context.operationalError { throw error }
        }
        return context.finish()
    }
}
