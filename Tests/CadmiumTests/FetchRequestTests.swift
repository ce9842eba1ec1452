// CdFetchRequest's builder semantics, as Cadmium's (docs/CADMIUM-API.md §3): `or` wraps the whole
// existing predicate, `sorted` appends, `onlyProperties` is a set; unlike Cadmium's, `fetchOne`
// leaves the request as it was (requests are values: RequestValueTests.swift); paging, distinct
// rows, `objectWithID`/`objectsWithIDs`, and `delete()` inside and outside a transaction.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct FetchRequests {
        @MainActor @Test func orWrapsTheExistingPredicate() throws {
            try initCd()
            let request = Cd.objects(TestItem.self).filter("id > 3").and("name = %@", "E").or("name = %@", "A")
            #expect(try request.sorted("id").fetch().map(\.id) == [1, 5])  // (id > 3 AND E) OR A
            #expect(
                try Cd.objects(TestItem.self).or("id = 2").fetch().map(\.name) == ["B"], "or with no predicate sets it")
        }

        @MainActor @Test func sortedAppendsSecondaryKeys() throws {
            try initCd()
            try background {
                try Cd.transactAndWait {
                    let b = try Cd.create(TestItem.self)
                    b.name = "B"
                    b.id = 10
                }
            }
            let rows = try Cd.objects(TestItem.self).filter("name IN %@", ["B", "C"])
                .sorted("name").sorted("id", ascending: false).fetch()
            #expect(rows.map(\.id) == [10, 2, 3])
            let same = try Cd.objects(TestItem.self).filter("name IN %@", ["B", "C"])
                .sorted(CdSortDescriptor("name", caseInsensitive: true)).sorted(
                    CdSortDescriptor("id", ascending: false)
                ).fetch()
            #expect(same.map(\.id) == [10, 2, 3])
        }

        @MainActor @Test func fetchOneLeavesTheRequestAsItWas() throws {
            try initCd()
            let request = Cd.objects(TestItem.self).sorted("id")
            #expect(try request.fetchOne()?.id == 1)
            #expect(try request.fetch().count == 5, "fetchOne changed the request's limit")
            #expect(request.request.limit == nil)
        }

        @MainActor @Test func pagingAndCounting() throws {
            try initCd()
            let page = try Cd.objects(TestItem.self).sorted("id").offset(1).limit(2).batchSize(10).prefetch([]).fetch()
            #expect(page.map(\.id) == [2, 3])
            #expect(try Cd.objects(TestItem.self).filter("name BEGINSWITH[c] %@", "a").count() == 1)
        }

        @MainActor @Test func dictionaryRowsDistinctAndOnlyProperties() throws {
            try initCd()
            try background {
                try Cd.transactAndWait {
                    for _ in 0..<3 {
                        let a = try Cd.create(TestItem.self)
                        a.name = "A"
                    }
                }
            }
            let names = try Cd.dictionaryQuery(for: TestItem.self).onlyProperties(["name"]).onlyProperties(["name"])
                .distinct().sorted("name").fetch()
            #expect(names.compactMap { $0["name"] as? String } == ["A", "B", "C", "D", "E"])
            #expect(names.allSatisfy { $0.keys.sorted() == ["name"] })
        }

        @MainActor @Test func objectWithIDAndObjectsWithIDs() throws {
            try initCd()
            #expect(try Cd.objectWithID(TestItem.self, idValue: 3)?.name == "C")
            #expect(try Cd.objectWithID(TestItem.self, idValue: "E", key: "name")?.id == 5)
            #expect(try Cd.objectWithID(TestItem.self, idValue: 99) == nil)
            let some = try Cd.objectsWithIDs(TestItem.self, idValues: [1, 4, 99]).map(\.name).sorted()
            #expect(some == ["A", "D"])
        }

        @Test func deleteOutsideATransactionRunsOneAsynchronously() async throws {
            try initCd()
            // On main: becomes an asynchronous transaction.
            let error = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                Task { @MainActor in
                    do {
                        try Cd.objects(TestItem.self).filter("id <= 2").delete { error in
                            continuation.resume(returning: error.map { "\($0)" })
                        }
                    } catch {
                        continuation.resume(returning: "\(error)")
                    }
                }
            }
            #expect(error == nil)
            let left = try await Cd.transaction { try Cd.objects(TestItem.self).sorted("id").fetch().map(\.id) }
            #expect(left == [3, 4, 5])
            // On a background thread with no transaction, too.
            let error2 = try await Cd.objects(TestItem.self).filter("id = 3").deleteAndWait()
            #expect(error2 == nil)
            #expect(try await Cd.transaction { try Cd.objects(TestItem.self).count() } == 2)
        }

        @Test func badPredicateIsThrownByTheTerminal() throws {
            try initCd()
            try background {
                try Cd.transactAndWait { () throws in
                    #expect(throws: CdPredicateError.self) { try Cd.objects(TestItem.self).filter("name ==").fetch() }
                    #expect(throws: CdPredicateError.self) {
                        try Cd.objects(TestItem.self).filter("nosuchkey = 1").count()
                    }
                }
            }
        }
    }
}

extension CdFetchRequest where T: CdManagedObject {
    /// `delete(completion:)` from a thread with no transaction, awaited.
    func deleteAndWait() async throws -> String? {
        let request = Unchecked(self)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    try request.value.delete { error in continuation.resume(returning: error.map { "\($0)" }) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
