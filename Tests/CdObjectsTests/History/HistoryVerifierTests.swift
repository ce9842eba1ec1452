import CdStore
import Foundation
import Testing
@testable import CdObjects

/// OV8: the verifier finds damaged history — a gap in the numbers, a missing part or header, a
/// change naming an entity the model lacks, a history ID of the wrong size — and a clean history
/// verifies.
@Suite struct HistoryVerifierTests {
    /// A store with three recorded commits.
    static func store() throws -> ObjectStore {
        let store = try ObjectStore.open(path: "/h.cdstore", model: try historyModel(), options: trackedOptions())
        for i in 0..<3 { _ = try store.insert("Department", ["name": str("d\(i)")]) }
        #expect(try store.history(after: nil).count == 3)
        return store
    }

    static func problems(after damage: (WriteTransaction) throws -> Void) throws -> [String] {
        let store = try store()
        #expect(try store.verify().isEmpty, "clean before the damage")
        try store.engine.write { try damage($0) }
        return try store.verify().map(\.message)
    }

    static func history(_ tx: WriteTransaction) throws -> Tree { try #require(try tx.tree(HistoryLayout.tree)) }

    @Test func aGapInTheNumbersIsReported() throws {
        let found = try Self.problems { tx in
            let t = try Self.history(tx)
            try t.delete(HistoryLayout.key(2, part: 0))
            try t.delete(HistoryLayout.key(2, part: 1))
        }
        #expect(found.contains { $0.contains("transaction 3 follows 1") })
    }

    @Test func aMissingPartOrHeaderIsReported() throws {
        let found = try Self.problems { tx in
            let t = try Self.history(tx)
            try t.delete(HistoryLayout.key(1, part: 1))
            try t.delete(HistoryLayout.key(3, part: 0))
        }
        #expect(found.contains { $0.contains("transaction 1 has 0 of the 1 parts") })
        #expect(found.contains { $0.contains("transaction 3 has no header") })
    }

    @Test func aChangeOfAnUnknownEntityIsReported() throws {
        let found = try Self.problems { tx in
            // One insert of Nope/1: version, one name "Nope", one change (insert, name 0, key 1, none).
            try Self.history(tx).put(HistoryLayout.key(2, part: 1), [1, 1, 4, 78, 111, 112, 101, 1, 1, 0, 1, 0])
        }
        #expect(
            found.contains { $0.contains("transaction 2 part 1") && $0.contains("entity Nope is not in the model") })
    }

    @Test func aHistoryIDOfTheWrongSizeIsReported() throws {
        let found = try Self.problems { tx in
            try #require(try tx.tree(StoreLayout.metaTree)).put(HistoryLayout.idKey, [1, 2, 3])
        }
        #expect(found.contains { $0.contains("the history ID is 3 bytes") })
    }

    @Test func aDamagedHistoryReadsAsCorruption() throws {
        let store = try Self.store()
        try store.engine.write { try Self.history($0).put(HistoryLayout.key(2, part: 1), [9]) }
        #expect(throws: CdError.self) { _ = try store.history(after: nil) }
        #expect(errorCode { _ = try store.history(after: nil) } == 134060, "a store failure, corruption")
    }
}
