// Writes one transaction of the persistent history into the engine write transaction that
// carries its data (HS1, HS2 of HistoryLayout.swift). `ObjectStore.apply` records one part per
// commit; an `ObjectStoreWriter` one part per batch, under the number its first part took,
// and the header at its commit.
//
// Confinement: one recorder per engine write transaction, used by its thread.

import CdStore
import Foundation

/// The history of one commit being written (HS1, HS2).
struct HistoryRecorder {
    /// The transaction's number, taken by its first part (HS1); nil before it.
    private(set) var number: UInt64?
    /// Change parts written so far.
    private(set) var parts: UInt32 = 0

    init() {}

    /// Writes `part` as the next change part, unless it is empty. The first part takes the
    /// number after the newest transaction: read under the engine's writer, so no other commit
    /// takes it (keeps HS1).
    mutating func add(_ part: HistoryPartBuilder, tx: WriteTransaction) throws {
        guard !part.isEmpty else { return }
        let tree = try tx.openOrCreateTree(HistoryLayout.tree)
        let n = try number ?? ((try HistoryLayout.lastNumber(tree) ?? 0) + 1)
        number = n
        parts += 1
        try tree.put(HistoryLayout.key(n, part: parts), part.encoded())
    }

    /// Writes the header once every part is written (keeps HS2); nothing when no part was.
    func finish(author: String?, contextName: String?, tx: WriteTransaction) throws {
        guard let number else { return }
        let header = HistoryHeader(timestamp: Date(), author: author, contextName: contextName, partCount: Int(parts))
        try tx.openOrCreateTree(HistoryLayout.tree).put(
            HistoryLayout.key(number, part: 0), HistoryCodec.encodeHeader(header))
    }

    /// The store's history ID, starting history when `tracked` asks for it and the store has none
    /// (a new ID and `cd.meta`'s format raised to the layout that may hold history, HS5); nil
    /// when the store keeps no history. A store that has an ID keeps it (HS6). A read-only
    /// store never starts history.
    static func historyID(of engine: Store, tracked: Bool) throws -> UUID? {
        let stored = try engine.read { tx -> UUID? in
            guard let meta = try tx.tree(StoreLayout.metaTree), let bytes = try meta.get(HistoryLayout.idKey) else {
                return nil
            }
            guard let id = HistoryLayout.decodeID(bytes) else {
                throw CdError.store(
                    .corruption(
                        path: engine.path, location: .page(meta.root),
                        detail: "tree \(meta.name): the history.id entry is \(bytes.count) bytes, not 16"))
            }
            return id
        }
        if let stored { return stored }
        guard tracked, !engine.isReadOnly else { return nil }
        // Another process may start it between the read above and this write: the write keeps
        // the ID it finds (read again under the writer), so both record into one history.
        return try startAnew(engine, keepingAnyID: true)
    }

    /// Gives the store a new history ID and an empty history (HS5): its first recorded commit
    /// will be number 1, and tokens of its former history are expired. With `keepingAnyID`, a
    /// store that has an ID when the write begins keeps it and its history.
    static func startAnew(_ engine: Store, keepingAnyID: Bool = false) throws -> UUID {
        var id = UUID()
        try engine.write { tx in
            let meta = try tx.openOrCreateTree(StoreLayout.metaTree)
            if keepingAnyID, let bytes = try meta.get(HistoryLayout.idKey), let existing = HistoryLayout.decodeID(bytes)
            {
                id = existing
                return
            }
            try meta.put(StoreLayout.metaFormatKey, StoreLayout.formatEntry)
            try meta.put(HistoryLayout.idKey, HistoryLayout.encodeID(id))
            if let tree = try tx.tree(HistoryLayout.tree) {
                var keys: [[UInt8]] = []
                try tree.scan { k, _ in
                    keys.append(k); return true
                }
                for k in keys { try tree.delete(k) }
            }
        }
        return id
    }
}
