// The store's history as SwiftData's values: a `CdHistoryTransaction` becomes a
// `DefaultHistoryTransaction`, and each `CdHistoryChange` an insert, update or delete of the
// schema's class for its entity (`DefaultHistoryInsert<Trip>`, …), with property names turned
// into the class's key paths and tombstone values into Swift values, through the class's
// property table.
//
// Invariants:
//  HX1. Every change of a transaction is translated, in the store's order; a change the schema
//       cannot name (an entity or property the container's classes do not have) is a
//       `SwiftDataError.unknownSchema` naming it, never left out.
//  HX2. `updatedAttributes` lists the class's key paths of the change's updated properties in
//       the order the class declares them (DC2 compares them in that order).

internal import CdObjects
import Foundation

extension ModelContainer {
    /// `transaction` as this container's history transaction (keeps HX1).
    func historyTransaction(_ transaction: CdHistoryTransaction) throws -> DefaultHistoryTransaction {
        let number = transaction.token.number
        var changes: [HistoryChange] = []
        changes.reserveCapacity(transaction.changes.count)
        for (index, change) in transaction.changes.enumerated() {
            guard let type = typesByEntity[change.objectID.entity] else {
                throw SwiftDataError(
                    .unknownSchema,
                    "history transaction \(number) changed \(change.objectID), whose entity is not in the schema")
            }
            changes.append(try historyChange(type, change, number: number, index: index))
        }
        let process = HistoryProcess(contextName: transaction.contextName)
        return DefaultHistoryTransaction(
            storeIdentifier: storeIdentifier, bundleIdentifier: process.bundleIdentifier,
            processIdentifier: process.processIdentifier, transactionIdentifier: Int64(truncatingIfNeeded: number),
            token: DefaultHistoryToken(storeToken: transaction.token, storeIdentifier: storeIdentifier),
            author: transaction.author, changes: changes, timestamp: transaction.timestamp)
    }

    /// One change of a model of class `Model`.
    private func historyChange<Model: PersistentModel>(
        _: Model.Type, _ change: CdHistoryChange, number: UInt64, index: Int
    ) throws -> HistoryChange {
        let table = try self.table(Model.self)
        let id = PersistentIdentifier(objectID: change.objectID, storeIdentifier: storeIdentifier)
        let changeIdentifier = HistoryChangeNumbering.changeIdentifier(transaction: number, index: index)
        let transactionIdentifier = Int64(truncatingIfNeeded: number)
        switch change.kind {
        case .insert:
            return .insert(
                DefaultHistoryInsert<Model>(
                    changeIdentifier: changeIdentifier, changedPersistentIdentifier: id,
                    transactionIdentifier: transactionIdentifier))
        case .update:
            for name in change.updatedProperties where table.indexByName[name] == nil {
                throw Self.unknownProperty(name, of: table, number)
            }
            let keyPaths = table.properties.filter { change.updatedProperties.contains($0.name) }.map {
                Self.sendableKeyPath($0.keyPath, of: Model.self)
            }
            return .update(
                DefaultHistoryUpdate<Model>(
                    changeIdentifier: changeIdentifier, changedPersistentIdentifier: id,
                    transactionIdentifier: transactionIdentifier, updatedAttributes: keyPaths))
        case .delete:
            var entries: [HistoryTombstone<Model>.Element] = []
            let stored = change.tombstone ?? [:]
            for name in stored.keys where table.indexByName[name] == nil {
                throw Self.unknownProperty(name, of: table, number)
            }
            for property in table.properties {
                guard let value = stored[property.name], !value.isNull else { continue }  // TS1
                let type = (property.valueType as? any OptionalValue.Type)?.wrappedType ?? property.valueType  // TS2
                let swift = try AttributeCoding.swiftValue(value, as: type)
                entries.append((Self.sendableKeyPath(property.keyPath, of: Model.self), Self.sendableValue(swift)))
            }
            return .delete(
                DefaultHistoryDelete<Model>(
                    changeIdentifier: changeIdentifier, changedPersistentIdentifier: id,
                    transactionIdentifier: transactionIdentifier, tombstone: HistoryTombstone(entries)))
        }
    }

    private static func unknownProperty(
        _ name: String, of table: ModelPropertyTable, _ number: UInt64
    ) -> SwiftDataError {
        SwiftDataError(
            .unknownSchema,
            "history transaction \(number) names \(table.entityName).\(name), which is not a persisted property of "
                + "\(table.type)")
    }

    /// A property table key path (a key path of a `Model` class, from its `schemaMetadata`) as
    /// SwiftData's history types hold it. A stored property's key path captures no value, so it
    /// is Sendable; the cast only states it (`any PartialKeyPath<Model> & Sendable` is one class
    /// reference, as `PartialKeyPath<Model>` is: Sendable, a marker protocol, adds no witness).
    private static func sendableKeyPath<Model>(
        _ keyPath: AnyKeyPath, of _: Model.Type
    ) -> any PartialKeyPath<Model> & Sendable {
        // The table's key paths are the class's own (MT1 in ModelPropertyTable.swift).
        let typed = keyPath as! PartialKeyPath<Model>
        return unsafeBitCast(typed, to: (any PartialKeyPath<Model> & Sendable).self)
    }

    /// A tombstone value, decoded from the history just now and held by nothing else, as
    /// `any Sendable`. Sendable is a marker protocol with no run-time form, so `any Sendable` has
    /// `Any`'s layout; Swift 6 has no checked conversion from `Any` (a cast to a marker protocol
    /// is refused), so the existential is reinterpreted in place.
    private static func sendableValue(_ value: Any) -> any Sendable {
        withUnsafePointer(to: value) { $0.withMemoryRebound(to: (any Sendable).self, capacity: 1) { $0.pointee } }
    }
}
