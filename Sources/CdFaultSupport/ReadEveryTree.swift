import CdStore

/// Reads everything a store holds, the way the hostile-input tests and fuzz targets probe a
/// damaged file: every tree the catalog names, forward reading every value (overflow chains
/// included), then backward. Damage surfaces as a thrown `StoreError`.
///
/// ```swift
/// let store = try Store.open(path: path, options: options)
/// try readEveryTree(of: store)
/// ```
public func readEveryTree(of store: Store) throws {
    try store.read { tx in
        for name in try tx.treeNames() {
            guard let t = try tx.tree(name) else { continue }
            let c = t.cursor()
            var more = try c.first()
            while more { _ = try c.value(); more = try c.next() }
            more = try c.last()
            while more { more = try c.previous() }
        }
    }
}
