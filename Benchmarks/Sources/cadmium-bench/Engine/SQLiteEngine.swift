import CSQLite

// SQLite's engine peer through its C API: WAL mode, 8 KiB pages, the same page cache budget as ours,
// prepared statements reused for every operation, explicit transactions.
//
// Two schemas: `kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`, byte keys in one B-tree as in
// Cadmium, and `kv(k INTEGER PRIMARY KEY, v BLOB)`, the rowid table a user with integer keys
// would pick (SQLite's fastest path).

final class SQLiteEngine: EngineSystem {
    enum Schema { case blobKeyWithoutRowid, integerKey }

    let db: OpaquePointer
    let path: String
    let schema: Schema?
    let cacheBytes: Int
    private var statements: [String: OpaquePointer] = [:]

    convenience init(path: String, durable: Bool, cacheBytes: Int) throws {
        try self.init(path: path, durable: durable, cacheBytes: cacheBytes, schema: .blobKeyWithoutRowid)
    }

    /// `schema` nil: no key/value table (the object-level peer creates its own).
    init(path: String, durable: Bool, cacheBytes: Int, schema: Schema?) throws {
        self.path = path
        self.schema = schema
        self.cacheBytes = cacheBytes
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle
        else {
            throw BenchError.sqlite("cannot open \(path)")
        }
        db = handle
        try exec("PRAGMA page_size = 8192")
        try exec("PRAGMA journal_mode = WAL")
        try exec("PRAGMA synchronous = \(durable ? "FULL" : "OFF")")
        try exec("PRAGMA cache_size = -\(cacheBytes / 1024)")
        switch schema {
        case .blobKeyWithoutRowid: try exec("CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        case .integerKey: try exec("CREATE TABLE IF NOT EXISTS kv(k INTEGER PRIMARY KEY, v BLOB)")
        case nil: break
        }
    }

    // MARK: - Statements

    func exec(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &err) != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? "?"
            sqlite3_free(err)
            throw BenchError.sqlite("\(sql): \(message)")
        }
    }

    func prepared(_ sql: String) throws -> OpaquePointer {
        if let s = statements[sql] { return s }
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw BenchError.sqlite("prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        statements[sql] = stmt
        return stmt
    }

    @inline(__always)
    func bindKey(_ stmt: OpaquePointer, _ index: Int32, _ i: Int) {
        switch schema {
        case .integerKey:
            sqlite3_bind_int64(stmt, index, Int64(i))
        case .blobKeyWithoutRowid, nil:
            withUnsafeBytes(of: UInt64(i).bigEndian) {
                _ = sqlite3_bind_blob(stmt, index, $0.baseAddress, 8, cadmium_sqlite_transient())
            }
        }
    }

    @inline(__always)
    func step(_ stmt: OpaquePointer, expecting code: Int32) throws {
        let rc = sqlite3_step(stmt)
        guard rc == code else { throw BenchError.sqlite("step: \(rc) \(String(cString: sqlite3_errmsg(db)))") }
    }

    private func insert(_ i: Int, data: DataSet, _ stmt: OpaquePointer) throws {
        bindKey(stmt, 1, i)
        let v = data.value(i)
        v.withUnsafeBytes { _ = sqlite3_bind_blob(stmt, 2, $0.baseAddress, Int32($0.count), cadmium_sqlite_static()) }
        try step(stmt, expecting: SQLITE_DONE)
        sqlite3_reset(stmt)
    }

    // MARK: - Workloads

    func load(_ order: [Int], data: DataSet) throws {
        let ins = try prepared("INSERT INTO kv(k, v) VALUES(?, ?)")
        try exec("BEGIN")
        for i in order { try insert(i, data: data, ins) }
        try exec("COMMIT")
    }

    func commitEach(_ order: [Int], data: DataSet) throws {
        let ins = try prepared("INSERT INTO kv(k, v) VALUES(?, ?)")
        let begin = try prepared("BEGIN IMMEDIATE"), commit = try prepared("COMMIT")
        for i in order {
            try step(begin, expecting: SQLITE_DONE); sqlite3_reset(begin)
            try insert(i, data: data, ins)
            try step(commit, expecting: SQLITE_DONE); sqlite3_reset(commit)
        }
    }

    /// One connection per thread (SQLite's unit of concurrency), each waiting for the write lock
    /// with a busy timeout; every commit still pays its own fsync.
    func commitConcurrently(_ order: [Int], writers: Int, data: DataSet) throws {
        let connections = try (0..<writers).map { _ in
            let c = try SQLiteEngine(path: path, durable: true, cacheBytes: cacheBytes, schema: schema)
            sqlite3_busy_timeout(c.db, 600_000)
            return UncheckedBox(c)
        }
        try runThreads(writers) { w in
            try connections[w].value.commitEach(share(of: order, writer: w, writers: writers), data: data)
        }
        for c in connections { try c.value.close() }
    }

    func get(_ indices: [Int]) throws -> UInt64 {
        let sel = try prepared("SELECT v FROM kv WHERE k = ?")
        try exec("BEGIN")
        var h: UInt64 = 0
        for i in indices {
            bindKey(sel, 1, i)
            guard sqlite3_step(sel) == SQLITE_ROW else { throw BenchError.missingKey(i) }
            let n = Int(sqlite3_column_bytes(sel, 0))
            let p = sqlite3_column_blob(sel, 0)!.assumingMemoryBound(to: UInt8.self)
            mix(&h, count: n, first: p[0])
            sqlite3_reset(sel)
        }
        try exec("COMMIT")
        return h
    }

    /// Folds the current row (k, v) into `h`.
    @inline(__always)
    private func mixRow(_ stmt: OpaquePointer, _ h: inout UInt64) {
        let keyBytes = schema == .integerKey ? 8 : Int(sqlite3_column_bytes(stmt, 0))
        if schema == .integerKey { _ = sqlite3_column_int64(stmt, 0) } else { _ = sqlite3_column_blob(stmt, 0) }
        let n = Int(sqlite3_column_bytes(stmt, 1))
        let p = sqlite3_column_blob(stmt, 1)!.assumingMemoryBound(to: UInt8.self)
        mix(&h, count: n &+ keyBytes, first: p[0])
    }

    func scanAll() throws -> UInt64 {
        let sel = try prepared("SELECT k, v FROM kv ORDER BY k")
        try exec("BEGIN")
        var h: UInt64 = 0
        while sqlite3_step(sel) == SQLITE_ROW { mixRow(sel, &h) }
        sqlite3_reset(sel)
        try exec("COMMIT")
        return h
    }

    func scanRanges(_ starts: [Int], length: Int) throws -> UInt64 {
        let sel = try prepared("SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT ?")
        try exec("BEGIN")
        var h: UInt64 = 0
        for s in starts {
            bindKey(sel, 1, s)
            sqlite3_bind_int64(sel, 2, Int64(length))
            while sqlite3_step(sel) == SQLITE_ROW { mixRow(sel, &h) }
            sqlite3_reset(sel)
        }
        try exec("COMMIT")
        return h
    }

    func checkpointAndClose() throws -> Int {
        try exec("PRAGMA wal_checkpoint(TRUNCATE)")
        let size = fileSize(path) + fileSize(path + "-wal")
        try close()
        return size
    }

    func close() throws {
        for (_, s) in statements { sqlite3_finalize(s) }
        statements = [:]
        sqlite3_close(db)
    }
}

/// Hands a connection to the one thread that uses it.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
