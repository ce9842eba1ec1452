// The persistent history's place in a store (docs/FORMAT.md §History): one tree, `cd.history`,
// and one `cd.meta` entry, `history.id`.
//
//   cd.history   key: transaction number (u64 BE) ‖ part (u32 BE)
//                part 0: the transaction's header (HistoryCodec.encodeHeader)
//                parts 1…n: its changes, one part per batch the commit applied
//                (HistoryCodec.encodePart)
//   cd.meta      history.id → 16 bytes, the store's history ID (a UUID)
//
// Invariants (the object store keeps them; ObjectStoreVerifier checks HS1–HS3 as OV8):
//  HS1. The kept transactions are numbered first, first + 1, …, last, with no gap: each commit
//       that records history takes last + 1 (1 in an empty tree), under the engine's writer, in
//       the same engine commit as its data, so a number is never taken twice or skipped.
//  HS2. Transaction n's entries are its header (part 0) and parts 1…k with k the header's part
//       count: a transaction is written whole, in one engine commit, or not at all.
//  HS3. Every change names an entity of the stored model and properties of that entity (history
//       never outlives the model it was written with: a migration starts it anew, HS5).
//  HS4. Deleting history never deletes the newest transaction: the tree is empty only before the
//       first recorded commit, so the next number is always the last key's + 1 (HS1) and the
//       oldest kept is the first key's, with no other entry to keep in step.
//  HS5. The history ID changes exactly when history starts anew (its first start, or after a
//       migration); a token of another ID is expired (134301).
//  HS6. A store whose `cd.meta` holds `history.id` records history at every commit, whatever the
//       open's `StoreOptions.history` says, so no commit escapes a reader of its history. A
//       store another process opened before the history started reads the ID again in its next
//       commit after another store's (`adoptStartedHistory`), under the writer, and records too.

import CdStore
import Foundation

/// Names and key encoding of the persistent history (HS1–HS6).
enum HistoryLayout {
    /// The history tree.
    static let tree = "cd.history"
    /// The `cd.meta` key of the store's history ID.
    static let idKey: [UInt8] = Array("history.id".utf8)
    /// The object store layout version whose stores may hold history (docs/FORMAT.md).
    static let formatVersion: UInt8 = 2
    /// A key is the transaction number (u64 BE) and the part (u32 BE).
    static let keySize = 12

    /// The key of part `part` of transaction `number`.
    static func key(_ number: UInt64, part: UInt32) -> [UInt8] {
        var k: [UInt8] = []
        k.reserveCapacity(keySize)
        k.appendBE(number)
        k.appendBE(part)
        return k
    }

    /// The (number, part) of a key, or nil when the key is not 12 bytes.
    static func decodeKey(_ key: [UInt8]) -> (number: UInt64, part: UInt32)? {
        guard key.count == keySize else { return nil }
        return (key.readBE(UInt64.self, at: 0), key.readBE(UInt32.self, at: 8))
    }

    /// The 16 bytes of a history ID.
    static func encodeID(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }

    /// A history ID from its 16 bytes, or nil when there are not 16.
    static func decodeID(_ bytes: [UInt8]) -> UUID? {
        guard bytes.count == 16 else { return nil }
        let b = bytes
        return UUID(
            uuid: (
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
            ))
    }

    /// The number of the newest transaction in `tree`, or nil when it is empty (HS4).
    static func lastNumber(_ tree: Tree) throws -> UInt64? {
        let c = tree.cursor()
        guard try c.last() else { return nil }
        return decodeKey(c.key)?.number
    }

    /// The number of the oldest kept transaction in `tree`, or nil when it is empty.
    static func firstNumber(_ tree: Tree) throws -> UInt64? {
        let c = tree.cursor()
        guard try c.first() else { return nil }
        return decodeKey(c.key)?.number
    }
}
