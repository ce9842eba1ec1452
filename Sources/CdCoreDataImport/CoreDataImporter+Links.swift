// Step 3, second part: every to-many list, written as the store's relationship entries
// (CoreDataImportWriter.loadLinks, LD2), owner by owner in key order, each list in pieces of at
// most `Options.batchSize` members (an ordered list's positions continue from piece to piece),
// so that no list is ever held whole: a list of any length costs one piece of memory (CI2), and
// the writer may commit between two pieces of one list (the store is the import's temporary
// one, CI1). Lists are read from:
//
//   to-many with a to-one inverse    the inverse's key column in the members' table, grouped by
//                                    owner; an ordered one in Z_FOK_ order
//   to-many without inverse          the hidden owner column in the members' table
//   many-to-many                     the join table, once per side, each side in its Z_FOK_ order
//                                    when it is ordered and the table has one
//
// A member comes once per list: the members' table gives each row once, and a join table its
// (owner, member) pairs once (Core Data's primary key); a side read in Z_FOK_ order groups the
// pairs anyway, keeping each member's first place, because pieces of an ordered list cannot
// drop a repeated member as one whole list did (LD2).
//
// The to-ones were written with their objects (+Objects). A link is written when both ends are
// imported objects of entities the relationship and its inverse may hold (the rule LK1 of
// +Objects), so every list agrees with the to-ones pointing at its owner, and the two sides of a
// many-to-many with each other (LD3 of the store's load). Every query joins the owners' table,
// so a key pointing at no row is found without a look-up per key. Links of a to-many with a
// to-one inverse were listed, when left out, with the to-one; the others are listed here (CI3).
//
// Last, `clearLinksToRowsNotImported`: a to-one written before the row it points at turned out
// bad (a later table, or a later row) is cleared through the store's general path, and listed.

import CdObjects
import Foundation

extension CoreDataImporter {
    /// One side of one to-many: the SQL yielding (owner Z_PK, owner Z_ENT, member Z_PK, member
    /// Z_ENT) rows, sorted by owner then member order.
    private struct ListQuery {
        /// The entity declaring the to-many, and it.
        let entity: String
        let relationship: RelationshipDescription
        /// The entity the members must also be a kind of (the declaring entity of a to-one or
        /// to-many inverse), if any.
        let memberOwner: String?
        /// The table reported for bad links; nil: left-out links are not listed here (+Objects has).
        let reportedTable: String?
        let sql: String
    }

    func importLinks(
        db: SQLiteDatabase, schema: CoreDataStoreSchema, layout: CoreDataLayout, writer: CoreDataImportWriter
    ) throws {
        let queries = listQueries(layout, schema: schema)
        for (i, query) in queries.enumerated() {
            progress("relationships", i, queries.count)
            try importList(query, db: db, layout: layout, writer: writer)
        }
        progress("relationships", queries.count, queries.count)
    }

    private func listQueries(_ layout: CoreDataLayout, schema: CoreDataStoreSchema) -> [ListQuery] {
        let model = layout.model
        var queries: [ListQuery] = []
        func q(_ name: String) -> String { SQLiteDatabase.quote(name) }
        func kinds(_ entity: String) -> String {
            layout.storeNumbers(ofKind: entity).map(String.init).joined(separator: ",")
        }
        for e in model.entities.sorted(by: { $0.name < $1.name }) {
            guard let ownerTable = layout.table(of: e.name) else { continue }
            for r in e.relationships where !r.isTransient && r.isToMany {
                guard let memberTable = layout.table(of: r.destination) else { continue }
                let inverse = layout.storedInverse(of: r, in: e.name)
                if let inverse, !inverse.isToMany {
                    guard let inverseOwner = declaringEntity(inverse.name, from: r.destination, model),
                        let column = memberTable.columns[.property(entity: inverseOwner, name: inverse.name)]
                    else { continue }
                    let order =
                        r.isOrdered
                        ? memberTable.columns[.order(entity: e.name, name: r.name)].map { "c.\(q($0)), " } : nil
                    queries.append(
                        ListQuery(
                            entity: e.name, relationship: r, memberOwner: inverseOwner, reportedTable: nil,
                            sql: "SELECT c.\(q(column)), p.Z_ENT, c.Z_PK, c.Z_ENT FROM \(q(memberTable.name)) c "
                                + "LEFT JOIN \(q(ownerTable.name)) p ON p.Z_PK = c.\(q(column)) "
                                + "WHERE c.\(q(column)) IS NOT NULL AND c.Z_ENT IN (\(kinds(inverseOwner))) "
                                + "ORDER BY c.\(q(column)), \(order ?? "")c.Z_PK"))
                } else if inverse == nil {
                    guard let column = memberTable.columns[.owner(entity: e.name, name: r.name)] else { continue }
                    queries.append(
                        ListQuery(
                            entity: e.name, relationship: r, memberOwner: nil, reportedTable: memberTable.name,
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
                let inverse = layout.storedInverse(of: r, in: e.name),
                let inverseOwner = declaringEntity(inverse.name, from: r.destination, model),
                let ownerTable = layout.table(of: join.ownerEntity), let memberTable = layout.table(of: r.destination)
            else { continue }
            /// The join table, or, read in an order column, its pairs once each at their first place.
            func pairs(orderedBy column: String?) -> String {
                guard let column else { return q(join.name) }
                return "(SELECT \(q(join.ownerColumn)), \(q(join.memberColumn)), MIN(\(q(column))) AS \(q(column)) "
                    + "FROM \(q(join.name)) GROUP BY 1, 2)"
            }
            // One side: the owners' lists, in the owners' order when ordered.
            let order = join.orderColumn.map { "j.\(q($0)), " } ?? ""
            queries.append(
                ListQuery(
                    entity: e.name, relationship: r, memberOwner: inverseOwner, reportedTable: join.name,
                    sql: "SELECT j.\(q(join.ownerColumn)), o.Z_ENT, j.\(q(join.memberColumn)), m.Z_ENT "
                        + "FROM \(pairs(orderedBy: join.orderColumn)) j "
                        + "LEFT JOIN \(q(ownerTable.name)) o ON o.Z_PK = j.\(q(join.ownerColumn)) "
                        + "LEFT JOIN \(q(memberTable.name)) m ON m.Z_PK = j.\(q(join.memberColumn)) "
                        + "ORDER BY j.\(q(join.ownerColumn)), \(order)j.\(q(join.memberColumn))"))
            // The other side: the members' lists, in their own order column when both are ordered.
            let otherOrderColumn = "Z_FOK_" + join.ownerColumn.dropFirst(2)
            let otherOrdered = inverse.isOrdered && (schema.tables[join.name] ?? []).contains(otherOrderColumn)
            let otherOrder = otherOrdered ? "j.\(q(otherOrderColumn)), " : ""
            queries.append(
                ListQuery(
                    entity: inverseOwner, relationship: inverse, memberOwner: e.name, reportedTable: nil,
                    sql: "SELECT j.\(q(join.memberColumn)), m.Z_ENT, j.\(q(join.ownerColumn)), o.Z_ENT "
                        + "FROM \(pairs(orderedBy: otherOrdered ? otherOrderColumn : nil)) j "
                        + "LEFT JOIN \(q(ownerTable.name)) o ON o.Z_PK = j.\(q(join.ownerColumn)) "
                        + "LEFT JOIN \(q(memberTable.name)) m ON m.Z_PK = j.\(q(join.memberColumn)) "
                        + "ORDER BY j.\(q(join.memberColumn)), \(otherOrder)j.\(q(join.ownerColumn))"))
        }
        return queries
    }

    /// Reads one side's rows and writes each owner's list in pieces of at most `batchSize`
    /// members (CI2): `members` never holds more than one piece.
    private func importList(
        _ query: ListQuery, db: SQLiteDatabase, layout: CoreDataLayout, writer: CoreDataImportWriter
    ) throws {
        let r = query.relationship
        let rows = try db.prepare(query.sql)
        var owner: ObjectID?
        /// The current owner's members not written yet, and how many its earlier pieces wrote.
        var members: [ObjectID] = []
        var written = 0
        func writePiece() throws {
            if let owner, !members.isEmpty {
                try writer.loadLinks(owner: owner, relationship: r.name, members: members, startingAt: written)
                written += members.count
            }
            members.removeAll(keepingCapacity: true)
        }
        func flushOwner() throws {
            try writePiece()
            owner = nil
            written = 0
        }
        func bad(_ key: Int64, _ problem: String) throws {
            guard let table = query.reportedTable else { return }
            try self.bad(table, key, problem)
        }
        let path = "\(query.entity).\(r.name)"
        while try rows.step() {
            let ownerKey = rows.int64(0)
            let memberKey = rows.int64(2)
            // The owner: a row of the table (join tables) or the key a member names.
            guard let ownerNumber = rows.optionalInt64(1) else {
                try bad(memberKey, "\(path): owner Z_PK \(ownerKey) does not exist; the link is not imported")
                continue
            }
            guard let ownerEntity = layout.entityOfNumber[ownerNumber],
                layout.model.isEntity(ownerEntity, kindOf: query.entity)
            else {
                try bad(ownerKey, "\(path): owner Z_PK \(ownerKey) is not a \(query.entity); not imported")
                continue
            }
            let ownerID = ObjectID(entity: ownerEntity, primaryKey: ownerKey)
            if notImported.contains(ownerID) { continue }  // listed already
            guard let memberNumber = rows.optionalInt64(3) else {
                try bad(ownerKey, "\(path) points at Z_PK \(memberKey), which does not exist; left out")
                continue
            }
            guard let memberEntity = layout.entityOfNumber[memberNumber],
                layout.model.isEntity(memberEntity, kindOf: r.destination),
                query.memberOwner.map({ layout.model.isEntity(memberEntity, kindOf: $0) }) ?? true
            else {
                try bad(ownerKey, "\(path) points at Z_PK \(memberKey), which is not a \(r.destination); left out")
                continue
            }
            let memberID = ObjectID(entity: memberEntity, primaryKey: memberKey)
            if notImported.contains(memberID) {
                try bad(ownerKey, "\(path) points at \(memberID), a row not imported; left out")
                continue
            }
            if owner != ownerID {
                try flushOwner()
                owner = ownerID
            }
            members.append(memberID)
            if members.count >= options.batchSize { try writePiece() }
        }
        try flushOwner()
    }

    /// Clears, and lists, every to-one written before the row it points at turned out bad
    /// (+Objects writes a row's to-ones when the row is read; a target in a later table or at a
    /// later key may be found bad after). One scan per to-one that may point at such a row.
    func clearLinksToRowsNotImported(db: SQLiteDatabase, layout: CoreDataLayout, writer: CoreDataImportWriter) throws {
        guard !notImported.isEmpty else { return }
        let model = layout.model
        let badEntities = Set(notImported.map(\.entity))
        func q(_ name: String) -> String { SQLiteDatabase.quote(name) }
        for e in model.entities.sorted(by: { $0.name < $1.name }) {
            guard let ownerTable = layout.table(of: e.name) else { continue }
            for r in e.relationships where !r.isTransient && !r.isToMany {
                guard badEntities.contains(where: { model.isEntity($0, kindOf: r.destination) }),
                    let column = ownerTable.columns[.property(entity: e.name, name: r.name)],
                    let targetTable = layout.table(of: r.destination)
                else { continue }
                let rows = try db.prepare(
                    "SELECT s.Z_PK, s.Z_ENT, s.\(q(column)), t.Z_ENT FROM \(q(ownerTable.name)) s "
                        + "JOIN \(q(targetTable.name)) t ON t.Z_PK = s.\(q(column)) ORDER BY s.Z_PK")
                var cleared: [ObjectID: [String: PropertyValue]] = [:]
                while try rows.step() {
                    guard let ownerEntity = layout.entityOfNumber[rows.int64(1)],
                        let targetEntity = layout.entityOfNumber[rows.int64(3)]
                    else { continue }
                    let owner = ObjectID(entity: ownerEntity, primaryKey: rows.int64(0))
                    let target = ObjectID(entity: targetEntity, primaryKey: rows.int64(2))
                    guard notImported.contains(target), !notImported.contains(owner),
                        model.isEntity(ownerEntity, kindOf: e.name),
                        linksLeftOut.insert(LinkKey(owner: owner, relationship: r.name)).inserted
                    else { continue }
                    try bad(
                        ownerTable.name, owner.primaryKey,
                        "\(e.name).\(r.name) points at \(target), a row not imported; left out")
                    cleared[owner] = [r.name: .toOne(nil)]
                    if cleared.count >= options.batchSize {
                        try writer.apply(ChangeSet(updated: cleared))
                        cleared.removeAll(keepingCapacity: true)
                    }
                }
                if !cleared.isEmpty { try writer.apply(ChangeSet(updated: cleared)) }
            }
        }
    }
}
