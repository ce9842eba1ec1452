// The change set an applier works from, in slot form: each object's values indexed by the
// entity's slots (PS2 in EntityLayout+PropertySlots.swift: record slots, then to-many slots),
// however the change set arrived. A `SlotChangeSet` from the object layer is taken as it is; a
// public `ChangeSet` (values by name) is converted once, checking each name (1550).
//
// Invariants:
//  SC1. `insertedOrder` lists the indexes of `inserted` sorted by (primary key, entity name), so
//       a binary search by primary key finds an inserted object without a hash table (a bulk
//       insert of a million objects keeps 8 bytes per object for it, not a dictionary entry).
//  SC2. Every value at a slot below the entity's stored count has the slot's kind: an
//       attribute in an attribute slot, a to-one target in a to-one slot, a to-many list in a
//       to-many slot. Slots past the stored ones are dropped.
//  SC3. `toOnesRelated[i]` to-one slots of inserted object `i` (in `EntityLayout.toOnes` order)
//       were set by phase 2 without a working-set record: `record(_:)` stages those from the
//       values and leaves the later ones nil until phase 2 reaches them.

import CdStore

/// One object of a staged change set.
struct StagedObject {
    let id: ObjectID
    let entity: EntityLayout
    /// Values by slot (SC2); nil: not given.
    let values: [PropertyValue?]
    /// Links added and removed, by to-many position (in `EntityLayout.toManys`).
    var deltas: [Int: ToManyDelta] = [:]
    /// The values the transaction read, by slot, for conflict detection (`ChangeSet.read`).
    var read: [PropertyValue?]?

    /// Whether any relationship value is given.
    var relates: Bool {
        if !deltas.isEmpty { return true }
        let start = entity.attributes.count
        guard values.count > start else { return false }
        for slot in start..<values.count where values[slot] != nil { return true }
        return false
    }

    /// The given value of to-one `position` (in `EntityLayout.toOnes`), if any.
    func toOne(_ position: Int) -> PropertyValue? {
        let slot = entity.attributes.count + position
        return slot < values.count ? values[slot] : nil
    }

    /// The given value of to-many `position` (in `EntityLayout.toManys`), if any.
    func toMany(_ position: Int) -> PropertyValue? {
        let slot = entity.attributes.count + entity.toOnes.count + position
        return slot < values.count ? values[slot] : nil
    }
}

/// A change set in slot form with lookups by object ID (SC1–SC3).
struct StagedChanges {
    var inserted: [StagedObject] = []
    /// Indexes of `inserted` by primary key (SC1).
    var insertedOrder: [Int] = []
    var updated: [StagedObject] = []
    var updatedIndex: [ObjectID: Int] = [:]
    /// Per inserted object: to-one slots set by phase 2 so far (SC3).
    var toOnesRelated: [Int] = []

    /// The index in `inserted` of `id`, by binary search (SC1).
    func insertedIndex(_ id: ObjectID) -> Int? {
        var low = 0, high = insertedOrder.count
        while low < high {
            let mid = (low + high) / 2
            if inserted[insertedOrder[mid]].id.primaryKey < id.primaryKey { low = mid + 1 } else { high = mid }
        }
        while low < insertedOrder.count {
            let candidate = inserted[insertedOrder[low]]
            guard candidate.id.primaryKey == id.primaryKey else { return nil }
            if candidate.id.entityCode == id.entityCode { return insertedOrder[low] }
            low += 1
        }
        return nil
    }

    func isInserted(_ id: ObjectID) -> Bool { insertedIndex(id) != nil }

    /// Sorts `insertedOrder` (keeps SC1); free when the objects came in key order.
    mutating func index() {
        insertedOrder = Array(inserted.indices)
        toOnesRelated = Array(repeating: 0, count: inserted.count)
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let x = inserted[a].id, y = inserted[b].id
            return x.primaryKey != y.primaryKey ? x.primaryKey < y.primaryKey : x.entity < y.entity
        }
        var sorted = true
        for i in insertedOrder.indices.dropFirst() where !precedes(insertedOrder[i - 1], insertedOrder[i]) {
            sorted = false
            break
        }
        if !sorted { insertedOrder.sort(by: precedes) }
        updatedIndex = Dictionary(updated.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { _, last in last })
    }
}

extension ChangeApplier {
    /// The change set in slot form, checking kinds (1550, keeps SC2).
    func stageChanges() throws -> StagedChanges {
        var staged = StagedChanges()
        switch source {
        case let .named(changes):
            // In ID order, so that the first error reported does not depend on hashing.
            for id in changes.inserted.keys.sorted() {
                staged.inserted.append(try stagedObject(id, named: changes.inserted[id]!))
            }
            for id in Set(changes.updated.keys).union(changes.toManyDeltas.keys).sorted() {
                var object = try stagedObject(id, named: changes.updated[id] ?? [:])
                for (name, delta) in changes.toManyDeltas[id] ?? [:] where !delta.isEmpty {
                    guard let position = object.entity.toManys.firstIndex(where: { $0.name == name }) else {
                        throw CdError.validation(
                            ValidationFailure(
                                entity: object.entity.name, objectID: id.description, key: name,
                                message: "\(name) is not a to-many relationship of \(object.entity.name)"))
                    }
                    object.deltas[position] = delta
                }
                if let read = changes.read[id] {
                    var slots = [PropertyValue?](repeating: nil, count: object.entity.attributes.count)
                    for (name, value) in read {
                        if let s = object.entity.attributeSlots[name] { slots[s] = .attribute(value) }
                    }
                    object.read = slots
                }
                staged.updated.append(object)
            }
        case let .slots(changes):
            staged.inserted.reserveCapacity(changes.inserted.count)
            for entry in changes.inserted { staged.inserted.append(try stagedObject(entry)) }
            for entry in changes.updated { staged.updated.append(try stagedObject(entry)) }
        }
        staged.index()
        return staged
    }

    /// One object of a public change set, its names resolved to slots.
    private func stagedObject(_ id: ObjectID, named values: [String: PropertyValue]) throws -> StagedObject {
        let entity = try entityLayoutOrThrow(of: id)
        try checkProperties(values, of: entity, id: id)
        let a = entity.attributes.count, t = entity.toOnes.count
        var slots = [PropertyValue?](repeating: nil, count: a + t + entity.toManys.count)
        for (key, value) in values {
            if let s = entity.attributeSlots[key] {
                slots[s] = value
            } else if let s = entity.toOneSlots[key] {
                slots[a + s] = value
            } else if let s = entity.toManys.firstIndex(where: { $0.name == key }) {
                slots[a + t + s] = value
            }
        }
        return StagedObject(id: id, entity: entity, values: slots)
    }

    /// One object of a slot change set, its values checked against the slots' kinds (SC2).
    private func stagedObject(_ entry: SlotChangeSet.Entry) throws -> StagedObject {
        let entity = try entityLayoutOrThrow(of: entry.id)
        let a = entity.attributes.count, t = entity.toOnes.count, stored = a + t + entity.toManys.count
        var values = entry.values
        if values.count > stored { values.removeLast(values.count - stored) }
        for (slot, value) in values.enumerated() {
            guard let value else { continue }
            let ok: Bool
            switch value {
            case .attribute: ok = slot < a
            case .toOne: ok = slot >= a && slot < a + t
            case .toMany: ok = slot >= a + t
            }
            guard ok else {
                let name =
                    slot < a
                    ? entity.attributes[slot].name
                    : slot < a + t ? entity.toOnes[slot - a].name : entity.toManys[slot - a - t].name
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: entry.id.description, key: name,
                        message: "slot \(slot) of \(entity.name) (\(name)) does not take \(value)"))
            }
        }
        var object = StagedObject(id: entry.id, entity: entity, values: values, read: entry.read)
        for (slot, delta) in entry.deltas where !delta.isEmpty {
            let position = slot - a - t
            guard position >= 0, position < entity.toManys.count else {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: entry.id.description, key: "slot \(slot)",
                        message: "slot \(slot) of \(entity.name) is not a to-many relationship"))
            }
            object.deltas[position] = delta
        }
        return object
    }
}

/// The members added to and removed from an unordered to-many list that was not read (CA2).
struct ListDelta {
    private(set) var added: Set<ObjectID> = []
    private(set) var removed: Set<ObjectID> = []

    mutating func add(_ member: ObjectID) {
        if removed.remove(member) == nil { added.insert(member) }
    }

    mutating func remove(_ member: ObjectID) {
        if added.remove(member) == nil { removed.insert(member) }
    }
}
