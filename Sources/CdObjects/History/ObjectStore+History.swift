// The object store's persistent history API: reading transactions after a token, filtered by
// author and entity, and deleting old ones (HS1–HS6 in HistoryLayout.swift; the Cd layer's
// `Cd.history(after:)` and `Cd.deleteHistory(before:)` call these).

import CdStore
import Foundation

extension ObjectStore {
    /// Whether the store records persistent history (``CdStore/StoreOptions/history``, or a
    /// store that has recorded it before).
    public var isHistoryTracked: Bool { historyID != nil }

    /// Takes the history ID another process stored since this store opened without one, so that
    /// this store's commits are recorded from now on too (HS6 across processes). Reads `cd.meta`
    /// in the write transaction about to commit, under the engine's writer: no commit can start
    /// the history between this read and that commit.
    func adoptStartedHistory(in tx: Transaction) throws {
        guard let meta = try tx.tree(StoreLayout.metaTree), let bytes = try meta.get(HistoryLayout.idKey) else {
            return
        }
        guard let id = HistoryLayout.decodeID(bytes) else {
            throw StoreError.corruption(
                path: engine.path, location: .page(meta.root),
                detail: "tree \(meta.name): the history.id entry is \(bytes.count) bytes, not 16")
        }
        historyIDState.withLock { $0 = $0 ?? id }
    }

    /// Records the history of one apply in its engine transaction (HS1, HS2).
    func recordHistory(of applier: ChangeApplier, _ applied: AppliedChanges, in tx: WriteTransaction) throws {
        var recorder = HistoryRecorder()
        try recorder.add(applier.historyPart(applied), tx: tx)
        try recorder.finish(author: applier.author, contextName: applier.contextName, tx: tx)
        ownHistory.record(recorder.number)  // OH1: before the commit is written
    }

    /// The recorded transactions after `token` (all kept ones for nil), oldest first; with
    /// `author`, only those of that author; with `entity`, only the changes of objects of that
    /// entity or its sub-entities (and only transactions with such changes). A token whose
    /// following transactions are no longer kept, or of another store (or of this store before a
    /// migration started its history anew), throws `CdError.persistentHistoryTokenExpired`
    /// (134301). A store without history has none (and every token is expired).
    ///
    /// ```swift
    /// let new = try store.history(after: lastSeen, entity: "Employee")
    /// lastSeen = new.last?.token ?? lastSeen
    /// ```
    public func history(
        after token: CdHistoryToken?, author: String? = nil, entity: String? = nil
    ) throws -> [CdHistoryTransaction] {
        let entities = try entity.map { try entityFamily($0) }
        return try readHistory { reader, first in
            guard let reader else {
                if let token { throw Self.expired(token, "the store keeps no history") }
                return []
            }
            guard let start = try startNumber(after: token, first: first, storeID: reader.storeID) else { return [] }
            var result: [CdHistoryTransaction] = []
            try reader.transactions(from: start) { t in
                if let author, t.author != author { return true }
                guard let entities else {
                    result.append(t)
                    return true
                }
                let changes = t.changes.filter { entities.contains($0.objectID.entity) }
                if !changes.isEmpty {
                    result.append(
                        CdHistoryTransaction(
                            token: t.token, timestamp: t.timestamp, author: t.author, contextName: t.contextName,
                            changes: changes))
                }
                return true
            }
            return result
        }
    }

    /// `history(after:)` in the engine transaction `tx` (a snapshot's), unfiltered.
    func history(after token: CdHistoryToken?, in tx: Transaction) throws -> [CdHistoryTransaction] {
        guard let historyID else {
            if let token { throw Self.expired(token, "the store keeps no history") }
            return []
        }
        do {
            guard let tree = try tx.tree(HistoryLayout.tree) else { return [] }
            let reader = HistoryReader(tree: tree, layout: layout, storeID: historyID)
            do {
                let first = try HistoryLayout.firstNumber(tree)
                guard let start = try startNumber(after: token, first: first, storeID: historyID) else { return [] }
                var result: [CdHistoryTransaction] = []
                try reader.transactions(from: start) { t in
                    result.append(t)
                    return true
                }
                return result
            } catch let e as RecordDecodingError {
                throw StoredObjects(tx: tx, layout: layout).corruption(tree, e.message)
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// The token of the newest recorded transaction, or nil when none is recorded.
    ///
    /// ```swift
    /// let mark = try store.lastHistoryToken()
    /// ```
    public func lastHistoryToken() throws -> CdHistoryToken? {
        try readHistory { reader, _ in
            guard let tree = reader?.tree, let storeID = reader?.storeID, let last = try HistoryLayout.lastNumber(tree)
            else { return nil }
            return CdHistoryToken(storeID: storeID, number: last)
        }
    }

    /// Deletes the transactions before `token` (numbered below it); the token's own transaction
    /// and the newest one are kept (HS4). A later `history(after:)` with a token older than the
    /// oldest kept one's predecessor throws 134301. A token of another store throws 134301.
    ///
    /// ```swift
    /// try store.deleteHistory(before: consumedUpTo)
    /// ```
    public func deleteHistory(before token: CdHistoryToken) throws {
        guard let historyID else { throw Self.expired(token, "the store keeps no history") }
        guard token.storeID == historyID else { throw Self.expired(token, "it is a token of another history") }
        do {
            try engine.write { tx in
                guard let tree = try tx.tree(HistoryLayout.tree), let last = try HistoryLayout.lastNumber(tree)
                else { return }
                let end = HistoryLayout.key(min(token.number, last), part: 0)  // keeps HS4
                var keys: [[UInt8]] = []
                try tree.scan(upTo: end) { k, _ in
                    keys.append(k); return true
                }
                for k in keys { try tree.delete(k) }
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// Starts recording history on a store opened without it (a second user of the store asks for
    /// it, OO4 of OpenObjectStores.swift): as an open with `history: .tracked` would, keeping an ID
    /// another process stored meanwhile (HS6). Commits written before it are not recorded.
    package func startTrackingHistory() throws {
        guard historyID == nil else { return }
        let id: UUID?
        do { id = try HistoryRecorder.historyID(of: engine, tracked: true) } catch let e as StoreError {
            throw CdError.store(e)
        }
        historyIDState.withLock { $0 = $0 ?? id }
    }

    /// Starts the store's history anew (HS5): a new history ID and no transactions. A migration
    /// calls it on the store it wrote.
    package func startHistoryAnew() throws -> UUID {
        do { return try HistoryRecorder.startAnew(engine) } catch let e as StoreError { throw CdError.store(e) }
    }

    /// Copies `old`'s history ID and transactions into this store (a rewrite to the same model,
    /// MG11), a bounded run of entries per engine commit; the copy keeps HS1–HS6 as the original
    /// did, since it is the same entries under the same keys.
    package func copyHistory(from old: ObjectStore) throws {
        guard let id = old.historyID else { return }
        do {
            try engine.write { tx in
                let meta = try tx.openOrCreateTree(StoreLayout.metaTree)
                try meta.put(StoreLayout.metaFormatKey, StoreLayout.formatEntry)
                try meta.put(HistoryLayout.idKey, HistoryLayout.encodeID(id))
            }
            var from: [UInt8]? = nil
            while true {
                var batch: [([UInt8], [UInt8])] = []
                try old.engine.read { tx in
                    guard let tree = try tx.tree(HistoryLayout.tree) else { return }
                    try tree.scan(from: from) { k, v in
                        if let from, k == from { return true }
                        batch.append((k, v))
                        return batch.count < 4096
                    }
                }
                guard let last = batch.last else { return }
                try engine.write { tx in
                    let tree = try tx.openOrCreateTree(HistoryLayout.tree)
                    for (k, v) in batch { try tree.put(k, v) }
                }
                from = last.0
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    // MARK: - Reading

    /// Runs `body` on a snapshot with a reader of the history tree (nil when the store keeps no
    /// history) and the oldest kept number; damaged history is reported as corruption.
    private func readHistory<R>(_ body: (HistoryReader?, UInt64?) throws -> R) throws -> R {
        do {
            return try engine.read { tx in
                guard let historyID else { return try body(nil, nil) }
                guard let tree = try tx.tree(HistoryLayout.tree) else {
                    // No transaction yet: an empty tree stands in (nothing to read).
                    return try body(HistoryReader(tree: nil, layout: layout, storeID: historyID), nil)
                }
                let reader = HistoryReader(tree: tree, layout: layout, storeID: historyID)
                do {
                    return try body(reader, try HistoryLayout.firstNumber(tree))
                } catch let e as RecordDecodingError {
                    throw StoredObjects(tx: tx, layout: layout).corruption(tree, e.message)
                }
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// The first number `history(after:)` reads (nil: none can follow the token), or an
    /// expired-token error (HS4, HS5).
    private func startNumber(after token: CdHistoryToken?, first: UInt64?, storeID: UUID) throws -> UInt64? {
        guard let token else { return first ?? 1 }
        guard token.storeID == storeID else {
            throw Self.expired(token, "it is a token of another history (this store's is \(storeID.uuidString))")
        }
        if let first, first > 1, token.number < first - 1 {
            throw Self.expired(token, "transactions \(token.number + 1)..<\(first) were deleted")
        }
        return token.number < UInt64.max ? token.number + 1 : nil
    }

    static func expired(_ token: CdHistoryToken, _ reason: String) -> CdError {
        .persistentHistoryTokenExpired(token: token, reason: reason)
    }

    /// `entity` and its sub-entities, or a 1550 error for an unknown name.
    private func entityFamily(_ entity: String) throws -> Set<String> {
        _ = try layout.entity(entity)
        var family: Set<String> = [entity]
        var grew = true
        while grew {
            grew = false
            for e in model.entities where !family.contains(e.name) {
                if let parent = e.parent, family.contains(parent) {
                    family.insert(e.name)
                    grew = true
                }
            }
        }
        return family
    }
}
