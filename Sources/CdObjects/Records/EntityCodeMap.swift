// A table from an identifier's interned entity code (`EntityNames`, OI1) to a value kept per
// entity: the entity layouts of a store, the classes and slot tables of a Cadmium model. Finding
// an identifier's entry is an array read, with no name read or hashed.

/// Values per entity, found by `ObjectID.entityCode`. Immutable after init.
package struct EntityCodeMap<Value> {
    /// The entries from `first` on; nil for codes of names this map was not built with.
    private let entries: [Value?]
    private let first: Int

    /// The map of `values` by entity name (each name interned, keeps OI1).
    package init(_ values: [String: Value]) {
        let coded = values.map { (Int(EntityNames.shared.code(for: $0.key).rawValue), $0.value) }
        first = coded.map(\.0).min() ?? 0
        var entries = [Value?](repeating: nil, count: (coded.map(\.0).max() ?? -1) - first + 1)
        for (code, value) in coded { entries[code - first] = value }
        self.entries = entries
    }

    /// The value for the entity of `id`, or nil when the map has none.
    @inline(__always)
    package subscript(_ id: ObjectID) -> Value? {
        let i = Int(id.entityCode.rawValue) - first
        return i >= 0 && i < entries.count ? entries[i] : nil
    }
}

extension EntityCodeMap: Sendable where Value: Sendable {}
