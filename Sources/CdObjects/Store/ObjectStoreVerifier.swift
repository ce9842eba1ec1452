// Object-level verification for the fsck tool: what the engine's checker cannot know about the
// trees this layer writes. Run over any engine transaction of a store written by ObjectStore.
//
// Checks, in order (each problem names entity, object, tree and key where it has them):
//   OV1. `cd.meta` holds a format version this code reads, a model that decodes, and its hash.
//   OV2. Every record decodes against its entity, lives in its hierarchy's tree, is of a concrete
//        entity, and has every required attribute.
//   OV3. Every index entry matches a record and every record has its index entries (EL2).
//   OV4. No two objects share the values of a uniqueness constraint (nil columns exempt).
//   OV5. To-one targets and to-many entries point at existing objects of the destination entity,
//        and inverses agree both ways.
// Dangling references left by a No Action delete rule are reported under OV5: they are what
// Core Data leaves too, but they are worth knowing about.

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
        guard let format = try meta.get(StoreLayout.metaFormatKey), format.count == 4, format[0] == StoreLayout.formatVersion,
              format[1...].allSatisfy({ $0 == 0 }) else {
            return [ObjectStoreProblem(tree: metaName, key: StoreLayout.metaFormatKey, message: "missing or unknown format version")]
        }
        guard let json = try meta.get(StoreLayout.metaModelKey) else {
            return [ObjectStoreProblem(tree: metaName, key: StoreLayout.metaModelKey, message: "the stored model is missing")]
        }
        let model: ObjectModel
        do { model = try JSONDecoder().decode(ObjectModel.self, from: Data(json)) } catch {
            return [ObjectStoreProblem(tree: metaName, key: StoreLayout.metaModelKey, message: "the stored model does not decode: \(error)")]
        }
        let hash = try meta.get(StoreLayout.metaHashKey).map { String(decoding: $0, as: UTF8.self) }
        if hash != model.versionHash {
            report(ObjectStoreProblem(tree: metaName, key: StoreLayout.metaHashKey,
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
                        report(ObjectStoreProblem(entity: root, tree: name, key: key, message: "record key is \(key.count) bytes, not 8"))
                        return true
                    }
                    let pk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
                    let rec: Record
                    do { rec = try RecordCodec.decode(value, layout: layout) } catch {
                        report(ObjectStoreProblem(entity: root, tree: name, key: key, message: "record \(pk) does not decode: \(error)"))
                        return true
                    }
                    let id = ObjectID(entity: rec.entity.name, primaryKey: pk)
                    guard rec.entity.root == root else {
                        report(ObjectStoreProblem(entity: rec.entity.name, objectID: id, tree: name, key: key,
                                                  message: "a \(rec.entity.name) record in the tree of hierarchy \(root)"))
                        return true
                    }
                    if rec.entity.isAbstract {
                        report(ObjectStoreProblem(entity: rec.entity.name, objectID: id, tree: name, key: key, message: "an instance of abstract entity \(rec.entity.name)"))
                    }
                    for (slot, a) in rec.entity.attributes.enumerated() where !a.isOptional && rec.values[slot].isNull {
                        report(ObjectStoreProblem(entity: rec.entity.name, objectID: id, tree: name, key: key, message: "required attribute \(a.name) is nil"))
                    }
                    byKey[pk] = rec
                    for index in rec.entity.indexes {
                        expected[index.definition.tree, default: []].insert(IndexKey.key(index, rec, primaryKey: pk))
                    }
                    return problems.count < maxProblems
                }
            }
            records[root] = byKey
        }
        func lookup(_ id: ObjectID) -> Record? {
            guard let e = layout.entities[id.entity], let r = records[e.root]?[id.primaryKey], r.entity === e else { return nil }
            return r
        }

        // OV3, OV4
        for d in layout.indexDefinitions {
            var missing = expected[d.tree] ?? []
            var previous: (prefix: [UInt8], id: ObjectID, record: Record)?
            if let t = try tx.tree(d.tree) {
                try t.scan { key, _ in
                    guard key.count > 8 else {
                        report(ObjectStoreProblem(entity: d.entity, tree: d.tree, key: key, message: "index key too short"))
                        return true
                    }
                    let pk = Int64(bitPattern: key.readBE(UInt64.self, at: key.count - 8))
                    guard missing.remove(key) != nil else {
                        report(ObjectStoreProblem(entity: d.entity, tree: d.tree, key: key, message: "index entry for primary key \(pk) matches no record"))
                        return true
                    }
                    let root = layout.entities[d.entity]!.root
                    guard let rec = records[root]?[pk], let index = rec.entity.indexes.first(where: { $0.definition == d }) else { return true }
                    let id = ObjectID(entity: rec.entity.name, primaryKey: pk)
                    let prefix = Array(key.dropLast(8))
                    if d.isUnique, let p = previous, p.prefix == prefix, !IndexKey.hasNilColumn(index, rec),
                       ChangeApplier.sameColumns(index, rec, p.record) {
                        report(ObjectStoreProblem(entity: rec.entity.name, objectID: id, tree: d.tree, key: key,
                                                  message: "uniqueness constraint (\(d.properties.joined(separator: ", "))) also held by \(p.id)"))
                    }
                    previous = (prefix, id, rec)
                    return problems.count < maxProblems
                }
            }
            for key in missing.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let pk = Int64(bitPattern: key.readBE(UInt64.self, at: key.count - 8))
                report(ObjectStoreProblem(entity: d.entity, tree: d.tree, key: key, message: "record \(pk) has no entry in index \(d.label)"))
            }
        }

        // OV5: to-one side.
        for root in layout.roots {
            for (pk, rec) in records[root] ?? [:] {
                let id = ObjectID(entity: rec.entity.name, primaryKey: pk)
                for (i, r) in rec.entity.toOnes.enumerated() {
                    guard let target = rec.toOne[i] else { continue }
                    let tree = rec.entity.recordTree
                    guard layout.isKind(target.entity, of: r.destination), let t = lookup(target) else {
                        report(ObjectStoreProblem(entity: rec.entity.name, objectID: id, tree: tree, key: RecordCodec.key(pk),
                                                  message: "\(r.name) points at \(target), which does not exist or is not a \(r.destination)"))
                        continue
                    }
                    guard let inverse = model.inverse(of: r.name, in: rec.entity.name) else { continue }
                    let agrees: Bool
                    if inverse.isToMany {
                        agrees = try stored.related(target, inverse, treeName: t.entity.toManyTrees[inverse.name]!).contains(id)
                    } else {
                        agrees = t.toOne[t.entity.toOneSlots[inverse.name]!] == id
                    }
                    if !agrees {
                        report(ObjectStoreProblem(entity: rec.entity.name, objectID: id, tree: tree, key: RecordCodec.key(pk),
                                                  message: "\(r.name) points at \(target) but its \(inverse.name) does not hold \(id)"))
                    }
                }
            }
        }
        // OV5: to-many trees.
        var seenTrees = Set<String>()
        for entity in layout.byCode {
            for r in entity.toManys {
                let name = entity.toManyTrees[r.name]!
                guard seenTrees.insert(name).inserted, let t = try tx.tree(name) else { continue }
                let owner = String(name.dropFirst("cd.rel.".count).dropLast(r.name.count + 1))
                try t.scan { key, value in
                    guard key.count == (r.isOrdered ? 12 : 16) else {
                        report(ObjectStoreProblem(entity: owner, tree: name, key: key, message: "relationship key is \(key.count) bytes"))
                        return true
                    }
                    let spk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
                    let target: ObjectID
                    do { target = try stored.decodeRelationshipEntry(key: key, value: value, ordered: r.isOrdered, tree: t) } catch {
                        report(ObjectStoreProblem(entity: owner, tree: name, key: key, message: "\(error)"))
                        return true
                    }
                    guard let source = records[entity.root]?[spk], layout.isKind(source.entity.name, of: owner) else {
                        report(ObjectStoreProblem(entity: owner, tree: name, key: key, message: "entry of \(r.name) for missing source object \(spk)"))
                        return true
                    }
                    let sid = ObjectID(entity: source.entity.name, primaryKey: spk)
                    guard layout.isKind(target.entity, of: r.destination), let tr = lookup(target) else {
                        report(ObjectStoreProblem(entity: owner, objectID: sid, tree: name, key: key,
                                                  message: "\(r.name) holds \(target), which does not exist or is not a \(r.destination)"))
                        return true
                    }
                    if let inverse = model.inverse(of: r.name, in: source.entity.name) {
                        let agrees: Bool
                        if inverse.isToMany {
                            agrees = try stored.related(target, inverse, treeName: tr.entity.toManyTrees[inverse.name]!).contains(sid)
                        } else {
                            agrees = tr.toOne[tr.entity.toOneSlots[inverse.name]!] == sid
                        }
                        if !agrees {
                            report(ObjectStoreProblem(entity: owner, objectID: sid, tree: name, key: key,
                                                      message: "\(r.name) holds \(target) but its \(inverse.name) does not hold \(sid)"))
                        }
                    }
                    return problems.count < maxProblems
                }
            }
        }
        return problems
    }
}
