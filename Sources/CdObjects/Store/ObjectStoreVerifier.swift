// Object-level verification for the fsck tool: what the engine's checker cannot know about the
// trees this layer writes. Run over any engine transaction of a store written by ObjectStore.
//
// Checks, in order (each problem names entity, object, tree and key where it has them):
//   OV1. `cd.meta` holds a format version this code reads (`StoreLayout.formatProblem`, the check
//        `ObjectStore.open` refuses a store with), a model that decodes, and its hash; each root's
//        next key is a key (u64 LE ≥ 1) above every stored primary key of the root.
//   OV2. Every record decodes against its entity, lives in its hierarchy's tree, is of a concrete
//        entity, and has every required attribute.
//   OV3. Every index entry matches a record and every record has its index entries (EL2).
//   OV4. No two objects share the values of a uniqueness constraint (nil columns exempt).
//   OV5. To-one targets and to-many entries point at existing objects of the destination entity,
//        and inverses agree both ways; an ordered list's positions run 0, 1, 2, … without a gap
//        and name no object twice.
//   OV6. Every `cd.` tree is one the stored model names (a record, index or relationship tree):
//        trees are created on first write and the stored shape never changes, so any other is
//        damage — such as a stored model that marks one side of a relationship transient.
//   OV8. The persistent history (HistoryLayout.swift): a 16-byte history ID when there is a
//        history; transaction numbers that grow by one with no gap (HS1); each transaction a
//        header and parts 1…k as its header counts (HS2); every change decoding against the
//        stored model, naming its entities and their properties (HS3).
//   OV7. Checking that an inverse holds an object costs one look-up, whatever the size of the
//        list holding it: an unordered to-many entry is found by its key (source ‖ target), and
//        an ordered tree's members are read once into a set (its keys are positions). Reading the
//        whole list per question made a store of 1M objects in 100 lists take hours.
// Dangling references left by a No Action delete rule are reported under OV5: they are what
// Core Data leaves too, but they are worth knowing about.
//
// Every byte checked here comes from the file, so a damaged value is a problem, never a trap or
// a thrown error: `verify` throws only what the engine throws when it cannot read a page.

import CdStore
import Foundation

/// One problem found by ``ObjectStoreVerifier``.
public struct ObjectStoreProblem: Sendable, Hashable, CustomStringConvertible {
    /// The entity concerned, when known.
    public var entity: String?
    /// The object concerned, when known.
    public var objectID: ObjectID?
    /// The engine tree where the problem was found.
    public var tree: String
    /// The key inside `tree`, when the problem is about one entry.
    public var key: [UInt8]?
    /// What is wrong, in words.
    public var message: String

    /// A problem found at `tree` (and `key`), about `entity`/`objectID` when known.
    public init(entity: String? = nil, objectID: ObjectID? = nil, tree: String, key: [UInt8]? = nil, message: String) {
        self.entity = entity
        self.objectID = objectID
        self.tree = tree
        self.key = key
        self.message = message
    }

    public var description: String {
        var where_ = tree
        if let key { where_ += " key " + key.map { String(format: "%02x", $0) }.joined() }
        if let objectID { where_ += " (\(objectID))" } else if let entity { where_ += " (\(entity))" }
        return "\(where_): \(message)"
    }
}

/// Checks the object-level structure of a store (OV1–OV5).
///
/// ```swift
/// let problems = try store.read { tx in try ObjectStoreVerifier().verify(tx) }
/// for p in problems { print(p) }
/// ```
public struct ObjectStoreVerifier: Sendable {
    /// Stop after this many problems.
    public var maxProblems: Int

    /// A verifier that reports at most `maxProblems` problems.
    public init(maxProblems: Int = 1000) { self.maxProblems = maxProblems }

    /// The problems of the store seen by `tx`; empty when it is consistent. Throws only when the
    /// engine itself fails to read.
    public func verify(_ tx: Transaction) throws -> [ObjectStoreProblem] {
        var problems: [ObjectStoreProblem] = []
        func report(_ p: ObjectStoreProblem) { if problems.count < maxProblems { problems.append(p) } }
        // OV1
        let metaName = StoreLayout.metaTree
        guard let meta = try tx.tree(metaName) else {
            return [ObjectStoreProblem(tree: metaName, message: "the meta tree is missing: not an object store")]
        }
        if let problem = StoreLayout.formatProblem(try meta.get(StoreLayout.metaFormatKey)) {
            return [ObjectStoreProblem(tree: metaName, key: StoreLayout.metaFormatKey, message: problem.description)]
        }
        guard let json = try meta.get(StoreLayout.metaModelKey) else {
            return [
                ObjectStoreProblem(
                    tree: metaName, key: StoreLayout.metaModelKey, message: "the stored model is missing")
            ]
        }
        let model: ObjectModel
        do { model = try JSONDecoder().decode(ObjectModel.self, from: Data(json)) } catch {
            return [
                ObjectStoreProblem(
                    tree: metaName, key: StoreLayout.metaModelKey, message: "the stored model does not decode: \(error)"
                )
            ]
        }
        let hash = try meta.get(StoreLayout.metaHashKey).map { String(decoding: $0, as: UTF8.self) }
        if hash != model.versionHash {
            report(
                ObjectStoreProblem(
                    tree: metaName, key: StoreLayout.metaHashKey,
                    message: "stored version hash \(hash ?? "nil") is not the stored model's \(model.versionHash)"))
        }
        let layout = StoreLayout(model: model)
        let stored = StoredObjects(tx: tx, layout: layout)

        // OV2: records, and the index entries they imply.
        var records: [String: [Int64: Record]] = [:]
        var expected: [String: Set<[UInt8]>] = [:]
        for root in layout.roots {
            let name = StoreLayout.recordTreeName(root: root)
            var byKey: [Int64: Record] = [:]
            if let t = try tx.tree(name) {
                try t.scan { key, value in
                    guard key.count == 8 else {
                        report(
                            ObjectStoreProblem(
                                entity: root, tree: name, key: key, message: "record key is \(key.count) bytes, not 8"))
                        return true
                    }
                    let pk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
                    guard pk >= 1 else {
                        report(
                            ObjectStoreProblem(
                                entity: root, tree: name, key: key, message: "primary key \(pk) is below 1"))
                        return true
                    }
                    let rec: Record
                    do { rec = try RecordCodec.decode(value, layout: layout) } catch {
                        report(
                            ObjectStoreProblem(
                                entity: root, tree: name, key: key, message: "record \(pk) does not decode: \(error)"))
                        return true
                    }
                    let id = rec.entity.objectID(pk)
                    guard rec.entity.root == root else {
                        report(
                            ObjectStoreProblem(
                                entity: rec.entity.name, objectID: id, tree: name, key: key,
                                message: "a \(rec.entity.name) record in the tree of hierarchy \(root)"))
                        return true
                    }
                    if rec.entity.isAbstract {
                        report(
                            ObjectStoreProblem(
                                entity: rec.entity.name, objectID: id, tree: name, key: key,
                                message: "an instance of abstract entity \(rec.entity.name)"))
                    }
                    for (slot, a) in rec.entity.attributes.enumerated() where !a.isOptional && rec.values[slot].isNull {
                        report(
                            ObjectStoreProblem(
                                entity: rec.entity.name, objectID: id, tree: name, key: key,
                                message: "required attribute \(a.name) is nil"))
                    }
                    byKey[pk] = rec
                    for index in rec.entity.indexes {
                        expected[index.definition.tree, default: []].insert(IndexKey.key(index, rec, primaryKey: pk))
                    }
                    return problems.count < maxProblems
                }
            }
            records[root] = byKey
            let nextKey = StoreLayout.nextKeyKey(root: root)
            if let value = try meta.get(nextKey) {
                if let next = StoreLayout.decodeNextKey(value) {
                    if let largest = byKey.keys.max(), largest >= next {
                        report(
                            ObjectStoreProblem(
                                entity: root, tree: metaName, key: nextKey,
                                message: "next key \(next) of \(root) is not above its stored key \(largest)"))
                    }
                } else {
                    report(
                        ObjectStoreProblem(
                            entity: root, tree: metaName, key: nextKey,
                            message:
                                "next key of \(root) is \(value.count) bytes that are not a primary key of 1 or more"))
                }
            }
        }
        func lookup(_ id: ObjectID) -> Record? {
            guard let e = layout.entity(of: id), let r = records[e.root]?[id.primaryKey], r.entity === e else {
                return nil
            }
            return r
        }
        // The members of each ordered to-many tree, read once on first need (OV7).
        var orderedLists: [String: OrderedListMembers] = [:]
        /// Whether `target`'s stored `inverse` holds `member`; nil when that side cannot be read
        /// (a damaged entry there is reported by the pass over its own tree). Keeps OV7: one
        /// look-up per question, never a read of `target`'s whole list.
        func inverseHolds(
            _ target: ObjectID, _ targetRecord: Record, _ inverse: RelationshipDescription, _ member: ObjectID
        ) throws -> Bool? {
            if !inverse.isToMany {
                return targetRecord.entity.toOneSlots[inverse.name].map { targetRecord.toOne[$0] == member }
            }
            guard let treeName = targetRecord.entity.toManyTrees[inverse.name] else { return nil }
            guard let tree = try tx.tree(treeName) else { return false }
            if inverse.isOrdered {
                if orderedLists[treeName] == nil {
                    orderedLists[treeName] = try OrderedListMembers(tree, inverse, stored)
                }
                return orderedLists[treeName]?.holds(target.primaryKey, member)
            }
            // An unordered entry is keyed by both primary keys: one get.
            let key = RecordCodec.key(target.primaryKey) + RecordCodec.key(member.primaryKey)
            guard let value = try tree.get(key) else { return false }
            do {
                return try stored.decodeRelationshipEntry(key: key, value: value, relationship: inverse, tree: tree)
                    == member
            } catch is CdError {
                return nil
            }
        }

        // OV3, OV4
        for d in layout.indexDefinitions {
            var missing = expected[d.tree] ?? []
            var previous: (prefix: [UInt8], id: ObjectID, record: Record)?
            if let t = try tx.tree(d.tree) {
                try t.scan { key, _ in
                    guard let pk = IndexKey.primaryKey(ofEntry: key) else {
                        report(
                            ObjectStoreProblem(entity: d.entity, tree: d.tree, key: key, message: "index key too short")
                        )
                        return true
                    }
                    guard missing.remove(key) != nil else {
                        report(
                            ObjectStoreProblem(
                                entity: d.entity, tree: d.tree, key: key,
                                message: "index entry for primary key \(pk) matches no record"))
                        return true
                    }
                    guard let root = layout.entities[d.entity]?.root, let rec = records[root]?[pk],
                        let index = rec.entity.indexes.first(where: { $0.definition == d })
                    else { return true }
                    let id = rec.entity.objectID(pk)
                    let prefix = Array(key.dropLast(8))
                    if d.isUnique, let p = previous, p.prefix == prefix, !IndexKey.hasNilColumn(index, rec),
                        ChangeApplier.sameColumns(index, rec, p.record)
                    {
                        report(
                            ObjectStoreProblem(
                                entity: rec.entity.name, objectID: id, tree: d.tree, key: key,
                                message:
                                    "uniqueness constraint (\(d.properties.joined(separator: ", "))) "
                                    + "also held by \(p.id)"
                            ))
                    }
                    previous = (prefix, id, rec)
                    return problems.count < maxProblems
                }
            }
            for key in missing.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let pk = Int64(bitPattern: key.readBE(UInt64.self, at: key.count - 8))
                report(
                    ObjectStoreProblem(
                        entity: d.entity, tree: d.tree, key: key,
                        message: "record \(pk) has no entry in index \(d.label)"))
            }
        }

        // OV5: to-one side.
        for root in layout.roots {
            for (pk, rec) in records[root] ?? [:] {
                let id = rec.entity.objectID(pk)
                for (i, r) in rec.entity.toOnes.enumerated() {
                    guard let target = rec.toOne[i] else { continue }
                    let tree = rec.entity.recordTree
                    guard layout.isKind(target.entity, of: r.destination), let t = lookup(target) else {
                        report(
                            ObjectStoreProblem(
                                entity: rec.entity.name, objectID: id, tree: tree, key: RecordCodec.key(pk),
                                message:
                                    "\(r.name) points at \(target), which does not exist or is not a \(r.destination)"))
                        continue
                    }
                    guard let inverse = rec.entity.inverses[r.name] else { continue }
                    if try inverseHolds(target, t, inverse, id) == false {
                        report(
                            ObjectStoreProblem(
                                entity: rec.entity.name, objectID: id, tree: tree, key: RecordCodec.key(pk),
                                message: "\(r.name) points at \(target) but its \(inverse.name) does not hold \(id)"))
                    }
                }
            }
        }
        // OV5: to-many trees.
        var seenTrees = Set<String>()
        for entity in layout.byCode {
            for r in entity.toManys {
                guard let name = entity.toManyTrees[r.name], seenTrees.insert(name).inserted, let t = try tx.tree(name)
                else { continue }
                let owner = String(name.dropFirst("cd.rel.".count).dropLast(r.name.count + 1))
                // The ordered list being scanned: its source, the position due next, its targets.
                var list: (source: Int64, next: UInt64, targets: Set<ObjectID>)?
                try t.scan { key, value in
                    guard key.count == (r.isOrdered ? 12 : 16) else {
                        report(
                            ObjectStoreProblem(
                                entity: owner, tree: name, key: key, message: "relationship key is \(key.count) bytes"))
                        return true
                    }
                    let spk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
                    if r.isOrdered {
                        // UInt64: a stored position of u32 max must not overflow the next one.
                        let position = UInt64(key.readBE(UInt32.self, at: 8))
                        if list?.source != spk { list = (spk, 0, []) }
                        if position != list?.next {
                            report(
                                ObjectStoreProblem(
                                    entity: owner, tree: name, key: key,
                                    message:
                                        "position \(position) of \(r.name) of \(spk) where \(list?.next ?? 0) is due"))
                        }
                        list?.next = position + 1
                    }
                    let target: ObjectID
                    do {
                        target = try stored.decodeRelationshipEntry(key: key, value: value, relationship: r, tree: t)
                    } catch {
                        report(ObjectStoreProblem(entity: owner, tree: name, key: key, message: "\(error)"))
                        return true
                    }
                    guard let source = records[entity.root]?[spk], layout.isKind(source.entity.name, of: owner) else {
                        report(
                            ObjectStoreProblem(
                                entity: owner, tree: name, key: key,
                                message: "entry of \(r.name) for missing source object \(spk)"))
                        return true
                    }
                    let sid = source.entity.objectID(spk)
                    if r.isOrdered, list?.targets.insert(target).inserted == false {
                        report(
                            ObjectStoreProblem(
                                entity: owner, objectID: sid, tree: name, key: key,
                                message: "\(r.name) holds \(target) twice"))
                    }
                    guard layout.isKind(target.entity, of: r.destination), let tr = lookup(target) else {
                        report(
                            ObjectStoreProblem(
                                entity: owner, objectID: sid, tree: name, key: key,
                                message: "\(r.name) holds \(target), which does not exist or is not a \(r.destination)")
                        )
                        return true
                    }
                    if let inverse = source.entity.inverses[r.name], try inverseHolds(target, tr, inverse, sid) == false
                    {
                        report(
                            ObjectStoreProblem(
                                entity: owner, objectID: sid, tree: name, key: key,
                                message: "\(r.name) holds \(target) but its \(inverse.name) does not hold \(sid)"))
                    }
                    return problems.count < maxProblems
                }
            }
        }
        // OV8 (ObjectStoreVerifier+History.swift)
        try verifyHistory(tx, meta: meta, layout: layout, report: report)
        // V6
        var known = Set(
            [metaName, HistoryLayout.tree] + layout.roots.map(StoreLayout.recordTreeName(root:))
                + layout.indexDefinitions.map(\.tree))
        for entity in layout.byCode { known.formUnion(entity.toManyTrees.values) }
        for name in try tx.treeNames() where name.hasPrefix("cd.") && !known.contains(name) {
            report(
                ObjectStoreProblem(
                    tree: name, message: "no entity, index or relationship of the stored model has tree \(name)"))
        }
        return problems
    }
}

/// The (source, target) pairs of one ordered to-many tree, read in one scan (OV7); sources with
/// an entry that does not decode are noted, so that questions about them get no answer (the pass
/// over the tree reports the damage itself).
struct OrderedListMembers {
    private var pairs: Set<Pair> = []
    private var damagedSources: Set<Int64> = []

    private struct Pair: Hashable {
        let source: Int64
        let target: ObjectID
    }

    init(_ tree: Tree, _ relationship: RelationshipDescription, _ stored: StoredObjects) throws {
        try tree.scan { key, value in
            guard key.count >= 8 else { return true }
            let source = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
            do {
                let target = try stored.decodeRelationshipEntry(
                    key: key, value: value, relationship: relationship, tree: tree)
                pairs.insert(Pair(source: source, target: target))
            } catch is CdError {
                damagedSources.insert(source)
            }
            return true
        }
    }

    /// Whether `source`'s list holds `target`; nil when one of its entries does not decode.
    func holds(_ source: Int64, _ target: ObjectID) -> Bool? {
        damagedSources.contains(source) ? nil : pairs.contains(Pair(source: source, target: target))
    }
}
