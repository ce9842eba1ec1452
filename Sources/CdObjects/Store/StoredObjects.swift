// Reading stored objects from an engine transaction: records by primary key and to-many lists
// from relationship trees. Shared by the change applier, snapshots, queries and the verifier.
//
// Relationship tree keys (docs/FORMAT.md §Relationships):
//   unordered  source pk (u64 BE) ‖ target pk (u64 BE)   → varint target entity code
//   ordered    source pk (u64 BE) ‖ position (u32 BE)    → varint target entity code ‖ varint target pk

import CdStore

/// Stored-object reads within one transaction. Trees are looked up once and reused.
final class StoredObjects {
    let tx: Transaction
    let layout: StoreLayout
    private var treeCache: [String: Tree?] = [:]
    /// Whether `tx` is a read transaction, whose trees never change.
    private let isSnapshot: Bool
    /// The lookup cursor of the record tree last read by `record(_:)`, kept only in a read
    /// transaction, so that successive reads of one tree reuse the path of the previous one.
    private var lookup: (root: PageNumber, cursor: BTreeCursor)?
    /// The most threads one query's read may use (QueryExecutor+Parallel QP2): the store's
    /// `readThreads` option; tests set it to compare reads on one thread and on several.
    var readThreads: Int

    init(tx: Transaction, layout: StoreLayout) {
        self.tx = tx
        self.layout = layout
        self.isSnapshot = tx is ReadTransaction
        self.readThreads = tx.store.readThreads
    }

    /// Forgets the trees and the lookup cursor found so far, for a transaction that moved to
    /// another commit.
    func forgetTrees() {
        treeCache = [:]
        lookup = nil
    }

    /// The tree named `name`, nil when it was never created (nothing stored in it yet).
    func tree(_ name: String) throws -> Tree? {
        if let t = treeCache[name] { return t }
        let t = try tx.tree(name)
        treeCache[name] = t
        return t
    }

    /// The writable tree named `name`, created when missing.
    func writableTree(_ name: String) throws -> Tree {
        if let t = treeCache[name] ?? nil { return t }
        guard let w = tx as? WriteTransaction else { throw CdError.store(.readOnly(path: tx.store.path)) }
        let t = try w.openOrCreateTree(name)
        treeCache[name] = t
        return t
    }

    /// The stored record of `id`, or nil when there is none (or the key holds another entity).
    func record(_ id: ObjectID) throws -> Record? {
        guard let entity = layout.entity(of: id), let t = try tree(entity.recordTree) else { return nil }
        // The key is lent from the stack, the value copied once for the decoder (BL1).
        let key = UInt64(bitPattern: id.primaryKey)
        let decoded = { (value: UnsafeRawBufferPointer?) in
            try value.map { try self.decode(Array($0), tree: t, primaryKey: id.primaryKey) }
        }
        let record: Record?
        if isSnapshot {
            let cursor: BTreeCursor
            if let lookup, lookup.root == t.root {
                cursor = lookup.cursor
            } else {
                cursor = t.lookupCursor()
                lookup = (t.root, cursor)
            }
            record = try Tree.withValue(forBigEndianKey: key, using: cursor, decoded)
        } else {
            record = try t.withValue(forBigEndianKey: key, decoded)
        }
        guard let record else { return nil }
        return record.entity === entity ? record : nil
    }

    /// Removes the stored record of `id` and returns it, reading its leaf once (ChangeApplier+Delete
    /// D3); nil, removing nothing, when there is none or the key holds another entity. Only in a
    /// write transaction.
    func takeRecord(_ id: ObjectID) throws -> Record? {
        guard let entity = layout.entity(of: id), let t = try tree(entity.recordTree) else { return nil }
        return try t.take(RecordCodec.key(id.primaryKey)) { value -> Record? in
            let record = try self.decode(Array(value), tree: t, primaryKey: id.primaryKey)
            return record.entity === entity ? record : nil
        }
    }

    func decode(_ bytes: [UInt8], tree: Tree, primaryKey: Int64) throws -> Record {
        do {
            return try RecordCodec.decode(bytes, layout: layout)
        } catch let error as RecordDecodingError {
            throw corruption(tree, "record \(primaryKey): \(error.message)")
        }
    }

    /// The primary key at the end of an index entry read from `tree`; an entry too short to hold
    /// one is corruption, never a read before its first byte.
    func primaryKey(ofIndexEntry key: [UInt8], in tree: Tree) throws -> Int64 {
        guard let pk = IndexKey.primaryKey(ofEntry: key) else {
            throw corruption(tree, "index entry \(key) is too short to end in a primary key")
        }
        return pk
    }

    /// `primaryKey(ofIndexEntry:in:)` of an entry lent by a scan (BL1).
    func primaryKey(ofIndexEntry key: UnsafeRawBufferPointer, in tree: Tree) throws -> Int64 {
        guard let pk = IndexKey.primaryKey(ofEntry: key) else {
            throw corruption(tree, "index entry \(Array(key)) is too short to end in a primary key")
        }
        return pk
    }

    /// A corruption error located at the tree's root page, naming the tree.
    func corruption(_ tree: Tree, _ detail: String) -> CdError {
        .store(.corruption(path: tx.store.path, location: .page(tree.root), detail: "tree \(tree.name): \(detail)"))
    }

    /// The targets of a stored to-many relationship, in order for an ordered one, else by key.
    func related(_ id: ObjectID, _ relationship: RelationshipDescription, treeName: String) throws -> [ObjectID] {
        guard let t = try tree(treeName) else { return [] }
        let lower = RecordCodec.key(id.primaryKey)
        var result: [ObjectID] = []
        try t.scan(from: lower, upTo: IndexKey.successor(lower)) { key, value in
            result.append(try self.decodeRelationshipEntry(key: key, value: value, relationship: relationship, tree: t))
            return true
        }
        return result
    }

    /// The number of stored targets of a to-many relationship.
    func relatedCount(_ id: ObjectID, treeName: String) throws -> Int {
        guard let t = try tree(treeName) else { return 0 }
        let lower = RecordCodec.key(id.primaryKey)
        var n = 0
        try t.scanBorrowing(from: lower, upTo: IndexKey.successor(lower)) { _, _ in
            n += 1; return true
        }
        return n
    }

    /// The target of one entry of `relationship`'s tree; an entry that does not decode, or names
    /// an object of an entity the relationship cannot point at, is corruption (the applier follows
    /// targets to their inverses, which another entity does not have).
    func decodeRelationshipEntry(
        key: [UInt8], value: [UInt8], relationship: RelationshipDescription, tree: Tree
    ) throws -> ObjectID {
        let ordered = relationship.isOrdered
        var r = RecordReader(value)
        do {
            guard key.count == (ordered ? 12 : 16) else { throw RecordDecodingError("key of \(key.count) bytes") }
            let code = try r.varint()
            guard code < UInt64(layout.byCode.count) else { throw RecordDecodingError("unknown entity code \(code)") }
            let pk = ordered ? Int64(bitPattern: try r.varint()) : Int64(bitPattern: key.readBE(UInt64.self, at: 8))
            guard r.isAtEnd else { throw RecordDecodingError("trailing bytes") }
            let target = layout.byCode[Int(code)]
            guard layout.isKind(target.name, of: relationship.destination) else {
                throw RecordDecodingError("a \(target.name) is not a \(relationship.destination)")
            }
            return target.objectID(pk)
        } catch let error as RecordDecodingError {
            throw corruption(tree, "relationship entry \(key): \(error.message)")
        }
    }

    /// The stored next primary key of a root (1 when none was stored); a value that is not a key
    /// (not 8 bytes, below 1) is corruption, not a reason to hand out keys again from 1.
    func storedNextKey(root: String) throws -> Int64 {
        guard let t = try tree(StoreLayout.metaTree), let v = try t.get(StoreLayout.nextKeyKey(root: root)) else {
            return 1
        }
        guard let next = StoreLayout.decodeNextKey(v) else {
            throw corruption(t, "next.\(root) holds \(v.count) bytes that are not a primary key of 1 or more")
        }
        return next
    }
}
