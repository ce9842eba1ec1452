// Opening a store with the model it records, for tools that have no app model (`cdstore`).
//
// A store records its model in `cd.meta` (key `model`, the model's JSON) beside the model's
// version hash (key `hash`) and the object format (key `format`). Reading that record needs the
// engine only; the store is then opened as an app would open it, with that model, so every read
// goes through the same checks (OS2, OS3).
//
// Invariants:
//  SM1. The model returned is the one the store records, decoded from its JSON; a store without
//       a `cd.meta` tree, or whose model entry is missing or does not decode, is refused with a
//       `StoredModelError` naming the path, never opened with a guessed model.
//  SM2. The engine handle used to read the record is closed before the object store opens, so
//       the two never hold the store's lock at once.

import CdStore
import Foundation

/// Why a store's recorded model cannot be used.
package enum StoredModelError: Error, CustomStringConvertible, Equatable {
    /// The file is a Cadmium engine store with no object layer (`cd.meta` missing).
    case noObjectModel(path: String)
    /// `cd.meta` has no model entry, or it does not decode.
    case unreadableModel(path: String, detail: String)

    package var description: String {
        switch self {
        case let .noObjectModel(path):
            return "\(path): an engine store without an object model (no cd.meta tree)"
        case let .unreadableModel(path, detail):
            return "\(path): the recorded model cannot be read (\(detail))"
        }
    }
}

/// What `cd.meta` records about a store's object layer.
package struct StoredModelRecord: Sendable {
    /// The model the store was written with.
    package let model: ObjectModel
    /// The version hash recorded beside it.
    package let versionHash: String
    /// The object format version (`cd.meta` key `format`), nil when the entry is missing.
    package let objectFormat: UInt32?
    /// The object format this build reads and writes.
    package static var supportedObjectFormat: UInt32 { UInt32(StoreLayout.layoutVersion) }
}

extension ObjectStore {
    /// The `cd.meta` entries that describe the object layer of the store at `path` (its model
    /// JSON, version hash and object format), read through an engine handle closed before this
    /// returns (SM2); nil when the store has no `cd.meta` tree. The store must exist.
    static func metaEntries(
        path: String, options: StoreOptions
    ) throws -> (model: [UInt8]?, hash: [UInt8]?, format: [UInt8]?)? {
        let engine: Store
        do { engine = try Store.open(path: path, options: options) } catch let e as StoreError {
            throw CdError.store(e)
        }
        defer { try? engine.close() }  // keeps SM2
        do {
            return try engine.read { tx in
                guard let meta = try tx.tree(StoreLayout.metaTree) else { return nil }
                return (
                    try meta.get(StoreLayout.metaModelKey), try meta.get(StoreLayout.metaHashKey),
                    try meta.get(StoreLayout.metaFormatKey)
                )
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// The model, hash and object format the store at `path` records (SM1). The store must exist.
    package static func storedModelRecord(path: String, options: StoreOptions) throws -> StoredModelRecord {
        let entries = try metaEntries(path: path, options: options)
        guard let entries else { throw StoredModelError.noObjectModel(path: path) }
        guard let json = entries.model else {
            throw StoredModelError.unreadableModel(path: path, detail: "cd.meta has no model entry")
        }
        let model: ObjectModel
        do { model = try JSONDecoder().decode(ObjectModel.self, from: Data(json)) } catch {
            throw StoredModelError.unreadableModel(path: path, detail: "the model JSON does not decode: \(error)")
        }
        let format = entries.format.flatMap { bytes -> UInt32? in
            guard bytes.count == 4 else { return nil }
            return bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        return StoredModelRecord(
            model: model, versionHash: entries.hash.map { String(decoding: $0, as: UTF8.self) } ?? "",
            objectFormat: format)
    }

    /// Opens the existing store at `path` with the model it records (SM1, SM2). With
    /// `options.readOnly` nothing is written.
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.readOnly = true
    /// let (store, record) = try ObjectStore.openWithStoredModel(path: "app.cdstore", options: options)
    /// ```
    package static func openWithStoredModel(
        path: String, options: StoreOptions
    ) throws -> (store: ObjectStore, record: StoredModelRecord) {
        let record = try storedModelRecord(path: path, options: options)
        return (try open(path: path, model: record.model, options: options), record)
    }
}
