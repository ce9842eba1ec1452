// Step 3, second half: every relationship, set on the objects step 1 inserted, as updates
// through the same streaming writer. Each relationship is read from where Core Data keeps it
// (CoreDataLayout) and set from one side; the store keeps the inverse in step, as it does for
// any change:
//
//   to-one (and one side of a one-to-one)   its key column, from the owning row
//   ordered to-many with a to-one inverse   the inverse's key column, grouped by owner, members
//                                           in Z_FOK_ order (the inverse to-ones follow)
//   to-many without inverse                 the hidden owner column in the destination's table
//   many-to-many                            the join table, from the ordered side when one is
//                                           ordered (members in Z_FOK_ order)
//
// An unordered to-many with a to-one inverse is not read: setting the to-ones fills it. Every
// query joins the target's table, so a key that points at no row, or at a row of an entity the
// relationship cannot hold, is found and listed (CI3) without a look-up per key.

import CdObjects
import Foundation

extension CoreDataImporter {
    /// One relationship to read: the SQL yielding (owner Z_PK, owner Z_ENT, member Z_PK, member
    /// Z_ENT) rows, sorted by owner then member order.
    private struct RelationshipQuery {
        let entity: String
        let relationship: RelationshipDescription
        /// The table reported for bad rows, and whether its key column is the owner's.
        let table: String
        let sql: String
    }

    func importRelationships(db: SQLiteDatabase, layout: CoreDataLayout, writer: ObjectStoreWriter) throws {
        let queries = relationshipQueries(layout)
        for (i, query) in queries.enumerated() {
            progress("relationships", i, queries.count)
            try importRelationship(query, db: db, layout: layout, writer: writer)
        }
        progress("relationships", queries.count, queries.count)
    }

    private func relationshipQueries(_ layout: CoreDataLayout) -> [RelationshipQuery] {
        let model = layout.model
        var queries: [RelationshipQuery] = []
        func q(_ name: String) -> String { SQLiteDatabase.quote(name) }
        func kinds(_ entity: String) -> String {
            layout.storeNumbers(ofKind: entity).map(String.init).joined(separator: ",")
        }
        for e in model.entities.sorted(by: { $0.name < $1.name }) {
            guard let ownerTable = layout.table(of: e.name) else { continue }
            for r in e.relationships where !r.isTransient {
                guard let memberTable = layout.table(of: r.destination) else { continue }
                let inverse = layout.storedInverse(of: r, in: e.name)
                if !r.isToMany {
                    // Set from the to-many side instead when that side is ordered.
                    if let inverse, inverse.isToMany, inverse.isOrdered { continue }
                    // A one-to-one is set from one side (the store sets the other).
                    if let inverse, !inverse.isToMany,
                        let other = declaringEntity(inverse.name, from: r.destination, model),
                        (other, inverse.name) < (e.name, r.name)
                    {
                        continue
                    }
                    guard let column = ownerTable.columns[.property(entity: e.name, name: r.name)] else { continue }
                    queries.append(
                        RelationshipQuery(
                            entity: e.name, relationship: r, table: ownerTable.name,
                            sql: "SELECT s.Z_PK, s.Z_ENT, s.\(q(column)), d.Z_ENT FROM \(q(ownerTable.name)) s "
                                + "LEFT JOIN \(q(memberTable.name)) d ON d.Z_PK = s.\(q(column)) "
                                + "WHERE s.\(q(column)) IS NOT NULL AND s.Z_ENT IN (\(kinds(e.name))) ORDER BY s.Z_PK"))
                } else if let inverse, !inverse.isToMany {
                    guard r.isOrdered, let order = memberTable.columns[.order(entity: e.name, name: r.name)],
                        let inverseOwner = declaringEntity(inverse.name, from: r.destination, model),
                        let column = memberTable.columns[.property(entity: inverseOwner, name: inverse.name)]
                    else { continue }
                    queries.append(
                        RelationshipQuery(
                            entity: e.name, relationship: r, table: memberTable.name,
                            sql: "SELECT c.\(q(column)), p.Z_ENT, c.Z_PK, c.Z_ENT FROM \(q(memberTable.name)) c "
                                + "LEFT JOIN \(q(ownerTable.name)) p ON p.Z_PK = c.\(q(column)) "
                                + "WHERE c.\(q(column)) IS NOT NULL AND c.Z_ENT IN (\(kinds(inverseOwner))) "
                                + "ORDER BY c.\(q(column)), c.\(q(order)), c.Z_PK"))
                } else if inverse == nil {
                    guard let column = memberTable.columns[.owner(entity: e.name, name: r.name)] else { continue }
                    queries.append(
                        RelationshipQuery(
                            entity: e.name, relationship: r, table: memberTable.name,
                            sql: "SELECT c.\(q(column)), p.Z_ENT, c.Z_PK, c.Z_ENT FROM \(q(memberTable.name)) c "
                                + "LEFT JOIN \(q(ownerTable.name)) p ON p.Z_PK = c.\(q(column)) "
                                + "WHERE c.\(q(column)) IS NOT NULL AND c.Z_ENT IN (\(kinds(r.destination))) "
                                + "ORDER BY c.\(q(column)), c.Z_PK"))
                }
            }
        }
        for join in layout.joinTables {
            guard let e = model.entity(named: join.ownerEntity),
                let r = e.relationships.first(where: { $0.name == join.relationship }),
                let ownerTable = layout.table(of: join.ownerEntity), let memberTable = layout.table(of: r.destination)
            else { continue }
            let order = join.orderColumn.map { "j.\(q($0)), " } ?? ""
            queries.append(
                RelationshipQuery(
                    entity: e.name, relationship: r, table: join.name,
                    sql: "SELECT j.\(q(join.ownerColumn)), o.Z_ENT, j.\(q(join.memberColumn)), m.Z_ENT "
                        + "FROM \(q(join.name)) j "
                        + "LEFT JOIN \(q(ownerTable.name)) o ON o.Z_PK = j.\(q(join.ownerColumn)) "
                        + "LEFT JOIN \(q(memberTable.name)) m ON m.Z_PK = j.\(q(join.memberColumn)) "
                        + "ORDER BY j.\(q(join.ownerColumn)), \(order)j.\(q(join.memberColumn))"))
        }
        return queries
    }

    private func declaringEntity(_ relationship: String, from entity: String, _ model: ObjectModel) -> String? {
        var next: String? = entity
        while let current = next, let e = model.entity(named: current) {
            if e.relationships.contains(where: { $0.name == relationship }) { return current }
            next = e.parent
        }
        return nil
    }

    /// Reads one relationship's rows and sets it, owner by owner, in batches.
    private func importRelationship(
        _ query: RelationshipQuery, db: SQLiteDatabase, layout: CoreDataLayout, writer: ObjectStoreWriter
    ) throws {
        let r = query.relationship
        let rows = try db.prepare(query.sql)
        var updated: [ObjectID: [String: PropertyValue]] = [:]
        var owner: ObjectID?
        var members: [ObjectID] = []
        func flushOwner() {
            if let owner, !members.isEmpty { updated[owner] = [r.name: .toMany(members)] }
            owner = nil
            members.removeAll(keepingCapacity: true)
        }
        func flushBatch(force: Bool) throws {
            if !updated.isEmpty && (force || updated.count >= options.batchSize) {
                try writer.apply(ChangeSet(updated: updated))
                updated.removeAll(keepingCapacity: true)
            }
        }
        let path = "\(query.entity).\(r.name)"
        while try rows.step() {
            let ownerKey = rows.int64(0)
            let memberKey = rows.int64(2)
            // The owner: a row of the table (to-ones, join tables) or the key a member names.
            guard let ownerNumber = rows.optionalInt64(1) else {
                try bad(
                    query.table, r.isToMany ? memberKey : ownerKey,
                    "\(path): owner Z_PK \(ownerKey) does not exist; the link is not imported")
                continue
            }
            guard let ownerEntity = layout.entityOfNumber[ownerNumber],
                layout.model.isEntity(ownerEntity, kindOf: query.entity)
            else {
                try bad(query.table, ownerKey, "\(path): owner Z_PK \(ownerKey) is not a \(query.entity); not imported")
                continue
            }
            let ownerID = ObjectID(entity: ownerEntity, primaryKey: ownerKey)
            if notImported.contains(ownerID) { continue }  // listed already
            guard let memberNumber = rows.optionalInt64(3) else {
                try bad(
                    query.table, ownerKey,
                    "\(path) points at Z_PK \(memberKey), which does not exist; left out")
                continue
            }
            guard let memberEntity = layout.entityOfNumber[memberNumber],
                layout.model.isEntity(memberEntity, kindOf: r.destination)
            else {
                try bad(
                    query.table, ownerKey,
                    "\(path) points at Z_PK \(memberKey), which is not a \(r.destination); left out")
                continue
            }
            let memberID = ObjectID(entity: memberEntity, primaryKey: memberKey)
            if notImported.contains(memberID) {
                try bad(query.table, ownerKey, "\(path) points at \(memberID), a row not imported; left out")
                continue
            }
            if !r.isToMany {
                updated[ownerID] = [r.name: .toOne(memberID)]
                try flushBatch(force: false)
                continue
            }
            if owner != ownerID {
                flushOwner()
                try flushBatch(force: false)
                owner = ownerID
            }
            members.append(memberID)
        }
        flushOwner()
        try flushBatch(force: true)
    }
}
