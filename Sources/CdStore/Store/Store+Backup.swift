// Backup: a consistent copy of a store's last commit into a new store file, made while other
// handles and processes keep writing (SQLite's `VACUUM INTO` and backup API, LMDB's `mdb_copy`).
//
// The copy is logical: every tree of one read transaction, key by key in key order, into a new
// store written at `<destination>.backup`, which is renamed to `<destination>` once it is whole.
//
// Invariants:
//  BK1. The copy is the source's snapshot at the read transaction's start: every tree and entry of
//       that commit and nothing of a later one (a read transaction never sees a later commit, and
//       a checkpoint never overwrites a page such a reader may read: P2, P3).
//  BK2. At no moment is there a partial store at `<destination>`: the copy is written beside it,
//       closed (checkpointed, its log removed), fsynced, and renamed into place in one `rename`,
//       then the directory is synced. A failure or a crash before the rename leaves no
//       `<destination>`; what it leaves at `<destination>.backup` is removed by the next backup.
//  BK3. An existing `<destination>` (or its log) is never replaced: the backup throws
//       `StoreError.backupDestinationExists` before it writes anything.
//  BK4. Memory is bounded by `BackupOptions.commitBytes` (the copy commits in pieces; the pieces
//       are invisible, since nothing opens `<destination>.backup` but the backup) plus the page
//       caches of the two stores.

/// How ``Store/backup(to:options:)`` writes the copy.
public struct BackupOptions: Sendable {
    /// The bytes of keys and values copied between two commits of the new store (BK4).
    public var commitBytes: Int = 16 << 20
    /// Called after each commit of the copy and after each tree, with the progress so far.
    public var progress: (@Sendable (BackupProgress) -> Void)?

    /// The default options: commits of 16 MiB, no progress callback.
    public init() {}
}

/// How far a backup has come, and in the end what it copied.
public struct BackupProgress: Sendable, Equatable {
    /// The trees copied so far, and in all.
    public var treesCopied: Int
    /// The number of trees in the snapshot.
    public var trees: Int
    /// Entries (key-value pairs) copied so far.
    public var entries: Int
    /// Bytes of keys and values copied so far.
    public var bytes: Int
}

/// What ``Store/backup(to:options:)`` made.
public struct BackupResult: Sendable, Equatable {
    /// The commit the copy holds: the source's last commit when the backup began.
    public var commit: CommitSequence
    /// What was copied.
    public var copied: BackupProgress
}

extension Store {
    /// Copies this store's last commit into a new store at `destination` (BK1–BK4), while other
    /// transactions, handles and processes go on writing to this one.
    ///
    /// ```swift
    /// let store = try Store.open(path: "app.cdstore")
    /// let result = try store.backup(to: "app-2026-11-27.cdstore")
    /// print("commit \(result.commit): \(result.copied.entries) entries")
    /// ```
    @discardableResult
    public func backup(to destination: String, options backup: BackupOptions = BackupOptions()) throws -> BackupResult {
        let fs = options.fileSystem
        if fs.fileExists(destination) || fs.fileExists(destination + "-wal") {
            throw StoreError.backupDestinationExists(path: destination)
        }
        let partial = destination + ".backup"
        for leftover in [partial, partial + "-wal"] where fs.fileExists(leftover) { try fs.remove(leftover) }

        let source = try beginRead()
        defer { source.end() }
        var copyOptions = StoreOptions(fileSystem: fs)
        copyOptions.pageSize = pageSize
        copyOptions.compressionLevel = options.compressionLevel
        copyOptions.cacheBytes = min(options.cacheBytes, 16 << 20)
        copyOptions.durability = options.durability == .off ? .off : .full
        copyOptions.checkpointThresholdBytes = UInt64(max(backup.commitBytes, 1 << 20)) * 2
        // The copy is this backup's alone until it is renamed into place: no shared file beside it.
        copyOptions.sharing = .exclusive
        do {
            let copy = try Store.open(path: partial, options: copyOptions)
            var progress: BackupProgress
            do {
                progress = try Self.copyTrees(of: source, into: copy, backup)
                try copy.close()
            } catch {
                try? copy.close()
                throw error
            }
            if copyOptions.durability != .off {
                let file = try fs.open(partial, mode: .readWrite)
                defer { try? file.close() }
                try file.sync()
            }
            if fs.fileExists(partial + "-wal") { try fs.remove(partial + "-wal") }
            try fs.rename(partial, to: destination)
            if copyOptions.durability != .off { try fs.syncDirectory(containing: destination) }
            progress.treesCopied = progress.trees
            return BackupResult(commit: source.snapshot, copied: progress)
        } catch {
            for leftover in [partial, partial + "-wal"] where fs.fileExists(leftover) { try? fs.remove(leftover) }
            throw error
        }
    }

    /// Every tree of `source`, entry by entry in key order, into `copy`, committing every
    /// `commitBytes` (BK4).
    private static func copyTrees(
        of source: ReadTransaction, into copy: Store, _ backup: BackupOptions
    ) throws
        -> BackupProgress
    {
        let names = try source.treeNames()
        var progress = BackupProgress(treesCopied: 0, trees: names.count, entries: 0, bytes: 0)
        var tx = try copy.beginWrite()
        do {
            var pending = 0
            for name in names {
                guard let tree = try source.tree(name) else { continue }
                var target = try tx.createTree(name)
                try tree.scan { key, value in
                    try target.put(key, value)
                    progress.entries += 1
                    progress.bytes += key.count + value.count
                    pending += key.count + value.count
                    if pending >= backup.commitBytes {
                        try tx.commit()
                        tx = try copy.beginWrite()
                        target = try tx.tree(name)!
                        pending = 0
                        backup.progress?(progress)
                    }
                    return true
                }
                progress.treesCopied += 1
                backup.progress?(progress)
            }
            try tx.commit()
        } catch {
            if !tx.finished { tx.abort() }
            throw error
        }
        return progress
    }
}
