import CdObjects

// `query --expand department`: a to-one shown as its target's properties instead of its ID.
//
// Invariants:
//  TE1. Only a stored to-one of the queried entity expands; anything else is a usage error naming
//       it. The target's columns are its entity's stored properties (the relationship's
//       destination; a sub-entity target shows the destination's properties), its own
//       relationships as IDs: one level, never recursive.
//  TE2. The targets of all rows are read in one fetch per expanded relationship (`SELF IN`), in
//       the query's snapshot, so an expansion costs one read per target, not per row.
//  TE3. json and ndjson nest the target as an object (`"department":{"objectID":…,"name":…}`,
//       `null` for no target); table and csv keep the ID column and add `department.name`, …
//       right after it.

/// The to-ones a query expands, and how they change its rows and columns.
struct ToOneExpansion {
    struct Expanded {
        /// The index of the to-one's column among the query's columns.
        var column: Int
        var columns: [Column]
    }

    let expanded: [Expanded]

    /// The expansions of `names` among `columns` of `entity` (TE1).
    init(_ names: [String], columns: [Column], entity: EntityDescription, session: StoreSession) throws {
        expanded = try names.map { name in
            guard let index = columns.firstIndex(where: { $0.name == name }) else {
                throw ToolFailure.usage(
                    "--expand \(name): "
                        + NameSuggestion.unknown(
                            "to-one", name, known: columns.filter { $0.kind == .toOne }.map(\.name), in: entity.name))
            }
            guard columns[index].kind == .toOne,
                let relationship = session.model.relationship(name, of: entity.name),
                let destination = session.model.entity(named: relationship.destination)
            else {
                throw ToolFailure.usage("--expand \(name): \(entity.name).\(name) is not a to-one relationship")
            }
            return Expanded(column: index, columns: try session.columns(of: destination))
        }
    }

    var isEmpty: Bool { expanded.isEmpty }

    /// Reads the targets of `rows` (TE2) and attaches them.
    func expand(_ rows: inout [ObjectRow], snapshot: ObjectSnapshot) throws {
        for e in expanded {
            var targets: [ObjectID] = []
            for row in rows { if case let .toOne(id?)? = row.values[e.column] { targets.append(id) } }
            var byID: [ObjectID: ObjectRow] = [:]
            for entity in Set(targets.map(\.entity)) {
                let ids = Array(Set(targets.filter { $0.entity == entity }))
                var request = FetchRequest(entity: entity)
                request.predicate = try CdPredicate(format: "SELF IN %@", ids)
                for object in try snapshot.fetchObjects(request) {
                    byID[object.id] = try ObjectRow(
                        id: object.id, stored: object.values, columns: e.columns, snapshot: snapshot)
                }
            }
            for i in rows.indices {
                guard case let .toOne(id?)? = rows[i].values[e.column] else {
                    rows[i].expansions[e.column] = .some(nil)
                    continue
                }
                rows[i].expansions[e.column] = byID[id]
            }
        }
    }

    /// The columns of the flat forms (table, csv): each expanded to-one followed by its target's
    /// columns as `name.property` (TE3).
    func flatColumns(_ columns: [Column]) -> [Column] {
        var out: [Column] = []
        for (i, column) in columns.enumerated() {
            out.append(column)
            if let e = expanded.first(where: { $0.column == i }) {
                out += e.columns.map { Column(name: column.name + "." + $0.name, kind: $0.kind) }
            }
        }
        return out
    }

    /// `row` in the flat form of `flatColumns`.
    func flatRow(_ row: ObjectRow) -> ObjectRow {
        var values: [PropertyValue?] = []
        for (i, value) in row.values.enumerated() {
            values.append(value)
            if let e = expanded.first(where: { $0.column == i }) {
                let target = row.expansions[i] ?? nil
                values += e.columns.indices.map { target?.values[$0] ?? nil }
            }
        }
        return ObjectRow(id: row.id, values: values)
    }

    /// The columns of the target of column `index`, when it is expanded (for json, TE3).
    func columns(ofExpanded index: Int) -> [Column]? {
        expanded.first { $0.column == index }?.columns
    }
}
