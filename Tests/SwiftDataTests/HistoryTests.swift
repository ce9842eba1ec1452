// A container's persistent history through SwiftData's API: what each save records (inserts,
// updates with their key paths, deletes with tombstones of preserved attributes only), across
// contexts and across a reopen, filtered by token and author, tokens kept as JSON, old history
// deleted, and predicates the store cannot narrow evaluated on the transactions read.

import CdObjects
import CdStore
import Foundation
import SwiftData
import Testing

@Model
final class Voyage {
    @Attribute(.preserveValueOnDeletion) var name: String
    @Attribute(.preserveValueOnDeletion) var note: String?
    var distance: Int
    @Relationship(deleteRule: .cascade, inverse: \Waypoint.voyage) var waypoints: [Waypoint] = []

    init(name: String, note: String? = nil, distance: Int) {
        self.name = name
        self.note = note
        self.distance = distance
    }
}

@Model
final class Waypoint {
    @Attribute(.preserveValueOnDeletion) var place: String
    var voyage: Voyage?

    init(place: String) { self.place = place }
}

/// A container of the voyage models in memory, or on `url`.
private func voyageContainer(_ url: URL? = nil) throws -> ModelContainer {
    let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
    return try ModelContainer(for: Voyage.self, Waypoint.self, configurations: configuration)
}

/// The names of Voyage's key paths (a `@Model` property's key path prints as a computed one).
private func voyageName(_ keyPath: AnyKeyPath) -> String {
    let names: [(AnyKeyPath, String)] = [
        (\Voyage.name, "name"), (\Voyage.note, "note"), (\Voyage.distance, "distance"),
        (\Voyage.waypoints, "waypoints"),
    ]
    return names.first { $0.0 == keyPath }?.1 ?? "?"
}

/// What a history change is, in a few words, for comparing whole histories.
private func summary(_ change: HistoryChange) -> String {
    switch change {
    case let .insert(insert): return "insert \(insert.changedPersistentIdentifier.entityName)"
    case let .update(update as DefaultHistoryUpdate<Voyage>):
        return "update Voyage " + update.updatedAttributes.map { voyageName($0) }.joined(separator: ",")
    case let .update(update): return "update \(update.changedPersistentIdentifier.entityName)"
    case let .delete(delete): return "delete \(delete.changedPersistentIdentifier.entityName)"
    }
}

@Suite struct HistoryTests {
    @Test func appStyleLoopMatchesEachKindOfChange() throws {
        let container = try voyageContainer()
        let context = ModelContext(container)
        let lastToken = try #require(try seedToken(context))
        let lisbon = Voyage(name: "Lisbon", note: "by train", distance: 2_000)
        context.insert(lisbon)
        try context.save()
        lisbon.distance = 2_100
        try context.save()
        context.delete(lisbon)
        try context.save()

        var inserted: [PersistentIdentifier] = []
        var updated: [[AnyKeyPath]] = []
        var tombstones: [String?] = []
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.predicate = #Predicate { $0.token > lastToken }
        let transactions = try context.fetchHistory(descriptor)
        for transaction in transactions {
            for change in transaction.changes {
                switch change {
                case .insert(let insert as DefaultHistoryInsert<Voyage>):
                    inserted.append(insert.changedPersistentIdentifier)
                case .update(let update as DefaultHistoryUpdate<Voyage>):
                    updated.append(update.updatedAttributes.map { $0 as AnyKeyPath })
                case .delete(let delete as DefaultHistoryDelete<Voyage>):
                    tombstones.append(delete.tombstone[\.name] as? String)
                default: break
                }
            }
        }
        #expect(transactions.count == 3)
        #expect(inserted.count == 1)
        #expect(updated == [[\Voyage.distance]])
        #expect(tombstones == ["Lisbon"])
        #expect(transactions.allSatisfy { $0.token > lastToken })
    }

    @Test func savesOfTwoContextsAreTransactionsInOrder() throws {
        let container = try voyageContainer()
        let first = ModelContext(container), second = ModelContext(container)
        let voyage = Voyage(name: "Oslo", distance: 1_000)
        voyage.waypoints.append(Waypoint(place: "Gothenburg"))
        first.insert(voyage)
        try first.save()
        let seen = try #require(try second.fetch(FetchDescriptor<Voyage>()).first)
        seen.name = "Oslo fjord"
        seen.note = "summer"
        try second.save()
        first.delete(voyage)
        try first.save()

        let transactions = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(
            transactions.map { $0.changes.map(summary).sorted() } == [
                ["insert Voyage", "insert Waypoint"],
                ["update Voyage name,note"],
                ["delete Voyage", "delete Waypoint"],
            ])
        #expect(transactions.map(\.transactionIdentifier) == [1, 2, 3])
        #expect(transactions.map(\.token) == transactions.map(\.token).sorted())
        #expect(transactions.allSatisfy { $0.id == $0.transactionIdentifier })
        let ids = transactions.flatMap { $0.changes.map(\.changedPersistentIdentifier) }
        #expect(ids.contains(voyage.persistentModelID))
        let storeIdentifier = voyage.persistentModelID.storeIdentifier
        #expect(transactions.allSatisfy { $0.storeIdentifier == storeIdentifier })
        #expect(transactions.allSatisfy { $0.token.storeIdentifier == storeIdentifier })
        let current = HistoryProcessIdentity()
        #expect(transactions.allSatisfy { $0.processIdentifier == current.process })
        #expect(transactions.allSatisfy { $0.bundleIdentifier == current.bundle && !$0.bundleIdentifier.isEmpty })
        let changeIDs = transactions.flatMap { transaction -> [Int64] in
            transaction.changes.compactMap { change in
                switch change {
                case let .insert(insert as DefaultHistoryInsert<Voyage>): return insert.changeIdentifier
                case let .insert(insert as DefaultHistoryInsert<Waypoint>): return insert.changeIdentifier
                case let .update(update as DefaultHistoryUpdate<Voyage>): return update.changeIdentifier
                case let .delete(delete as DefaultHistoryDelete<Voyage>): return delete.changeIdentifier
                case let .delete(delete as DefaultHistoryDelete<Waypoint>): return delete.changeIdentifier
                default: return nil
                }
            }
        }
        #expect(changeIDs.count == 5 && changeIDs == changeIDs.sorted() && Set(changeIDs).count == 5)
    }

    @Test func tombstonesHoldPreservedNonNilValuesOnly() throws {
        let container = try voyageContainer()
        let context = ModelContext(container)
        let rome = Voyage(name: "Rome", note: "by night train", distance: 1_500)
        rome.waypoints.append(Waypoint(place: "Milan"))
        let bern = Voyage(name: "Bern", note: nil, distance: 900)
        context.insert(rome)
        context.insert(bern)
        try context.save()
        context.delete(rome)  // cascades to Milan
        context.delete(bern)
        try context.save()

        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        var voyages: [String: HistoryTombstone<Voyage>] = [:]
        var places: [String] = []
        for change in last.changes {
            switch change {
            case let .delete(delete as DefaultHistoryDelete<Voyage>):
                voyages[delete.tombstone[\.name] as? String ?? "?"] = delete.tombstone
            case let .delete(delete as DefaultHistoryDelete<Waypoint>):
                places.append(delete.tombstone[\.place] as? String ?? "?")
                #expect(delete.tombstone[\.voyage] == nil)
            default: Issue.record("unexpected change \(change)")
            }
        }
        let romeStone = try #require(voyages["Rome"]), bernStone = try #require(voyages["Bern"])
        #expect(romeStone[\.note] as? String == "by night train")
        #expect(romeStone[\.distance] == nil)
        #expect(romeStone.map { $0.keyPath as AnyKeyPath } == [\Voyage.name, \Voyage.note])
        #expect(bernStone[\.note] == nil)
        #expect(bernStone.map { $0.value as? String } == ["Bern"])
        #expect(places == ["Milan"])
    }

    @Test func authorsAreRecordedAndFiltered() throws {
        let container = try voyageContainer()
        let importer = ModelContext(container), editor = ModelContext(container)
        importer.author = "importer"
        editor.author = "editor"
        importer.insert(Voyage(name: "A", distance: 1))
        try importer.save()
        editor.insert(Voyage(name: "B", distance: 2))
        try editor.save()
        let anonymous = ModelContext(container)
        anonymous.insert(Voyage(name: "C", distance: 3))
        try anonymous.save()
        importer.insert(Voyage(name: "D", distance: 4))
        try importer.save()

        let all = try anonymous.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(all.map(\.author) == ["importer", "editor", nil, "importer"])
        let byImporter = try anonymous.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "importer" }))
        #expect(byImporter.map(\.transactionIdentifier) == [1, 4])
        let author = "importer"
        let first = try #require(all.first?.token)
        let later = try anonymous.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { transaction in (transaction.token > first) && (transaction.author == author) }))
        #expect(later.map(\.transactionIdentifier) == [4])
    }

    @Test func historyContinuesAcrossAReopen() throws {
        let url = temporaryStoreURL("history")
        defer { try? FileManager.default.removeItem(at: url) }
        var saved: Data
        do {
            let context = ModelContext(try voyageContainer(url))
            context.insert(Voyage(name: "Before", distance: 1))
            try context.save()
            let token = try #require(
                try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
            saved = try JSONEncoder().encode(token)
        }
        let lastToken = try JSONDecoder().decode(DefaultHistoryToken.self, from: saved)
        let context = ModelContext(try voyageContainer(url))
        let before = try #require(try context.fetch(FetchDescriptor<Voyage>()).first)
        before.distance = 5
        context.insert(Voyage(name: "After", distance: 2))
        try context.save()

        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.predicate = #Predicate { $0.token > lastToken }
        let newer = try context.fetchHistory(descriptor)
        #expect(newer.map(\.transactionIdentifier) == [2])
        #expect(newer.first?.changes.map(summary).sorted() == ["insert Voyage", "update Voyage distance"])
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }

    @Test func tokensSurviveJSONAndOrderByTransaction() throws {
        let context = ModelContext(try voyageContainer())
        for distance in 1...3 {
            context.insert(Voyage(name: "V\(distance)", distance: distance))
            try context.save()
        }
        let tokens = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.token)
        let data = try JSONEncoder().encode(tokens)
        let decoded = try JSONDecoder().decode([DefaultHistoryToken].self, from: data)
        #expect(decoded == tokens)
        #expect(decoded.map(\.storeIdentifier) == tokens.map(\.storeIdentifier))
        #expect(decoded[0] < decoded[1] && decoded[1] < decoded[2])
        #expect(Set(decoded).count == 3)
        #expect(tokens.map(\.id) == [1, 2, 3])
        let storeIdentifier = tokens[0].storeIdentifier
        #expect(tokens[2].tokenValue == [storeIdentifier: 3])

        let damaged = Data(#"{"storeIdentifier":"x","historyID":"not-a-uuid","number":1}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DefaultHistoryToken.self, from: damaged) }
        let missing = Data(#"{"storeIdentifier":"x","number":1}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DefaultHistoryToken.self, from: missing) }
    }

    @Test func deleteHistoryDeletesTheOldestUpToAToken() throws {
        let context = ModelContext(try voyageContainer())
        context.author = "app"
        for distance in 1...4 {
            context.insert(Voyage(name: "V\(distance)", distance: distance))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let third = all[2].token, first = all[0].token

        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.predicate = #Predicate { $0.token < third }
        try context.deleteHistory(descriptor)
        let kept = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(kept.map(\.transactionIdentifier) == [3, 4])

        var stale = HistoryDescriptor<DefaultHistoryTransaction>()
        stale.predicate = #Predicate { $0.token > first }
        #expect(throws: SwiftDataError.historyTokenExpired) { try context.fetchHistory(stale) }
        let second = all[1].token
        stale.predicate = #Predicate { $0.token > second }  // transaction 2 is the one before the kept ones
        #expect(try context.fetchHistory(stale).map(\.transactionIdentifier) == [3, 4])

        // Selections the store cannot delete are refused, and nothing is deleted.
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) {
            try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        }
        let fourth = all[3].token
        var newest = HistoryDescriptor<DefaultHistoryTransaction>()
        newest.predicate = #Predicate { $0.token <= fourth }
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) { try context.deleteHistory(newest) }
        var notOldest = HistoryDescriptor<DefaultHistoryTransaction>()
        context.insert(Voyage(name: "V5", distance: 5))
        try context.save()
        notOldest.predicate = #Predicate { $0.token == fourth }
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) { try context.deleteHistory(notOldest) }
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 3)
        var none = HistoryDescriptor<DefaultHistoryTransaction>()
        none.predicate = #Predicate { $0.author == "nobody" }
        try context.deleteHistory(none)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 3)
    }

    @Test func predicatesTheStoreCannotNarrowAreEvaluatedOnTheTransactions() throws {
        let container = try voyageContainer()
        let context = ModelContext(container)
        for (author, distance) in [("a", 1), ("b", 2), ("c", 3), ("a", 4)] {
            context.author = author
            context.insert(Voyage(name: "V\(distance)", distance: distance))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let start = all[1].timestamp
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(
            predicate: #Predicate { $0.author == "b" || $0.author == "c" || $0.timestamp < start },
            sortBy: [SortDescriptor(\.token, order: .reverse)])
        #expect(try context.fetchHistory(descriptor).map(\.transactionIdentifier) == [3, 2, 1])
        descriptor.fetchLimit = 2
        #expect(try context.fetchHistory(descriptor).map(\.transactionIdentifier) == [3, 2])
        let negated = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { !($0.author == "a") })
        #expect(try context.fetchHistory(negated).map(\.author) == ["b", "c"])
        let byCount = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.changes.count == 1 })
        #expect(try context.fetchHistory(byCount).count == 4)
    }

    @Test func aStoreWrittenWithoutHistoryStartsItAtTheContainersOpen() throws {
        let url = temporaryStoreURL("pre-history")
        defer { try? FileManager.default.removeItem(at: url) }
        let model = try Schema([Voyage.self, Waypoint.self]).objectModel()
        do {
            let store = try ObjectStore.open(path: url.path, model: model)
            #expect(!store.isHistoryTracked)
            let id = try store.newObjectIDs(entity: "Voyage", count: 1)[0]
            try store.apply(
                ChangeSet(inserted: [
                    id: ["name": .attribute(.string("Old")), "distance": .attribute(.integer(7))]
                ]))
            try store.close()
        }
        let container = try voyageContainer(url)
        let context = ModelContext(container)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        let old = try #require(try context.fetch(FetchDescriptor<Voyage>()).first)
        #expect(old.name == "Old")
        context.delete(old)
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.map(\.transactionIdentifier) == [1])
        guard case let .delete(delete as DefaultHistoryDelete<Voyage>)? = history.first?.changes.first else {
            Issue.record("the delete of the old voyage is not in the history")
            return
        }
        #expect(delete.tombstone[\.name] as? String == "Old")
    }

    @Test func aCommitOfAnotherAPIHasNoProcess() throws {
        let url = temporaryStoreURL("other-api")
        defer { try? FileManager.default.removeItem(at: url) }
        var options = StoreOptions()
        options.history = .tracked
        let store = try ObjectStore.open(
            path: url.path, model: try Schema([Voyage.self, Waypoint.self]).objectModel(), options: options)
        let id = try store.newObjectIDs(entity: "Voyage", count: 1)[0]
        var changes = ChangeSet(inserted: [
            id: ["name": .attribute(.string("Cd")), "distance": .attribute(.integer(1))]
        ])
        changes.author = "cd"
        try store.apply(changes)
        // Context names as another process of this module, and of another tool, record them.
        for (distance, name) in [(2, "swiftdata:42:com.example.app:widget"), (3, "swiftdata:pid:x"), (4, "importer")] {
            var update = ChangeSet(updated: [id: ["distance": .attribute(.integer(Int64(distance)))]])
            update.contextName = name
            try store.apply(update)
        }
        try store.close()

        let context = ModelContext(try voyageContainer(url))
        context.insert(Voyage(name: "Mine", distance: 1))
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.map(\.author) == ["cd", nil, nil, nil, nil])
        let me = HistoryProcessIdentity()
        #expect(history.map(\.processIdentifier) == ["", "42", "", "", me.process])
        #expect(history.map(\.bundleIdentifier) == ["", "com.example.app:widget", "", "", me.bundle])
    }

    @Test func aTransactionTypeOfACustomStoreIsRefused() throws {
        let context = ModelContext(try voyageContainer())
        context.insert(Voyage(name: "A", distance: 1))
        try context.save()
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) {
            try context.fetchHistory(HistoryDescriptor<CustomTransaction>())
        }
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) {
            try context.deleteHistory(HistoryDescriptor<CustomTransaction>())
        }
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }

    @Test func eachInMemoryContainerHasItsOwnHistory() throws {
        let a = ModelContext(try voyageContainer()), b = ModelContext(try voyageContainer())
        a.insert(Voyage(name: "A", distance: 1))
        try a.save()
        #expect(try b.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        let token = try #require(try a.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first?.token)
        b.insert(Voyage(name: "B", distance: 1))
        try b.save()
        var foreign = HistoryDescriptor<DefaultHistoryTransaction>()
        foreign.predicate = #Predicate { $0.token > token }
        #expect(throws: SwiftDataError.historyTokenExpired) { try b.fetchHistory(foreign) }
    }

    /// The token of the newest transaction after one save of a seed voyage.
    private func seedToken(_ context: ModelContext) throws -> DefaultHistoryToken? {
        context.insert(Voyage(name: "Seed", distance: 0))
        try context.save()
        return try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token
    }
}

/// This process as history transactions record it.
private struct HistoryProcessIdentity {
    let process = String(ProcessInfo.processInfo.processIdentifier)
    let bundle = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
}

/// A transaction type of a custom store, which this module's contexts do not fetch.
private struct CustomTransaction: HistoryTransaction {
    let id: Int
    var author: String? { nil }
    var changes: [HistoryChange] { [] }
    var storeIdentifier: String { "custom" }
    var timestamp: Date { .distantPast }
    var token: CustomToken { CustomToken(id: id) }
    var transactionIdentifier: Int { id }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The token of `CustomTransaction`.
private struct CustomToken: Comparable, Hashable, Identifiable, Sendable {
    let id: Int
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.id < rhs.id }
}
