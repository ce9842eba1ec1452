// Step 3, first part: every row of every root table becomes an object of its Z_ENT's entity,
// with its Z_PK as primary key, its attributes decoded (CoreDataValueDecoder) and its to-ones
// taken from their key columns, written once through the store's load (CoreDataImportWriter).
// To-many lists come after (+Links); nothing is updated afterwards except the rare to-one found
// to point at a row that turned out bad (+Links, `clearLinksToRowsNotImported`).
//
// Each to-one column is read with the row of its target (a LEFT JOIN on the target table's
// Z_PK), so the target's Z_ENT — and, for a one-to-one, the target's own key column — comes
// with the row, without a look-up per key. A to-one is kept when (LK1):
//   the target row exists, its Z_ENT is an entity the relationship (and the to-many inverse,
//   if any, by its declaring entity) may hold, the target is not a row known to be bad, and,
//   for a one-to-one, the target's key column points back at this row.
// +Links applies the same rule to the inverse side, so both sides agree (LD3 of the store's load).
//
// A row that cannot be an object as it is — an unknown or abstract Z_ENT, a key below 1, a value
// of the wrong kind or out of its type's range, a required attribute or to-one that is nil or
// left out — is not imported and is listed (CI3).

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

    /// How one to-one is read from a row: its key column, the target's Z_ENT, and for a
    /// one-to-one the target's key column pointing back.
    struct ToOneColumn {
        let relationship: RelationshipDescription
        let keyIndex: Int
        let targetEntityIndex: Int
        let backIndex: Int?
        /// The entity the target must also be a kind of: the declaring entity of a to-many inverse.
        let inverseOwner: String?
    }

    /// The columns a table's rows are read with, and the SQL reading them.
    struct ObjectQuery {
        var attributes: [String: [AttributeColumn]] = [:]
        var toOnes: [String: [ToOneColumn]] = [:]
        var sql = ""
    }

    func objectQuery(_ table: CoreDataTable, layout: CoreDataLayout, external: Set<ExternalAttribute>) -> ObjectQuery {
        let model = layout.model
        let externalData = ExternalData(store: store)
        var query = ObjectQuery()
        var selected: [String] = ["s.Z_PK", "s.Z_ENT"]
        var joins: [String] = []
        var joinOf: [String: String] = [:]  // key column → alias of the joined target row
        func index(of expression: String) -> Int {
            if let i = selected.firstIndex(of: expression) { return i }
            selected.append(expression)
            return selected.count - 1
        }
        func q(_ name: String) -> String { SQLiteDatabase.quote(name) }
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
                    query.attributes[entity, default: []].append(
                        AttributeColumn(
                            name: a.name, type: a.type, index: index(of: "s." + q(column)), isOptional: a.isOptional,
                            external: isExternal ? externalData : nil))
                }
                for r in e.relationships where !r.isTransient && !r.isToMany {
                    guard let column = table.columns[.property(entity: e.name, name: r.name)],
                        let targetTable = layout.table(of: r.destination)
                    else { continue }
                    let alias: String
                    if let known = joinOf[column] {
                        alias = known
                    } else {
                        alias = "t\(joins.count)"
                        joinOf[column] = alias
                        joins.append(
                            "LEFT JOIN \(q(targetTable.name)) \(alias) ON \(alias).Z_PK = s.\(q(column))")
                    }
                    let inverse = layout.storedInverse(of: r, in: e.name)
                    var backIndex: Int?
                    var inverseOwner: String?
                    if let inverse {
                        let owner = declaringEntity(inverse.name, from: r.destination, model)
                        if inverse.isToMany {
                            inverseOwner = owner
                        } else if let owner,
                            let back = targetTable.columns[.property(entity: owner, name: inverse.name)]
                        {
                            backIndex = index(of: "\(alias).\(q(back))")
                        }
                    }
                    query.toOnes[entity, default: []].append(
                        ToOneColumn(
                            relationship: r, keyIndex: index(of: "s." + q(column)),
                            targetEntityIndex: index(of: "\(alias).Z_ENT"), backIndex: backIndex,
                            inverseOwner: inverseOwner))
                }
            }
        }
        query.sql =
            "SELECT " + selected.joined(separator: ", ") + " FROM " + q(table.name) + " s "
            + joins.joined(separator: " ") + " ORDER BY s.Z_PK"
        return query
    }

    func importObjects(
        db: SQLiteDatabase, layout: CoreDataLayout, external: Set<ExternalAttribute>, writer: CoreDataImportWriter
    ) throws {
        var total = 0
        for table in layout.tables.values {
            let count = try db.prepare("SELECT COUNT(*) FROM \(SQLiteDatabase.quote(table.name))")
            if try count.step() { total += Int(count.int64(0)) }
        }
        var done = 0
        progress("objects", 0, total)
        for table in layout.tables.values.sorted(by: { $0.name < $1.name }) {
            let query = objectQuery(table, layout: layout, external: external)
            let rows = try db.prepare(query.sql)
            var batch: [ObjectID: [String: PropertyValue]] = [:]
            batch.reserveCapacity(options.batchSize)
            var batchBytes = 0
            while try rows.step() {
                done += 1
                let key = rows.int64(0)
                guard let object = try object(in: rows, table: table, key: key, layout: layout) else { continue }
                var values: [String: PropertyValue] = [:]
                var bytes = 0
                var problem: String?
                for a in query.attributes[object.entity] ?? [] {
                    do {
                        let value = try CoreDataValueDecoder.value(rows, a.index, type: a.type, external: a.external)
                        if value.isNull && !a.isOptional {
                            problem = "the required attribute \(a.name) is nil"
                            break
                        }
                        values[a.name] = .attribute(value)
                        bytes += CoreDataImportWriter.size(of: value)
                    } catch {
                        problem = "attribute \(a.name): \(error.message)"
                        break
                    }
                }
                var leftOut: [(ToOneColumn, String)] = []
                if problem == nil {
                    for column in query.toOnes[object.entity] ?? [] {
                        let r = column.relationship
                        guard !rows.isNull(column.keyIndex) else {
                            if !r.isOptional { problem = "the required relationship \(r.name) is nil" }
                            continue
                        }
                        switch toOneTarget(rows, column, owner: object, layout: layout) {
                        case let .kept(target):
                            values[r.name] = .toOne(target)
                        case let .leftOut(why):
                            if !r.isOptional {
                                problem = "the required relationship \(r.name) \(why)"
                            } else {
                                leftOut.append((column, why))
                            }
                        }
                        if problem != nil { break }
                    }
                }
                if let problem {
                    notImported.insert(object)
                    try bad(table.name, key, problem + "; the row is not imported")
                    continue
                }
                for (column, why) in leftOut {
                    linksLeftOut.insert(LinkKey(owner: object, relationship: column.relationship.name))
                    try bad(table.name, key, "\(object.entity).\(column.relationship.name) \(why); left out")
                }
                batch[object] = values
                batchBytes += bytes
                objectCounts[object.entity, default: 0] += 1
                if key > largestKeys[table.root, default: 0] { largestKeys[table.root] = key }
                if batch.count >= options.batchSize {
                    try writer.load(batch, bytes: batchBytes)
                    batch.removeAll(keepingCapacity: true)
                    batchBytes = 0
                    progress("objects", done, total)
                }
            }
            if !batch.isEmpty { try writer.load(batch, bytes: batchBytes) }
            progress("objects", done, total)
        }
    }

    /// What becomes of one non-nil to-one key.
    private enum ToOneOutcome {
        case kept(ObjectID)
        /// Why it is left out ("points at …").
        case leftOut(String)
    }

    /// Applies LK1 to the to-one `column` of the current row.
    private func toOneTarget(
        _ rows: SQLiteStatement, _ column: ToOneColumn, owner: ObjectID, layout: CoreDataLayout
    ) -> ToOneOutcome {
        let r = column.relationship
        let targetKey = rows.int64(column.keyIndex)
        guard let number = rows.optionalInt64(column.targetEntityIndex) else {
            return .leftOut("points at Z_PK \(targetKey), which does not exist")
        }
        guard let entity = layout.entityOfNumber[number], layout.model.isEntity(entity, kindOf: r.destination),
            column.inverseOwner.map({ layout.model.isEntity(entity, kindOf: $0) }) ?? true
        else {
            return .leftOut("points at Z_PK \(targetKey), which is not a \(r.destination)")
        }
        let target = ObjectID(entity: entity, primaryKey: targetKey)
        if notImported.contains(target) { return .leftOut("points at \(target), a row not imported") }
        if let back = column.backIndex, rows.optionalInt64(back) != owner.primaryKey {
            let other = rows.optionalInt64(back).map { "Z_PK \($0)" } ?? "nil"
            return .leftOut("points at \(target), whose inverse points at \(other) (the one-to-one disagrees)")
        }
        return .kept(target)
    }

    /// The object a row is, or nil (listed) when its Z_ENT or key cannot be one.
    private func object(
        in row: SQLiteStatement, table: CoreDataTable, key: Int64, layout: CoreDataLayout
    ) throws -> ObjectID? {
        let number = row.int64(1)
        guard let entity = layout.entityOfNumber[number], table.entities.contains(entity) else {
            if let entity = layout.entityOfNumber[number] {
                notImported.insert(ObjectID(entity: entity, primaryKey: key))
            }
            try bad(table.name, key, "Z_ENT \(number) is no entity of this table; the row is not imported")
            return nil
        }
        guard key > 0 else {
            notImported.insert(ObjectID(entity: entity, primaryKey: key))
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

    func declaringEntity(_ relationship: String, from entity: String, _ model: ObjectModel) -> String? {
        var next: String? = entity
        while let current = next, let e = model.entity(named: current) {
            if e.relationships.contains(where: { $0.name == relationship }) { return current }
            next = e.parent
        }
        return nil
    }
}

/// One relationship of one object, for links left out and listed already.
struct LinkKey: Hashable {
    let owner: ObjectID
    let relationship: String
}
