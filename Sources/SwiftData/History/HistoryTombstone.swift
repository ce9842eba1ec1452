// The values a deleted model held in its `@Attribute(.preserveValueOnDeletion)` attributes, as
// the store's history recorded them at the delete (`CdHistoryChange.tombstone`, keyed by name
// there, by key path here).
//
// Invariants:
//  TS1. An entry exists exactly for each preserved attribute whose value was not nil at the
//       delete; every other key path reads nil.
//  TS2. A value is of the attribute's Swift type with any Optional unwrapped (a `String?`
//       attribute reads a `String`), converted as the attribute's values are when fetched.

import Foundation

/// The preserved values of a deleted model (SwiftData's `HistoryTombstone`).
///
/// ```swift
/// if case .delete(let delete as DefaultHistoryDelete<Trip>) = change {
///     let name = delete.tombstone[\.name] as? String
///     for (keyPath, value) in delete.tombstone { print(keyPath, value) }
/// }
/// ```
public struct HistoryTombstone<Model: PersistentModel>: Sequence, Sendable {
    /// One preserved value and the key path of its attribute.
    public typealias Element = (keyPath: any PartialKeyPath<Model> & Sendable, value: any Sendable)

    /// One entry per preserved attribute (a handful): looked up by a scan.
    private let entries: [Element]

    init(_ entries: [Element]) { self.entries = entries }

    /// The value the deleted model held at `keyPath`, if the attribute is preserved on
    /// deletion and the value was not nil (TS1).
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        entries.first { $0.keyPath as AnyKeyPath == keyPath }?.value
    }

    /// The preserved values, in the order the class declares their attributes.
    public func makeIterator() -> Iterator { Iterator(entries: entries) }

    /// Iterates over the preserved values.
    public struct Iterator: IteratorProtocol {
        fileprivate var entries: [Element]
        fileprivate var position = 0

        /// The next preserved value, nil after the last.
        public mutating func next() -> Element? {
            guard position < entries.count else { return nil }
            defer { position += 1 }
            return entries[position]
        }
    }
}
