// `onlyProperties`, `batchSize` and `prefetch` on object queries do what their doc comments say:
// partial faults that load the rest on first read; faults in batches, loaded one batch at a
// time; related objects loaded from the fetch's own snapshot. Each test looks at what the
// objects hold (loaded or not) or at which commit their values come from, so it fails if the
// option is ignored.

import Foundation
import Testing
@testable import Cadmium

extension CdManagedObject {
    /// Whether the attribute and to-one values are loaded (test probe).
    var isLoaded: Bool { withState { $0.loaded } }
    /// The keys whose values the object holds (test probe).
    var heldKeys: Set<String> { withState { Set($0.values.keys) } }
}

extension CadmiumSuites {
    @Suite struct FetchOptions {
        @MainActor @Test func onlyPropertiesKeepsTheNamedValuesAndFaultsTheRest() throws {
            try initCd()
            let items = try Cd.objects(TestItem.self).sorted("id").onlyProperties(["name"]).fetch()
            #expect(items.map { $0.heldKeys } == Array(repeating: ["name"], count: 5))
            #expect(items.map(\.name) == ["A", "B", "C", "D", "E"])
            #expect(items.allSatisfy { !$0.isLoaded }, "reading a named property does not fire the fault")
            #expect(items[0].id == 1, "another property loads from the store")
            #expect(items[0].isLoaded && items[0].heldKeys == ["id", "name"])
            #expect(!items[1].isLoaded)
            // Without the option, everything is loaded by the fetch.
            let full = try Cd.objects(TestItem.self).sorted("id").fetch()
            #expect(full.allSatisfy { $0.isLoaded })
        }

        @Test func onlyPropertiesInATransactionKeepsPendingChanges() throws {
            try initCd()
            try background {
                try Cd.transactAndWait {
                    let a = try #require(try Cd.objects(TestItem.self).filter("name == 'A'").fetchOne())
                    a.id = 100
                    let again = try Cd.objects(TestItem.self).filter("name == 'A'").onlyProperties(["name"]).fetch()
                    #expect(again.first === a && a.id == 100, "the changed object keeps its change")
                    let b = try #require(
                        try Cd.objects(TestItem.self).filter("name == 'B'").onlyProperties(["name"]).fetchOne())
                    #expect(!b.isLoaded && b.name == "B" && b.id == 2)
                }
            }
        }

        @MainActor @Test func batchSizeLoadsOneBatchAtATime() throws {
            try initCd()
            let items = try Cd.objects(TestItem.self).sorted("id").batchSize(2).fetch()
            #expect(items.count == 5)
            #expect(items.allSatisfy { !$0.isLoaded }, "the fetch returns faults")
            #expect(items[2].name == "C")
            #expect(
                items.map(\.isLoaded) == [false, false, true, true, false], "the read loaded its batch [2, 3] only")
            #expect(items.map(\.name) == ["A", "B", "C", "D", "E"])
            #expect(items.allSatisfy { $0.isLoaded })
        }

        @MainActor @Test func batchSizeWithOnlyPropertiesLoadsPartialBatches() throws {
            try initCd()
            let items = try Cd.objects(TestItem.self).sorted("id").batchSize(3).onlyProperties(["id"]).fetch()
            #expect(items[0].id == 1)
            #expect(items.map(\.heldKeys) == [["id"], ["id"], ["id"], [], []])
            #expect(items[4].name == "E", "a property not named loads in full")
            #expect(items[4].isLoaded && !items[3].isLoaded)
        }

        @Test func batchSizeInAReadSnapshotReadsThePinnedCommit() throws {
            try initCd()
            try background {
                try Cd.read {
                    let items = try Cd.objects(TestItem.self).sorted("id").batchSize(2).fetch()
                    try Cd.transactAndWait { try Cd.objects(TestItem.self).fetch().forEach { $0.name += "!" } }
                    #expect(items.map(\.name) == ["A", "B", "C", "D", "E"], "batches load from the snapshot")
                }
            }
        }

        /// Department R&D with Ann and Bob.
        func seedCompany() throws {
            try initCompany()
            try background {
                try Cd.transactAndWait {
                    let department = try Cd.create(Department.self)
                    department.name = "R&D"
                    for name in ["Ann", "Bob"] {
                        let employee = try Cd.create(Employee.self)
                        employee.name = name
                        employee.department = department
                    }
                }
            }
        }

        func renameEveryone() throws {
            try background {
                try Cd.transactAndWait { try Cd.objects(Employee.self).fetch().forEach { $0.name += "2" } }
            }
        }

        @MainActor @Test func prefetchLoadsTargetsFromTheFetchSnapshot() throws {
            try seedCompany()
            let department = try #require(try Cd.objects(Department.self).prefetch(["employees"]).fetchOne())
            #expect(department.heldKeys.contains("employees"), "to-many targets kept on the source")
            // A commit while the main queue is blocked (no merge yet): the prefetched employees
            // show the fetch's commit. Without prefetch they would load now, after the commit.
            try renameEveryone()
            #expect(department.employees.map(\.name).sorted() == ["Ann", "Bob"])
        }

        @Test func withoutPrefetchTargetsAreNotLoaded() throws {
            try seedCompany()
            try background {
                try Cd.read {
                    let plain = try #require(try Cd.objects(Department.self).fetchOne())
                    #expect(!plain.heldKeys.contains("employees"), "not loaded without prefetch")
                    let prefetched = try #require(try Cd.objects(Department.self).prefetch(["employees"]).fetchOne())
                    #expect(prefetched === plain && plain.heldKeys.contains("employees"))
                }
            }
        }

        @MainActor @Test func prefetchFollowsKeyPathsAndToOnes() throws {
            try seedCompany()
            let employees = try Cd.objects(Employee.self).sorted("name").prefetch(["department.employees"]).fetch()
            try renameEveryone()
            // `department` came with the records; its employees were loaded from the fetch's snapshot.
            let department = try #require(employees.first?.department)
            #expect(department.isLoaded && department.heldKeys.contains("employees"))
            #expect(department.employees.map(\.name).sorted() == ["Ann", "Bob"])
            // A plain fetch of the same objects after the commit sees it.
            #expect(try Cd.objects(Employee.self).sorted("name").fetch().map(\.name) == ["Ann2", "Bob2"])
        }
    }
}
