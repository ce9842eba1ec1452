import Foundation

// What every engine-level peer implements: the same operations on the same key/value data.

/// A key/value engine under test. One instance lives in one child process and owns one store.
protocol EngineSystem {
    /// Opens (creating when missing) the store at `path`. `durable`: fsync every commit
    /// (Cadmium `.full`, SQLite `synchronous=FULL`); otherwise never (`.off` / `OFF`).
    init(path: String, durable: Bool, cacheBytes: Int) throws

    /// Inserts the entries `order` (indices into `data`) in one transaction and commits it.
    func load(_ order: [Int], data: DataSet) throws
    /// Inserts each entry of `order` in a transaction of its own.
    func commitEach(_ order: [Int], data: DataSet) throws
    /// Inserts each entry of `order` in a transaction of its own, from `writers` threads at once
    /// (thread w takes the entries at positions w, w + writers, …).
    func commitConcurrently(_ order: [Int], writers: Int, data: DataSet) throws
    /// Looks up each key of `indices` inside one read transaction.
    func get(_ indices: [Int]) throws -> UInt64
    /// Reads every key and value in key order.
    func scanAll() throws -> UInt64
    /// Reads `length` consecutive entries from each key of `starts`, in one read transaction.
    func scanRanges(_ starts: [Int], length: Int) throws -> UInt64
    /// Checkpoints the log into the main file and closes; returns the bytes of all its files.
    func checkpointAndClose() throws -> Int
    /// Closes without timing anything more.
    func close() throws
}

/// Runs `body(0)` … `body(threads - 1)` on threads of their own, all at once, and rethrows the
/// first error.
func runThreads(_ threads: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
    let errors = ThreadErrors()
    let group = DispatchGroup()
    for t in 0..<threads {
        group.enter()
        let thread = Thread {
            defer { group.leave() }
            do { try body(t) } catch { errors.record(error) }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
    if let first = errors.first { throw first }
}

/// The entries of `order` that writer `w` of `writers` commits.
func share<T>(of order: [T], writer w: Int, writers: Int) -> [T] {
    stride(from: w, to: order.count, by: writers).map { order[$0] }
}

private final class ThreadErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [Error] = []
    func record(_ error: Error) { lock.lock(); errors.append(error); lock.unlock() }
    var first: Error? { lock.lock(); defer { lock.unlock() }; return errors.first }
}

/// The systems the engine suite compares.
enum SystemID: String, CaseIterable, Codable, Sendable {
    case cadmium
    case sqlite
    case sqliteRowid = "sqlite-rowid"

    var title: String {
        switch self {
        case .cadmium: "Cadmium"
        case .sqlite: "SQLite (WITHOUT ROWID)"
        case .sqliteRowid: "SQLite (rowid)"
        }
    }

    func open(path: String, durable: Bool, cacheBytes: Int = 64 << 20) throws -> any EngineSystem {
        switch self {
        case .cadmium: try CadmiumEngine(path: path, durable: durable, cacheBytes: cacheBytes)
        case .sqlite:
            try SQLiteEngine(path: path, durable: durable, cacheBytes: cacheBytes, schema: .blobKeyWithoutRowid)
        case .sqliteRowid: try SQLiteEngine(path: path, durable: durable, cacheBytes: cacheBytes, schema: .integerKey)
        }
    }
}
