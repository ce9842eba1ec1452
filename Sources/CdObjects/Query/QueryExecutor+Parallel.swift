// The executor's reads on several threads: a full scan of a record tree split into runs of
// subtrees, and the records of a long key list (an index range, a relationship's list) split into
// chunks (CdStore's Tree+Parallel.swift). Each piece tests its candidates with a matcher of its
// own over the fetch's shared rules, and the pieces' matches are appended in key order, so the
// result is the one-thread result, order included (Q1, RK3).
//
// Invariants:
//  QP1. A read goes to other threads only with shareable rules (RK2) and no early stop (no
//       limit to stop at: a limited read stays on its thread, reading as few leaves as before);
//       everything else reads on the fetch's thread exactly as before.
//  QP2. The threads come from `StoredObjects.readThreads` (the store's `readThreads` option);
//       1 keeps every read on the fetch's thread.
//  QP3. A piece's error is the error the one-thread read would have met first (PP2): a damaged
//       record's `CdError` names the same tree and key, a damaged page's `StoreError` the same page.

import CdStore

extension QueryExecutor {
    /// The matches of a full scan of `tree`, piece by piece in key order; nil when the scan
    /// runs on this thread instead (QP1, QP2, TP1–TP3).
    func scanInPieces(_ tree: Tree, _ rules: MatchRules) throws -> [MatchPart]? {
        guard rules.isShareable, rules.stopAfter == nil else { return nil }
        let location = RecordTreeLocation(tree, path: reader.stored.tx.store.path)
        return try tree.scanInPieces(threads: reader.stored.readThreads) { piece in
            var matcher = RecordMatcher(rules: rules)
            let done = try piece.forEach { key, value in
                try matcher.consider(try Self.recordKey(key, in: location), lent: value)
            }
            return .init(matcher.part, stopped: !done)
        }
    }

    /// The matches among the records of `keys` (read for `expected[i]` when given), in the
    /// keys' order, chunk by chunk; nil when the read runs on this thread instead (QP1, QP2).
    func loadInPieces(
        _ keys: [Int64], expected: [ObjectID]?, from tree: Tree, _ rules: MatchRules
    ) throws -> [MatchPart]? {
        guard rules.isShareable, rules.stopAfter == nil else { return nil }
        return try tree.lookUpInPieces(keyCount: keys.count, threads: reader.stored.readThreads) { piece in
            var matcher = RecordMatcher(rules: rules)
            for i in piece.keys {
                if piece.isCancelled { return .init(matcher.part, stopped: true) }
                let pk = keys[i]
                let goOn = try piece.withValue(forBigEndianKey: UInt64(bitPattern: pk)) { value in
                    guard let value else { return true }
                    return try matcher.consider(pk, lent: value, expected: expected?[i])
                }
                if !goOn { return .init(matcher.part, stopped: true) }
            }
            return .init(matcher.part, stopped: false)
        }
    }

    /// The primary key of a record-tree key lent by a scan; a key that is not 8 bytes is
    /// corruption of the tree.
    static func recordKey(_ key: UnsafeRawBufferPointer, in tree: RecordTreeLocation) throws -> Int64 {
        guard key.count == 8 else { throw tree.corruption("record key of \(key.count) bytes") }
        return Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
    }
}
