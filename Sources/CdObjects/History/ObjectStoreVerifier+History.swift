// The verifier's check of the persistent history (OV8 of ObjectStoreVerifier.swift; HS1–HS5 of
// HistoryLayout.swift): the history ID, the transaction numbers without a gap, every
// transaction whole (a header and its parts 1…k), and every change decoding against the stored
// model (its entity and properties exist). Like the other checks it reports, never throws, for
// what it reads from the file.

import CdStore
import Foundation

extension ObjectStoreVerifier {
    /// Reports what is wrong with the history of the store `tx` reads (OV8).
    func verifyHistory(
        _ tx: Transaction, meta: Tree, layout: StoreLayout, report: (ObjectStoreProblem) -> Void
    ) throws {
        let name = HistoryLayout.tree
        let idBytes = try meta.get(HistoryLayout.idKey)
        if let idBytes, HistoryLayout.decodeID(idBytes) == nil {
            report(
                ObjectStoreProblem(
                    tree: meta.name, key: HistoryLayout.idKey,
                    message: "the history ID is \(idBytes.count) bytes, not 16"))
        }
        guard let tree = try tx.tree(name) else { return }
        if idBytes == nil {
            report(ObjectStoreProblem(tree: name, message: "the store has history but cd.meta has no history.id"))
        }
        let reader = HistoryReader(tree: nil, layout: layout, storeID: UUID())
        var previous: UInt64?
        var number: UInt64?, header: HistoryHeader?, parts: UInt32 = 0
        func close() {
            guard let n = number else { return }
            let key = HistoryLayout.key(n, part: 0)
            if let header, header.partCount != Int(parts) {
                report(
                    ObjectStoreProblem(
                        tree: name, key: key,
                        message: "transaction \(n) has \(parts) of the \(header.partCount) parts its header counts"))
            } else if header == nil {
                report(ObjectStoreProblem(tree: name, key: key, message: "transaction \(n) has no header (part 0)"))
            }
        }
        var checked = 0
        try tree.scan { key, value in
            checked += 1
            guard let (n, part) = HistoryLayout.decodeKey(key) else {
                report(
                    ObjectStoreProblem(
                        tree: name, key: key,
                        message: "a history key of \(key.count) bytes, not \(HistoryLayout.keySize)"
                    ))
                return checked < 10 * maxProblems
            }
            if n != number {
                close()
                if n == 0 {
                    report(
                        ObjectStoreProblem(tree: name, key: key, message: "transaction number 0 (numbers start at 1)"))
                } else if let p = previous, n != p + 1 {
                    report(
                        ObjectStoreProblem(
                            tree: name, key: key, message: "transaction \(n) follows \(p): the numbers have a gap"))
                }
                previous = n
                number = n
                header = nil
                parts = 0
            }
            if part == 0 {
                do { header = try HistoryCodec.decodeHeader(value) } catch {
                    report(ObjectStoreProblem(tree: name, key: key, message: "transaction \(n) header: \(error)"))
                }
            } else {
                if part != parts + 1 {
                    report(
                        ObjectStoreProblem(
                            tree: name, key: key, message: "transaction \(n) part \(part) follows part \(parts)"))
                }
                parts = part
                do { _ = try reader.decodePart(value) } catch {
                    report(ObjectStoreProblem(tree: name, key: key, message: "transaction \(n) part \(part): \(error)"))
                }
            }
            return true
        }
        close()
    }
}
