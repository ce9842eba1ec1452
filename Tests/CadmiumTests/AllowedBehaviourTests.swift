// Cadmium's own test suite, allowed behaviour (its tests 1–11), each run with the model declared in
// Swift and with the model read from CadmiumTestModel.xcdatamodel. As in Cadmium's tests,
// transactions run on a background queue while the main thread waits, and the main thread then
// fetches at once — before the asynchronous merge has run — so fetches must read the last commit.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct AllowedBehaviour {
        @MainActor @Test(arguments: ModelSource.allCases)
        func basicQueries(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            #expect(try Cd.objects(TestItem.self).filter("name = \"C\"").count() == 1)
            #expect(try Cd.objects(TestItem.self).filter("name < \"C\"").fetch().count == 2)
            #expect(try Cd.objects(TestItem.self).filter("id = 4").fetch().count == 1)
            #expect(try Cd.objects(TestItem.self).filter("id < 4").fetch().count == 3)
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func sortingQueries(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            let up = try Cd.objects(TestItem.self).filter("id > %@ AND id < %@", 1, 5).sorted("id").fetch()
            #expect(up.map(\.id) == [2, 3, 4])
            let down = try Cd.objects(TestItem.self).filter("id > %@ AND id < %@", 1, 5).sorted("id", ascending: false)
                .fetch()
            #expect(down.map(\.id) == [4, 3, 2])
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func basicModification(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            try background {
                try Cd.transactAndWait {
                    let item = try Cd.objects(TestItem.self).filter("id = 1").fetchOne()
                    item?.name = "111"
                }
            }
            let item = try Cd.objects(TestItem.self).filter("id = 1").fetchOne()
            #expect(item?.name == "111")
            let byName = try Cd.objects(TestItem.self).filter("name = %@", "111").fetch()
            #expect(byName.map(\.id) == [1])
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func basicCreate(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            try background {
                try Cd.transactAndWait {
                    let item = try Cd.create(TestItem.self)
                    item.name = "F"
                    item.id = 1000
                }
            }
            #expect(try Cd.objects(TestItem.self).count() == 6)
            #expect(try Cd.objects(TestItem.self).filter("name = %@", "F").fetchOne()?.id == 1000)
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func basicUseInCurrentContext(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            try background {
                try Cd.transactAndWait {
                    let item = try Cd.create(TestItem.self)
                    item.name = "F"
                    item.id = 1000
                }
            }
            let f = try Cd.objects(TestItem.self).filter("name = %@", "F").fetch()
            #expect(f.count == 1)
            #expect(try Cd.objects(TestItem.self).filter("name = %@", "G").fetch().count == 0)
            let mainObject = f[0]
            try background {
                Cd.transactAndWait {
                    let moved = Cd.useInCurrentContext(mainObject)
                    #expect(moved != nil && moved !== mainObject)
                    moved?.name = "G"
                }
            }
            #expect(try Cd.objects(TestItem.self).count() == 6)
            #expect(try Cd.objects(TestItem.self).filter("name = %@", "G").count() == 1)
            #expect(try Cd.objects(TestItem.self).filter("name = %@", "F").count() == 0)
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func multiCreate(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            try background {
                try Cd.transactAndWait {
                    let items = try Cd.create(TestItem.self, count: 10)
                    #expect(items.count == 10)
                    #expect(Set(items.compactMap(\.objectID)).count == 10, "permanent IDs at create")
                    for item in items { item.name = "B" }
                    #expect(try Cd.create(TestItem.self, count: 0).isEmpty)
                }
            }
            #expect(try Cd.objects(TestItem.self).count() == 15)
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func basicDictionary(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            let rows = try Cd.dictionaryQuery(for: TestItem.self).fetch()
            #expect(rows.count == 5)
            #expect(Set(rows.compactMap { $0["name"] as? String }) == ["A", "B", "C", "D", "E"])
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func dictionaryExpressionGrouping(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            try background {
                try Cd.transactAndWait {
                    for i in 1...10 {
                        let a = try Cd.create(TestItem.self)
                        a.name = "TEST"
                        a.id = Int64(i)
                        let b = try Cd.create(TestItem.self)
                        b.name = "TEST2"
                        b.id = Int64(i)
                    }
                }
            }
            // groupBy without onlyProperties: C2.
            expectMisuse(.c2) { _ = try Cd.dictionaryQuery(for: TestItem.self).groupBy("name").fetch() }

            let rows = try Cd.dictionaryQuery(for: TestItem.self)
                .includeExpression("sum", resultType: .integer64, withFormat: "@sum.id")
                .includeExpression("count", resultType: .integer64, withFormat: "name.@count")
                .onlyProperties(["name", "sum", "count"])
                .groupBy("name")
                .fetch()
            #expect(rows.count == 7)
            let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as! String, $0) })
            #expect(byName["TEST"]?["sum"] as? Int64 == 55)
            #expect(byName["TEST"]?["count"] as? Int64 == 10)
            #expect(byName["TEST2"]?["sum"] as? Int64 == 55)
            #expect(byName["C"]?["sum"] as? Int64 == 3)
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func basicDelete(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            try background {
                try Cd.transactAndWait {
                    if let first = try Cd.objects(TestItem.self).fetchOne() { Cd.delete(first) }
                }
            }
            #expect(try Cd.objects(TestItem.self).count() == 4)
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func multiDelete(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            try background {
                try Cd.transactAndWait { Cd.delete(try Cd.objects(TestItem.self).fetch()) }
            }
            #expect(try Cd.objects(TestItem.self).count() == 0)
        }

        @MainActor @Test(arguments: ModelSource.allCases)
        func createTransientMainInsertLater(_ source: ModelSource) throws {
            guard try initCd(source) else { return }
            let item = try Cd.create(TestItem.self, transient: true)
            item.name = "F"  // allowed on main: the object has no context
            item.id = 1000
            #expect(item.objectID == nil)
            try background {
                Cd.transactAndWait { Cd.insert(item) }
            }
            #expect(try Cd.objects(TestItem.self).count() == 6)
            #expect(try Cd.objects(TestItem.self).filter("name = %@", "F").fetchOne()?.id == 1000)
        }
    }
}
