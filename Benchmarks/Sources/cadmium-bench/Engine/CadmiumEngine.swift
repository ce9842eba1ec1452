import CdStore

// Cadmium's engine peer: one named tree in a `Store`, 8 KiB pages, zlib level 1 (the defaults),
// and the workload's page cache budget (64 MiB, the default, unless the workload says otherwise).

final class CadmiumEngine: EngineSystem {
    static let treeName = "kv"
    let store: Store
    let path: String

    init(path: String, durable: Bool, cacheBytes: Int) throws {
        self.path = path
        var options = StoreOptions()
        options.pageSize = 8192
        options.cacheBytes = cacheBytes
        options.durability = durable ? .full : .off
        BenchStoreSharing.apply(to: &options)
        store = try Store.open(path: path, options: options)
    }

    func load(_ order: [Int], data: DataSet) throws {
        try store.write { tx in
            let tree = try tx.openOrCreateTree(Self.treeName)
            for i in order { try tree.put(DataSet.key(i), data.value(i)) }
        }
    }

    func commitEach(_ order: [Int], data: DataSet) throws {
        try store.write { tx in _ = try tx.openOrCreateTree(Self.treeName) }
        for i in order {
            try store.write { tx in
                try tx.tree(Self.treeName)!.put(DataSet.key(i), data.value(i))
            }
        }
    }

    /// Group commit: the threads' commits that wait for an fsync at the same time share one.
    func commitConcurrently(_ order: [Int], writers: Int, data: DataSet) throws {
        try store.write { tx in _ = try tx.openOrCreateTree(Self.treeName) }
        let store = self.store
        try runThreads(writers) { w in
            for i in share(of: order, writer: w, writers: writers) {
                try store.write { tx in
                    try tx.tree(Self.treeName)!.put(DataSet.key(i), data.value(i))
                }
            }
        }
    }

    func get(_ indices: [Int]) throws -> UInt64 {
        try store.read { tx in
            let tree = try tx.tree(Self.treeName)!
            var h: UInt64 = 0
            for i in indices {
                guard let v = try tree.get(DataSet.key(i)) else { throw BenchError.missingKey(i) }
                mix(&h, count: v.count, first: v[0])
            }
            return h
        }
    }

    func scanAll() throws -> UInt64 {
        try store.read { tx in
            let c = try tx.tree(Self.treeName)!.cursor()
            var h: UInt64 = 0
            var more = try c.first()
            while more {
                let k = c.key, v = try c.value()
                mix(&h, count: v.count &+ k.count, first: v[0])
                more = try c.next()
            }
            return h
        }
    }

    func scanRanges(_ starts: [Int], length: Int) throws -> UInt64 {
        try store.read { tx in
            let tree = try tx.tree(Self.treeName)!
            var h: UInt64 = 0
            for s in starts {
                let c = tree.cursor()
                var more = try c.seek(atLeast: DataSet.key(s))
                var n = 0
                while more && n < length {
                    let k = c.key, v = try c.value()
                    mix(&h, count: v.count &+ k.count, first: v[0])
                    n += 1
                    more = try c.next()
                }
            }
            return h
        }
    }

    func checkpointAndClose() throws -> Int {
        try store.checkpoint()
        try store.close()
        return fileSize(path) + fileSize(path + "-wal")
    }

    func close() throws { try store.close() }
}

enum BenchError: Error, CustomStringConvertible {
    case missingKey(Int)
    case sqlite(String)
    case child(String)

    var description: String {
        switch self {
        case .missingKey(let i): "key \(i) not found"
        case .sqlite(let m): "SQLite: \(m)"
        case .child(let m): "child run: \(m)"
        }
    }
}
