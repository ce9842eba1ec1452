// Reads transactions of the persistent history from a `cd.history` tree: each transaction's
// header and parts (HS2), decoded against the store's layout (HS3), its parts resolved into one
// change per object, as one apply of all its batches would have recorded it:
//
//   insert, then update   → insert, the properties of both
//   insert, then delete   → nothing (the object never existed outside the transaction)
//   update, then update   → update, the properties of both
//   update, then delete   → delete, with the delete's tombstone

import CdStore
import Foundation

/// A reader of one history tree, on one engine transaction.
struct HistoryReader {
    /// The history tree; nil before the first recorded commit created it.
    let tree: Tree?
    let layout: StoreLayout
    let storeID: UUID

    /// The transactions numbered `first` and up, oldest first, while `body` returns true.
    /// Throws a `RecordDecodingError` naming the transaction for damaged bytes or a missing part.
    func transactions(from first: UInt64, _ body: (CdHistoryTransaction) throws -> Bool) throws {
        guard let tree else { return }
        var number: UInt64?
        var header: HistoryHeader?
        var parts: [[HistoryPartChange]] = []
        func flush() throws -> Bool {
            guard let n = number else { return true }
            guard let h = header else { throw RecordDecodingError("transaction \(n) has no header (part 0)") }
            guard parts.count == h.partCount else {
                throw RecordDecodingError("transaction \(n) has \(parts.count) of its \(h.partCount) parts")
            }
            return try body(
                CdHistoryTransaction(
                    token: CdHistoryToken(storeID: storeID, number: n), timestamp: h.timestamp, author: h.author,
                    contextName: h.contextName, changes: Self.resolve(parts)))
        }
        var more = true
        try tree.scan(from: HistoryLayout.key(first, part: 0)) { key, value in
            guard let (n, part) = HistoryLayout.decodeKey(key) else {
                throw RecordDecodingError("a key of \(key.count) bytes, not \(HistoryLayout.keySize)")
            }
            if n != number {
                more = try flush()
                guard more else { return false }
                number = n
                header = nil
                parts = []
            }
            if part == 0 {
                header = try HistoryCodec.decodeHeader(value)
            } else {
                guard header != nil, part == UInt32(parts.count + 1) else {
                    throw RecordDecodingError("transaction \(n) part \(part) is out of order")
                }
                parts.append(try decodePart(value))
            }
            return true
        }
        if more { _ = try flush() }
    }

    /// One change part, checked against the layout (HS3).
    func decodePart(_ bytes: [UInt8]) throws -> [HistoryPartChange] {
        try HistoryCodec.decodePart(
            bytes,
            isProperty: { entity, p in
                guard let e = layout.entities[entity] else { return false }
                return e.attributeSlots[p] != nil || e.relationships[p] != nil
            },
            entityExists: { layout.entities[$0] != nil })
    }

    /// One change per object from a transaction's parts, in first-recorded order.
    static func resolve(_ parts: [[HistoryPartChange]]) -> [CdHistoryChange] {
        func change(_ c: HistoryPartChange) -> CdHistoryChange {
            CdHistoryChange(
                objectID: c.objectID, kind: c.kind, updatedProperties: Set(c.properties), tombstone: c.tombstone)
        }
        if parts.count == 1 { return parts[0].map(change) }
        var order: [ObjectID] = []
        var byID: [ObjectID: HistoryPartChange] = [:]
        for part in parts {
            for c in part {
                guard var earlier = byID[c.objectID] else {
                    order.append(c.objectID)
                    byID[c.objectID] = c
                    continue
                }
                switch (earlier.kind, c.kind) {
                case (.insert, .delete):
                    byID[c.objectID] = nil
                case (.insert, _), (.update, .update):
                    earlier.properties += c.properties
                    byID[c.objectID] = earlier
                default:
                    byID[c.objectID] = c
                }
            }
        }
        return order.compactMap { id in byID[id].map(change) }
    }
}
