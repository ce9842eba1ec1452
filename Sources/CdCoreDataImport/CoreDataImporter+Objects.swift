// Step 3, first half: every row of every root table becomes an object of its Z_ENT's entity,
// with its Z_PK as primary key and its attributes decoded (CoreDataValueDecoder), inserted in
// batches through the streaming writer. Relationships come after (+Relationships), when every
// object they may point at exists.
//
// A row that cannot be an object as it is — an unknown or abstract Z_ENT, a key below 1, a value
// of the wrong kind or out of its type's range, a required attribute or to-one that is nil — is
// not imported and is listed (CI3).

import CdObjects
import CdStore
import Foundation

extension CoreDataImporter {
    /// How one entity's attributes are read from a row.
    struct AttributeColumn {
        let name: String
        let type: AttributeType
        let index: Int
        let isOptional: Bool
        let external: ExternalData?
    }

    /// How one entity's required to-ones are checked in a row.
    struct RequiredToOne {
        let name: String
        let index: Int
    }

    func importObjects(
        db: SQLiteDatabase, layout: CoreDataLayout, external: Set<ExternalAttribute>, writer: ObjectStoreWriter
    ) throws {
        let model = layout.model
        var total = 0
        for table in layout.tables.values {
            let count = try db.prepare("SELECT COUNT(*) FROM \(SQLiteDatabase.quote(table.name))")
            if try count.step() { total += Int(count.int64(0)) }
        }
        var done = 0
        progress("objects", 0, total)
        let externalData = ExternalData(store: store)
        for table in layout.tables.values.sorted(by: { $0.name < $1.name }) {
            // Every column the table's entities read, once each.
            var selected: [String] = ["Z_PK", "Z_ENT"]
            func index(of column: String) -> Int {
                if let i = selected.firstIndex(of: column) { return i }
                selected.append(column)
                return selected.count - 1
            }
            var attributes: [String: [AttributeColumn]] = [:]
            var requiredToOnes: [String: [RequiredToOne]] = [:]
            for entity in table.entities {
                var hierarchy: [EntityDescription] = []
                var next: String? = entity
                while let name = next, let e = model.entity(named: name) {
                    hierarchy.insert(e, at: 0)
                    next = e.parent
                }
                for e in hierarchy {
                    for a in e.attributes where !a.isTransient {
                        guard let column = table.columns[.property(entity: e.name, name: a.name)] else { continue }
                        let isExternal = external.contains(ExternalAttribute(entity: e.name, attribute: a.name))
                        attributes[entity, default: []].append(
                            AttributeColumn(
                                name: a.name, type: a.type, index: index(of: column), isOptional: a.isOptional,
                                external: isExternal ? externalData : nil))
                    }
                    for r in e.relationships where !r.isTransient && !r.isToMany && !r.isOptional {
                        guard let column = table.columns[.property(entity: e.name, name: r.name)] else { continue }
                        requiredToOnes[entity, default: []].append(
                            RequiredToOne(name: r.name, index: index(of: column)))
                    }
                }
            }
            let sql =
                "SELECT " + selected.map(SQLiteDatabase.quote).joined(separator: ", ") + " FROM "
                + SQLiteDatabase.quote(table.name) + " ORDER BY Z_PK"
            let rows = try db.prepare(sql)
            var batch: [ObjectID: [String: PropertyValue]] = [:]
            batch.reserveCapacity(options.batchSize)
            while try rows.step() {
                done += 1
                let key = rows.int64(0)
                guard let object = try object(in: rows, table: table, key: key, layout: layout) else { continue }
                var values: [String: PropertyValue] = [:]
                var problem: String?
                for a in attributes[object.entity] ?? [] {
                    do {
                        let value = try CoreDataValueDecoder.value(rows, a.index, type: a.type, external: a.external)
                        if value.isNull && !a.isOptional {
                            problem = "the required attribute \(a.name) is nil"
                            break
                        }
                        values[a.name] = .attribute(value)
                    } catch {
                        problem = "attribute \(a.name): \(error.message)"
                        break
                    }
                }
                if problem == nil,
                    let missing = (requiredToOnes[object.entity] ?? []).first(where: { rows.isNull($0.index) })
                {
                    problem = "the required relationship \(missing.name) is nil"
                }
                if let problem {
                    notImported.insert(object)
                    try bad(table.name, key, problem + "; the row is not imported")
                    continue
                }
                batch[object] = values
                objectCounts[object.entity, default: 0] += 1
                if key > largestKeys[table.root, default: 0] { largestKeys[table.root] = key }
                if batch.count >= options.batchSize {
                    try writer.apply(ChangeSet(inserted: batch))
                    batch.removeAll(keepingCapacity: true)
                    progress("objects", done, total)
                }
            }
            if !batch.isEmpty { try writer.apply(ChangeSet(inserted: batch)) }
            progress("objects", done, total)
        }
    }

    /// The object a row is, or nil (listed) when its Z_ENT or key cannot be one.
    private func object(
        in row: SQLiteStatement, table: CoreDataTable, key: Int64, layout: CoreDataLayout
    ) throws -> ObjectID? {
        let number = row.int64(1)
        guard let entity = layout.entityOfNumber[number], table.entities.contains(entity) else {
            try bad(table.name, key, "Z_ENT \(number) is no entity of this table; the row is not imported")
            return nil
        }
        guard key > 0 else {
            try bad(table.name, key, "Z_PK \(key) is not a primary key (1 and up); the row is not imported")
            return nil
        }
        if layout.model.entity(named: entity)?.isAbstract == true {
            notImported.insert(ObjectID(entity: entity, primaryKey: key))
            try bad(table.name, key, "Z_ENT \(number) is the abstract entity \(entity); the row is not imported")
            return nil
        }
        return ObjectID(entity: entity, primaryKey: key)
    }
}
