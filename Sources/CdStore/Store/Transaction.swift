// What read and write transactions share: a snapshot, page reads, and the catalog of named trees.
//
// Confinement: a transaction is used by one thread at a time (it holds a cursor stack and, for a
// writer, the dirty pages); different transactions may run on different threads at once.

/// A transaction on a store: a consistent snapshot of every tree as of one commit.
///
/// Use ``ReadTransaction`` for reading (any number at once) and ``WriteTransaction`` for
/// changes (one at a time); both find trees by name through ``tree(_:)``.
public class Transaction: PageSource {
    /// The store this transaction belongs to.
    public let store: Store
    /// The commit this transaction sees (a read transaction's moves when it restarts).
    public internal(set) var snapshot: CommitSequence
    var finished = false
    var trees: [String: BTree] = [:]
    /// Whether this transaction changed the catalog (created or dropped a tree): from then on its
    /// catalog is not its snapshot's, so it neither reads nor notes shared entries (CatalogRoots
    /// CR2). Only a write transaction sets it.
    var catalogChanged = false

    init(store: Store, snapshot: CommitSequence) {
        self.store = store
        self.snapshot = snapshot
    }

    public var pageSize: Int { store.pageSize }

    public func page(_ number: PageNumber) throws -> PageBuffer {
        if finished { throw StoreError.transactionFinished }
        return try store.loadPage(number, snapshot: snapshot)
    }

    var catalog: BTree { BTree(root: MetaPage.catalogRoot) }

    /// The tree named `name`, or nil when there is none.
    public func tree(_ name: String) throws -> Tree? {
        if let t = trees[name] { return Tree(name: name, btree: t, transaction: self) }
        // A transaction shares the catalog entries of its snapshot's commit while its catalog is
        // that commit's (CatalogRoots CR2).
        let shared = !catalogChanged
        if shared {
            if finished { throw StoreError.transactionFinished }
            if let known = store.catalogRoots.root(of: name, at: snapshot) {
                guard let root = known else { return nil }
                let t = BTree(root: root)
                trees[name] = t
                return Tree(name: name, btree: t, transaction: self)
            }
        }
        guard let value = try catalog.get(Array(name.utf8), in: self) else {
            if shared { store.catalogRoots.note(name, root: nil, at: snapshot) }
            return nil
        }
        let root = try Catalog.decodeRoot(value, tree: name, path: store.path)
        trees[name] = root
        if shared { store.catalogRoots.note(name, root: root.root, at: snapshot) }
        return Tree(name: name, btree: root, transaction: self)
    }

    /// The names of every tree, in bytewise order.
    public func treeNames() throws -> [String] {
        var names: [String] = []
        let c = catalog.cursor(in: self)
        var more = try c.first()
        while more {
            names.append(String(decoding: c.key, as: UTF8.self))
            more = try c.next()
        }
        return names
    }
}

/// Encoding of catalog entries: tree name (UTF-8) → root page number.
///
/// Catalog value (8 bytes): root page u32, 4 reserved bytes (zero).
enum Catalog {
    static func encodeRoot(_ tree: BTree) -> [UInt8] {
        var w = ByteWriter(capacity: 8)
        w.u32(tree.root.rawValue); w.u32(0)
        return w.bytes
    }

    static func decodeRoot(_ value: [UInt8], tree name: String, path: String) throws -> BTree {
        guard value.count == 8 else {
            throw StoreError.corruption(
                path: path, location: .page(MetaPage.catalogRoot),
                detail: "catalog entry for tree '\(name)' is \(value.count) bytes, not 8")
        }
        let root = value.withUnsafeBytes { ByteReader($0).u32(0) }
        guard root >= 3 else {
            throw StoreError.corruption(
                path: path, location: .page(MetaPage.catalogRoot),
                detail: "catalog entry for tree '\(name)' names root page \(root)")
        }
        return BTree(root: PageNumber(root))
    }

    static func validateName(_ name: String) throws {
        let n = name.utf8.count
        guard n > 0, n <= 255 else {
            throw StoreError.invalidArgument("tree name must be 1 to 255 bytes of UTF-8, got \(n)")
        }
    }
}

/// A read transaction: a snapshot of the last commit when it began, unaffected by later commits.
/// End it with ``end()`` (or let it go) so that checkpoints can move past its snapshot.
public final class ReadTransaction: Transaction {
    init(store: Store) throws {
        let snapshot = try store.registerReader()
        super.init(store: store, snapshot: snapshot)
    }

    /// Releases the snapshot. Further reads throw `StoreError.transactionFinished`.
    public func end() {
        guard !finished else { return }
        finished = true
        store.unregisterReader(snapshot)
    }

    /// Begins again, on the last commit, after `end()`: what a new read transaction would see,
    /// without making one. The trees it found stay known when the commit is the one it ended on
    /// (a commit's catalog never changes); otherwise they are looked up again. Returns whether
    /// the commit is the same.
    ///
    /// ```swift
    /// tx.end()
    /// let same = try tx.restart()   // a reader again, on the last commit
    /// ```
    package func restart() throws -> Bool {
        precondition(finished, "restart() of a read transaction that has not ended")
        let last = try store.registerReader()
        let same = last == snapshot
        if !same {
            snapshot = last
            trees = [:]
        }
        finished = false
        return same
    }

    deinit { end() }
}

/// A named B+tree inside a transaction.
///
/// ```swift
/// try store.write { tx in
///     let t = try tx.createTree("settings")
///     try t.put(Array("theme".utf8), Array("dark".utf8))
/// }
/// ```
public struct Tree {
    /// The tree's name in the catalog.
    public let name: String
    let btree: BTree
    let transaction: Transaction

    /// The tree's root page (stable for the tree's life).
    public var root: PageNumber { btree.root }

    /// The value stored under `key`, or nil.
    public func get(_ key: [UInt8]) throws -> [UInt8]? {
        try btree.get(key, in: transaction)
    }

    /// A cursor over the tree's keys in bytewise order.
    public func cursor() -> BTreeCursor { btree.cursor(in: transaction) }

    /// Inserts or replaces `key`. Only in a write transaction.
    public func put(_ key: [UInt8], _ value: [UInt8]) throws {
        let w = try writer()
        try w.spillIfNeeded()
        try btree.put(key, value, in: w)
    }

    /// Removes `key`; returns whether it was there. Only in a write transaction.
    @discardableResult
    public func delete(_ key: [UInt8]) throws -> Bool {
        let w = try writer()
        try w.spillIfNeeded()
        return try btree.delete(key, in: w)
    }

    /// Lends the value under `key` to `body` and, when `body` returns a result, removes the key
    /// in the same descent (`BTree.take`); nil, changing nothing, when the key is not there or
    /// `body` returns nil. Only in a write transaction.
    ///
    /// ```swift
    /// let old = try tree.take(key) { Array($0) }
    /// ```
    public func take<R>(_ key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R?) throws -> R? {
        let w = try writer()
        try w.spillIfNeeded()
        return try btree.take(key, in: w, body)
    }

    /// Visits the entries with `lower ≤ key < upper` (either bound may be nil) in order until
    /// `body` returns false.
    public func scan(
        from lower: [UInt8]? = nil, upTo upper: [UInt8]? = nil,
        _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool
    ) throws {
        let c = cursor()
        var more = try lower.map { try c.seek(atLeast: $0) } ?? c.first()
        while more {
            let key = c.key
            if let upper, !key.lexicographicallyPrecedes(upper) { return }
            guard try body(key, try c.value()) else { return }
            more = try c.next()
        }
    }

    /// The number of entries (a full scan of the leaves).
    public func count() throws -> Int {
        let c = cursor()
        var n = 0
        var more = try c.first()
        while more { n += 1; more = try c.next() }
        return n
    }

    private func writer() throws -> WriteTransaction {
        guard let w = transaction as? WriteTransaction else { throw StoreError.readOnly(path: transaction.store.path) }
        return w
    }
}
