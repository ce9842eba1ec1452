// A `Cd.read` body that fetches object after object keeps only what it still holds (MC4 of
// CdManagedObjectContext.swift): the snapshot context drops objects nobody else holds, so a
// loop of fetches runs in memory for its live results. Objects the body holds keep their
// identity and stay readable.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct ReadSnapshotMemory {
        /// Inserts `count` items with ids from 100; returns their object IDs in that order.
        static func insertItems(_ count: Int) throws -> [ObjectID] {
            try background {
                try Cd.transactAndWait { () throws -> [ObjectID] in
                    try (0..<count).map { i in
                        let item = try Cd.create(TestItem.self)
                        item.id = Int64(100 + i)
                        item.name = "item \(i)"
                        return try #require(item.objectID)
                    }
                }
            }
        }

        @Test func aLoopOfFetchesKeepsOnlyWhatTheBodyHolds() throws {
            try initCd()
            let count = 3 * CdManagedObjectContext.sweepFloor
            let ids = try Self.insertItems(count)
            try background {
                try Cd.read { () throws in
                    let context = try #require(ThreadState.current.context)
                    let first = try #require(try Cd.objects(TestItem.self).filter("SELF == %@", ids[0]).fetchOne())
                    var peak = 0
                    var names = 0
                    for i in 0..<count {
                        let item = try #require(try Cd.objects(TestItem.self).filter("SELF == %@", ids[i]).fetchOne())
                        names += item.name == "item \(i)" ? 1 : 0
                        peak = max(peak, context.retainedCount)
                    }
                    #expect(names == count)
                    #expect(peak <= 2 * CdManagedObjectContext.sweepFloor, "peak \(peak) of \(count) fetched")
                    // The held object is the registered one still (MC1), and reads as before.
                    let again = try #require(try Cd.objects(TestItem.self).filter("SELF == %@", ids[0]).fetchOne())
                    #expect(again === first)
                    #expect(first.name == "item 0")
                }
            }
        }

        @Test func heldResultsAreNeverDropped() throws {
            try initCd()
            let count = 2 * CdManagedObjectContext.sweepFloor + 10
            let ids = try Self.insertItems(count)
            try background {
                try Cd.read { () throws in
                    let all = try Cd.objects(TestItem.self).filter("id >= 100").sorted("id").fetch()
                    #expect(all.count == count)
                    // Fetching each again one by one, past several sweeps, finds the same objects.
                    for (i, item) in all.enumerated() where i % 97 == 0 {
                        let again = try #require(try Cd.objects(TestItem.self).filter("SELF == %@", ids[i]).fetchOne())
                        #expect(again === item)
                    }
                    #expect((ThreadState.current.context?.retainedCount ?? 0) >= count)
                }
            }
        }
    }
}
