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
//   OV7. Checking that an inverse holds an object costs a bounded number of look-ups, whatever the
//        size of the list holding it, and checking a store keeps no copy of its records, index
//        entries or lists: records are read by key when a question needs them
//        (VerifierRecordLookup.swift), an unordered to-many entry is found by its key
//        (source ‖ target), and questions about ordered lists are tallied
//        (OrderedListMembership.swift; RC1–RC3 of ObjectStoreVerifier+Relationships.swift).
//        Reading a whole list per question made a store of 1M objects in 100 lists take hours;
//        keeping every record made the check of an imported 1M-object store hold 413 MiB.
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

        // OV2, with OV3's first half (each record has its index entries) and OV5's to-ones, in one
        // scan of each record tree that keeps no record (RC1).
        let records = VerifierRecordLookup(tx: tx, layout: layout)
        let relationships = RelationshipChecks(
            tx: tx, layout: layout, records: records, report: report, isFull: { problems.count >= maxProblems })
        var indexTrees: [String: Tree?] = [:]
        // The entries of each index tree that the record pass found.
        var indexed: [String: Int] = [:]
        func indexHolds(_ tree: String, _ key: [UInt8]) throws -> Bool {
            if indexTrees[tree] == nil { indexTrees[tree] = .some(try tx.tree(tree)) }
            return try indexTrees[tree]??.get(key) != nil
        }
        for root in layout.roots {
            let name = StoreLayout.recordTreeName(root: root)
            var largest: Int64?
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
                    largest = max(largest ?? pk, pk)
                    for index in rec.entity.indexes {
                        let d = index.definition
                        let entry = IndexKey.key(index, rec, primaryKey: pk)
                        if try indexHolds(d.tree, entry) {
                            indexed[d.tree, default: 0] += 1
                        } else {
                            report(
                                ObjectStoreProblem(
                                    entity: d.entity, tree: d.tree, key: entry,
                                    message: "record \(pk) has no entry in index \(d.label)"))
                        }
                    }
                    try relationships.checkToOnes(of: rec, primaryKey: pk)
                    return problems.count < maxProblems
                }
            }
            let nextKey = StoreLayout.nextKeyKey(root: root)
            if let value = try meta.get(nextKey) {
                if let next = StoreLayout.decodeNextKey(value) {
                    if let largest, largest >= next {
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

        /// The record with `pk` whose entry in index `d` is `key`, with the index, or nil.
        func recordOf(_ d: IndexDefinition, _ pk: Int64, matching key: [UInt8]) throws -> (Record, IndexLayout)? {
            guard let root = layout.entities[d.entity]?.root, let rec = try records.record(root: root, pk),
                let index = rec.entity.indexes.first(where: { $0.definition == d }),
                IndexKey.key(index, rec, primaryKey: pk) == key
            else { return nil }
            return (rec, index)
        }
        /// Reports entry `key` (of `pk`) when its record holds the same values of uniqueness
        /// constraint `d` as the record of the entry before it (nil values exempt).
        func checkUniqueness(_ d: IndexDefinition, _ key: [UInt8], _ pk: Int64, against previous: Int64) throws {
            guard let (rec, index) = try recordOf(d, pk, matching: key), !IndexKey.hasNilColumn(index, rec),
                let root = layout.entities[d.entity]?.root, let other = try records.record(root: root, previous),
                ChangeApplier.sameColumns(index, rec, other)
            else { return }
            report(
                ObjectStoreProblem(
                    entity: rec.entity.name, objectID: rec.entity.objectID(pk), tree: d.tree, key: key,
                    message:
                        "uniqueness constraint (\(d.properties.joined(separator: ", "))) also held by "
                        + "\(other.entity.objectID(previous))"))
        }

        // OV3's second half (each index entry is its record's) and OV4 (uniqueness). The record
        // pass found every entry it expects, so a tree holding just as many has no other entry:
        // only a tree with more is read again, entry by entry, to name them. Equal leading
        // columns of two neighbouring entries of a uniqueness constraint are the only entries
        // whose records are read here.
        for d in layout.indexDefinitions {
            guard let t = try tx.tree(d.tree) else { continue }
            var entries = 0
            var previous: (prefix: ArraySlice<UInt8>, pk: Int64)?
            try t.scan { key, _ in
                guard let pk = IndexKey.primaryKey(ofEntry: key) else {
                    report(ObjectStoreProblem(entity: d.entity, tree: d.tree, key: key, message: "index key too short"))
                    return true
                }
                entries += 1
                let prefix = key.dropLast(8)
                if d.isUnique, let p = previous, p.prefix == prefix {
                    try checkUniqueness(d, key, pk, against: p.pk)
                }
                previous = (prefix, pk)
                return problems.count < maxProblems
            }
            guard entries != indexed[d.tree, default: 0], problems.count < maxProblems else { continue }
            try t.scan { key, _ in
                guard let pk = IndexKey.primaryKey(ofEntry: key) else { return true }
                if try recordOf(d, pk, matching: key) == nil {
                    report(
                        ObjectStoreProblem(
                            entity: d.entity, tree: d.tree, key: key,
                            message: "index entry for primary key \(pk) matches no record"))
                }
                return problems.count < maxProblems
            }
        }
        // OV5: to-many trees, then the exact answers about ordered lists whose tallies disagree.
        try relationships.checkToManyTrees()
        let disagreeing = relationships.disagreeingOrderedTrees
        if !disagreeing.isEmpty, problems.count < maxProblems {
            try relationships.recheckOrderedLists(disagreeing)
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
