import CdStore
import Foundation
import Testing
@testable import CdObjects

/// The company model (ObjectStoreTestSupport.swift) with `Employee.badge`, `Employee.name` and
/// `Department.name` kept in history tombstones.
func historyModel(extraProjectAttribute: Bool = false) throws -> ObjectModel {
    let preserved: Set<String> = ["Employee.badge", "Employee.name", "Department.name"]
    let entities = try companyModel().entities.map { e -> EntityDescription in
        var e = e
        e.attributes = e.attributes.map { a in
            var a = a
            a.preservesValueInHistoryOnDeletion = preserved.contains("\(e.name).\(a.name)")
            return a
        }
        if extraProjectAttribute, e.name == "Project" { e.attributes.append(.init(name: "code", type: .string)) }
        return e
    }
    return try ObjectModel(entities: entities)
}

/// Options of a store that records history.
func trackedOptions(_ fs: any StoreFileSystem = InMemoryFileSystem()) -> StoreOptions {
    var o = StoreOptions(fileSystem: fs)
    o.pageSize = 4096
    o.history = .tracked
    return o
}

/// One object as the store holds it: attribute and to-one values, and each to-many's members
/// (sorted by key when unordered).
struct ObjectState: Equatable {
    var values: [String: PropertyValue]
    var toManys: [String: [ObjectID]]
}

/// What a change records, for comparing with a model's expectation.
struct ExpectedChange: Equatable, CustomStringConvertible {
    var kind: CdHistoryChangeKind
    var properties: Set<String>
    var tombstone: [String: CdValue]?

    init(kind: CdHistoryChangeKind, properties: Set<String>, tombstone: [String: CdValue]? = nil) {
        self.kind = kind
        self.properties = properties
        self.tombstone = tombstone
    }

    var description: String { "\(kind) \(properties.sorted()) \(tombstone.map { "\($0)" } ?? "")" }
}

extension ObjectStore {
    /// Every object of the store with its state: the oracle the history tests diff.
    func everyObjectState() throws -> [ObjectID: ObjectState] { try read { try objectStates($0) } }
}

/// Every object `snapshot` sees, with its state.
func objectStates(_ snapshot: ObjectSnapshot) throws -> [ObjectID: ObjectState] {
    let model = snapshot.store.model
    var result: [ObjectID: ObjectState] = [:]
    for root in model.entities where root.parent == nil {
        for id in try snapshot.fetchIDs(FetchRequest(entity: root.name), pending: nil) {
            var toManys: [String: [ObjectID]] = [:]
            for r in model.allRelationships(of: id.entity) where r.isToMany && !r.isTransient {
                let members = try snapshot.related(id, r.name)
                toManys[r.name] = r.isOrdered ? members : members.sorted()
            }
            result[id] = ObjectState(values: try snapshot.values(of: id) ?? [:], toManys: toManys)
        }
    }
    return result
}

extension ObjectModel {
    /// Whether `attribute` of `entity` (or an ancestor) keeps its value in tombstones.
    func preserves(_ entity: String, _ attribute: String) -> Bool {
        var name: String? = entity
        while let n = name, let e = self.entity(named: n) {
            if let a = e.attributes.first(where: { $0.name == attribute }) {
                return a.preservesValueInHistoryOnDeletion
            }
            name = e.parent
        }
        return false
    }
}

/// The changes a commit from `before` to `after` must record: the model of expected history.
func expectedChanges(
    from before: [ObjectID: ObjectState], to after: [ObjectID: ObjectState], model: ObjectModel
) -> [ObjectID: ExpectedChange] {
    func held(_ v: PropertyValue) -> Bool {
        switch v {
        case let .attribute(x): return !x.isNull
        case let .toOne(x): return x != nil
        case let .toMany(x): return !x.isEmpty
        }
    }
    var result: [ObjectID: ExpectedChange] = [:]
    for (id, state) in after {
        guard let old = before[id] else {
            let properties = Set(state.values.filter { held($0.value) }.keys)
                .union(state.toManys.filter { !$0.value.isEmpty }.keys)
            result[id] = ExpectedChange(kind: .insert, properties: properties, tombstone: nil)
            continue
        }
        let changed = Set(state.values.keys.filter { state.values[$0] != old.values[$0] })
            .union(state.toManys.keys.filter { state.toManys[$0] != old.toManys[$0] })
        if !changed.isEmpty { result[id] = ExpectedChange(kind: .update, properties: changed, tombstone: nil) }
    }
    for (id, state) in before where after[id] == nil {
        var tombstone: [String: CdValue] = [:]
        for (name, value) in state.values where model.preserves(id.entity, name) {
            if case let .attribute(v) = value, !v.isNull { tombstone[name] = v }
        }
        result[id] = ExpectedChange(kind: .delete, properties: [], tombstone: tombstone)
    }
    return result
}

/// A recorded transaction's changes in the form of `expectedChanges`.
func recordedChanges(_ t: CdHistoryTransaction) -> [ObjectID: ExpectedChange] {
    var result: [ObjectID: ExpectedChange] = [:]
    for c in t.changes {
        #expect(result[c.objectID] == nil, "one change per object: \(c.objectID) twice in \(t.token)")
        result[c.objectID] = ExpectedChange(kind: c.kind, properties: c.updatedProperties, tombstone: c.tombstone)
    }
    return result
}

/// The changes of two commits' worth of changes made one after the other in one transaction (the
/// batches of a streaming write), by the rule a reader resolves a transaction's parts with: an
/// insert then an update is an insert with the properties of both, an insert then a delete is
/// nothing, an update then an update is an update with the properties of both, and a delete wins.
func composed(_ first: [ObjectID: ExpectedChange], _ then: [ObjectID: ExpectedChange]) -> [ObjectID: ExpectedChange] {
    var result = first
    for (id, c) in then {
        guard let earlier = result[id] else {
            result[id] = c
            continue
        }
        switch (earlier.kind, c.kind) {
        case (.insert, .delete): result[id] = nil
        case (.insert, _), (.update, .update):
            result[id] = ExpectedChange(kind: earlier.kind, properties: earlier.properties.union(c.properties))
        default: result[id] = c
        }
    }
    return result
}
