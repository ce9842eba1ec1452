// Entry points: transactions, close, statistics.

extension Store {
    /// Begins a read transaction on the last commit. End it with `end()`.
    public func beginRead() throws -> ReadTransaction { try ReadTransaction(store: self) }

    /// Begins the write transaction, waiting while another one is open.
    public func beginWrite() throws -> WriteTransaction { try WriteTransaction(store: self, gateHeld: false) }

    /// Runs `body` in a read transaction and ends it.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        let tx = try beginRead()
        defer { tx.end() }
        return try body(tx)
    }

    /// Runs `body` in a write transaction: commits when it returns, aborts when it throws.
    public func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        let tx = try beginWrite()
        do {
            let result = try body(tx)
            if !tx.finished { try tx.commit() }
            return result
        } catch {
            tx.abort()
            throw error
        }
    }

    /// Checkpoints (when writable and healthy), then closes the files. Transactions still open
    /// fail from now on with `StoreError.closed`. Closing twice is harmless.
    public func close() throws {
        let alreadyClosed = stateLock.withLock { closed }
        if alreadyClosed { return }
        var firstError: Error?
        if !isReadOnly {
            let locked = (try? acquireWriter()) != nil
            if !locked { writerGate.acquire() }
            if locked, stateLock.withLock({ poison == nil }) {
                do { _ = try checkpointLocked(resetLog: true, forceReset: false, keepLogFile: false) } catch {
                    firstError = error
                }
            }
        }
        fileLock.withWriteLock { stateLock.withLock { closed = true } }
        if !isReadOnly { releaseWriter() }
        coordination.detach()
        do { try wal?.close() } catch { firstError = firstError ?? error }
        do { try file.close() } catch { firstError = firstError ?? error }
        if let firstError { throw firstError }
    }

    /// Logical pages 1..<n exist at `commit` (the last commit, or one a reader holds): the page
    /// count of its WAL commit record, else the page file header's.
    func pageCount(at commit: CommitSequence) -> UInt32 {
        fileLock.withReadLock { stateLock.withLock { walIndex.pageCount(atOrBefore: commit) ?? header.pageCount } }
    }

    /// Counters describing the store now.
    public var statistics: StoreStatistics {
        let cacheStats = cache.statistics
        return fileLock.withReadLock {
            stateLock.withLock {
                StoreStatistics(
                    pageSize: pageSize, lastCommit: committed, pageFileCommit: header.commitSequence,
                    pageCount: Int(walIndex.pageCount(atOrBefore: committed) ?? header.pageCount),
                    walBytes: walEnd, walFrames: walIndex.frameCount, checkpoints: checkpointCount,
                    dataEnd: freeSpace.dataEnd, freeBytes: freeSpace.freeBytes,
                    cacheHits: cacheStats.hits, cacheMisses: cacheStats.misses, cachedPages: cacheStats.pages,
                    cacheCapacityPages: cache.capacity, activeReaders: readers.values.reduce(0, +))
            }
        }
    }
}

/// A snapshot of a store's counters (``Store/statistics``).
public struct StoreStatistics: Sendable, Equatable {
    public var pageSize: Int
    public var lastCommit: CommitSequence
    /// The commit the page file holds (the rest is in the WAL).
    public var pageFileCommit: CommitSequence
    /// Logical pages 1..<pageCount exist.
    public var pageCount: Int
    public var walBytes: UInt64
    public var walFrames: Int
    public var checkpoints: Int
    /// The end of the used data area of the page file.
    public var dataEnd: UInt64
    /// Free bytes inside the data area.
    public var freeBytes: UInt64
    public var cacheHits: Int
    public var cacheMisses: Int
    public var cachedPages: Int
    public var cacheCapacityPages: Int
    public var activeReaders: Int
}
