// What a Core Data SQLite store says about itself, read before any object: its UUID
// (`Z_METADATA.Z_UUID`), its entities (`Z_PRIMARYKEY`: number, name, parent number, key
// high-water mark) and every table with its columns.
//
// Core Data's layout, as the importer relies on it (docs/COREDATA-IMPORT.md has the whole map):
//   Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX)  one row per entity; Z_MAX on the root's row only,
//                                                  possibly above the largest key, -1 after an
//                                                  in-place migration
//   Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST)        one row; Z_UUID is the store UUID
//   Z_MODELCACHE (Z_CONTENT)                       the compiled model (not read)
//   Z<ROOT>                                        one table per root entity, rows of the whole hierarchy
//   Z_<n><RELATIONSHIP>                            many-to-many join tables
//   A*                                             Core Data's private entities: persistent history
//                                                  (ATRANSACTION, ACHANGE, ATRANSACTIONSTRING) and
//                                                  CloudKit mirroring (ANSCK*), not app objects

/// One row of `Z_PRIMARYKEY`.
struct StoredEntity: Sendable, Equatable {
    let number: Int64
    let name: String
    let parent: Int64
    let maxKey: Int64
}

/// The bookkeeping of a Core Data store and its tables' columns.
struct CoreDataStoreSchema {
    /// `Z_METADATA.Z_UUID`.
    let uuid: String
    /// `Z_PRIMARYKEY`, by entity number.
    let entities: [Int64: StoredEntity]
    /// Every app table (`Z…` other than the bookkeeping ones) with its columns.
    let tables: [String: [String]]
    /// Core Data's private tables (`A…`), which are not objects.
    let skippedTables: [String]

    static let bookkeeping: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]

    /// Reads the schema of the (private copy of the) store `db`; `path` names the original in errors.
    init(db: SQLiteDatabase, path: String) throws(CoreDataImportError) {
        let names = try db.tableNames()
        for required in ["Z_PRIMARYKEY", "Z_METADATA"] where !names.contains(required) {
            throw .unreadableStore(path: path, detail: "the table \(required) is missing: not a Core Data store")
        }
        let uuids = try db.rows("SELECT Z_UUID FROM Z_METADATA ORDER BY Z_VERSION") { $0.text(0) }
        guard let first = uuids.first, let uuid = first else {
            throw .unreadableStore(path: path, detail: "Z_METADATA holds no store UUID")
        }
        self.uuid = uuid
        var entities: [Int64: StoredEntity] = [:]
        for e in try db.rows(
            "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY",
            {
                StoredEntity(
                    number: $0.int64(0), name: $0.text(1) ?? "", parent: $0.optionalInt64(2) ?? 0,
                    maxKey: $0.optionalInt64(3) ?? 0)
            })
        {
            entities[e.number] = e
        }
        self.entities = entities
        var tables: [String: [String]] = [:]
        var skipped: [String] = []
        for name in names where !Self.bookkeeping.contains(name) {
            if name.hasPrefix("A") {
                skipped.append(name)
            } else {
                tables[name] = try db.columns(of: name)
            }
        }
        self.tables = tables
        self.skippedTables = skipped.sorted()
    }
}
