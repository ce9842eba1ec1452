// Core Data's SQLite layout of one model version, predicted from the model and matched against a
// store's schema: which table and column holds each property, which join table each
// many-to-many relationship, and every difference between the prediction and the store.
//
// Prediction rules (docs/COREDATA-IMPORT.md, "Where Core Data keeps what"):
//   entity numbers  roots sorted by name ignoring case, each followed depth-first by its
//                   sub-entities sorted the same way; numbered 1, 2, …
//   root table      "Z" + uppercased root name: Z_PK, Z_ENT, Z_OPT, then a column per stored
//                   attribute and to-one relationship of the root and every descendant
//                   ("Z" + uppercased name); a name declared by several entities of one table
//                   takes one column each, matched in entity order to `Z<NAME>`, `Z<NAME>1`, …
//   to-one          "Z<NAME>" holds the target's Z_PK; "Z<n>_<NAME>" its Z_ENT when the
//                   destination (number n) has sub-entities
//   ordered to-many "Z_FOK_<INVERSE>" in the destination's table orders the members
//   to-many, no inverse  "Z<n><NAME>" in the destination's table holds the owner's Z_PK (n: the
//                   owner entity's number)
//   many-to-many    a join table "Z_<n><NAME>" named after either side, with one column per side,
//                   "Z_<n><NAME OF THE RELATIONSHIP POINTING AT THAT SIDE>" plus an optional digit
//                   suffix, and "Z_FOK_<n><NAME>" (the member column's name) for an ordered side
//
// Invariants:
//  CL1. `differences` is empty exactly when every predicted table and column exists in the
//       store, the store has no app table or column the prediction lacks, and Z_PRIMARYKEY
//       names each model entity with its predicted number; only then does the importer read
//       through this layout, so every column it names exists.
//  CL2. `columns` maps each stored property of each entity to one column of its root table, and
//       no column serves two properties.

import CdObjects
import Foundation

/// Where one property or bookkeeping value lives in a root table.
enum ColumnKey: Hashable {
    /// An attribute or to-one relationship declared by `entity`.
    case property(entity: String, name: String)
    /// The Z_ENT of a to-one's target (`Z<n>_<NAME>`), when its destination has sub-entities.
    case targetEntity(entity: String, name: String)
    /// The order of an ordered to-many's members (`Z_FOK_<INVERSE>`), in the destination's table.
    case order(entity: String, name: String)
    /// The owner of a to-many without inverse (`Z<n><NAME>`), in the destination's table.
    case owner(entity: String, name: String)
}

/// One root entity's table.
struct CoreDataTable {
    let name: String
    let root: String
    /// The root and its descendants, in Core Data's numbering order.
    let entities: [String]
    /// Resolved columns (CL2).
    var columns: [ColumnKey: String] = [:]
}

/// The join table of one many-to-many pair.
struct CoreDataJoinTable {
    let name: String
    /// The side whose owners the importer sets the relationship on: its declaring entity and name.
    let ownerEntity: String
    let relationship: String
    /// Holds the owners' keys, and the members' keys.
    let ownerColumn: String
    let memberColumn: String
    /// Orders the members within each owner, when the owner's side is ordered.
    let orderColumn: String?
}

/// The predicted and resolved layout of one model version against one store (CL1, CL2).
struct CoreDataLayout {
    let model: ObjectModel
    /// Entity name → predicted Z_ENT.
    private(set) var numbers: [String: Int64] = [:]
    /// Root entity name → its table.
    private(set) var tables: [String: CoreDataTable] = [:]
    private(set) var joinTables: [CoreDataJoinTable] = []
    /// Store Z_ENT → model entity (by name, else by renaming identifier).
    private(set) var entityOfNumber: [Int64: String] = [:]
    /// Every difference between prediction and store (CL1).
    private(set) var differences: [String] = []

    init(model: ObjectModel, schema: CoreDataStoreSchema) {
        self.model = model
        numberEntities()
        mapStoredEntities(schema)
        var claimedTables: Set<String> = []
        for root in model.entities.filter({ $0.parent == nil }).map(\.name).sorted(by: Self.coreDataOrder) {
            let name = "Z" + root.uppercased()
            let entities = preorder(from: root)
            tables[root] = CoreDataTable(name: name, root: root, entities: entities)
            claimedTables.insert(name)
        }
        var expected: [String: [(ColumnKey, String)]] = [:]  // table → predicted plain columns
        var shared: [String: [String: [ColumnKey]]] = [:]  // table → base name → properties sharing it
        for table in tables.values {
            expected[table.name] = [
                (.property(entity: "", name: "Z_PK"), "Z_PK"), (.property(entity: "", name: "Z_ENT"), "Z_ENT"),
                (.property(entity: "", name: "Z_OPT"), "Z_OPT"),
            ]
            for entity in table.entities {
                guard let e = model.entity(named: entity) else { continue }
                for a in e.attributes where !a.isTransient {
                    shared[table.name, default: [:]]["Z" + a.name.uppercased(), default: []].append(
                        .property(entity: entity, name: a.name))
                }
                for r in e.relationships where !r.isTransient && !r.isToMany {
                    shared[table.name, default: [:]]["Z" + r.name.uppercased(), default: []].append(
                        .property(entity: entity, name: r.name))
                    if !model.directSubentities(of: r.destination).isEmpty, let n = numbers[r.destination] {
                        expected[table.name, default: []].append(
                            (.targetEntity(entity: entity, name: r.name), "Z\(n)_" + r.name.uppercased()))
                    }
                }
            }
        }
        for e in model.entities {
            for r in e.relationships where !r.isTransient && r.isToMany {
                guard let destinationTable = tableName(of: r.destination) else { continue }
                if let inverse = storedInverse(of: r, in: e.name) {
                    if !inverse.isToMany, r.isOrdered {
                        expected[destinationTable, default: []].append(
                            (.order(entity: e.name, name: r.name), "Z_FOK_" + inverse.name.uppercased()))
                    } else if inverse.isToMany {
                        claimJoinTable(r, in: e.name, inverse: inverse, schema: schema, claimed: &claimedTables)
                    }
                } else if let n = numbers[e.name] {
                    expected[destinationTable, default: []].append(
                        (.owner(entity: e.name, name: r.name), "Z\(n)" + r.name.uppercased()))
                }
            }
        }
        for (root, table) in tables {
            guard let actual = schema.tables[table.name] else {
                differences.append("table \(table.name) (entity \(root)) is missing")
                continue
            }
            let columns = resolveColumns(
                table.name, actual: actual, plain: expected[table.name] ?? [], shared: shared[table.name] ?? [:])
            tables[root]?.columns = columns
        }
        for name in schema.tables.keys.sorted() where !claimedTables.contains(name) {
            differences.append("table \(name) is not in the model")
        }
    }

    /// Core Data's order of entity names: ignoring case, then byte order for names equal so.
    static func coreDataOrder(_ a: String, _ b: String) -> Bool {
        switch a.compare(b, options: .caseInsensitive) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return a < b
        }
    }

    /// The table of an entity's hierarchy.
    func tableName(of entity: String) -> String? {
        model.rootEntity(of: entity).flatMap { tables[$0.name]?.name }
    }

    /// The table of an entity's hierarchy, as a value.
    func table(of entity: String) -> CoreDataTable? {
        model.rootEntity(of: entity).flatMap { tables[$0.name] }
    }

    /// The inverse the store keeps in step with `r` (a transient inverse is none).
    func storedInverse(of r: RelationshipDescription, in entity: String) -> RelationshipDescription? {
        guard let inverse = model.inverse(of: r.name, in: entity), !inverse.isTransient else { return nil }
        return inverse
    }

    /// The Z_ENT numbers of `entity` and its sub-entities, in the store's numbering.
    func storeNumbers(ofKind entity: String) -> [Int64] {
        entityOfNumber.filter { model.isEntity($0.value, kindOf: entity) }.keys.sorted()
    }

    // MARK: - Prediction

    private func preorder(from entity: String) -> [String] {
        [entity]
            + model.directSubentities(of: entity).map(\.name).sorted(by: Self.coreDataOrder).flatMap {
                preorder(from: $0)
            }
    }

    private mutating func numberEntities() {
        var next: Int64 = 1
        for root in model.entities.filter({ $0.parent == nil }).map(\.name).sorted(by: Self.coreDataOrder) {
            for entity in preorder(from: root) {
                numbers[entity] = next
                next += 1
            }
        }
    }

    /// Maps Z_PRIMARYKEY rows to model entities and notes every disagreement (CL1).
    private mutating func mapStoredEntities(_ schema: CoreDataStoreSchema) {
        var mapped: Set<String> = []
        for stored in schema.entities.values.sorted(by: { $0.number < $1.number }) {
            let entity =
                model.entity(named: stored.name)
                ?? model.entities.first { $0.renamingIdentifier == stored.name }
            guard let entity else {
                // History entities (16001…) have A-tables, which are skipped.
                if stored.number < 16000 {
                    differences.append("Z_PRIMARYKEY: entity \(stored.name) (\(stored.number)) is not in the model")
                }
                continue
            }
            entityOfNumber[stored.number] = entity.name
            mapped.insert(entity.name)
            if numbers[entity.name] != stored.number {
                differences.append(
                    "Z_PRIMARYKEY: entity \(entity.name) is number \(stored.number), the model gives "
                        + "\(numbers[entity.name] ?? 0)")
            }
        }
        for e in model.entities where !mapped.contains(e.name) {
            differences.append("Z_PRIMARYKEY: entity \(e.name) is missing")
        }
    }

    /// Finds the join table of `r` ⇄ `inverse` (either side's name) and its columns.
    private mutating func claimJoinTable(
        _ r: RelationshipDescription, in entity: String, inverse: RelationshipDescription,
        schema: CoreDataStoreSchema, claimed: inout Set<String>
    ) {
        guard let inverseOwner = declaringEntity(of: inverse.name, from: r.destination) else { return }
        // Each pair once: from the side that sorts first (or that is ordered when only one is).
        let thisFirst = (entity, r.name) <= (inverseOwner, inverse.name)
        let owns = r.isOrdered != inverse.isOrdered ? r.isOrdered : thisFirst
        guard owns else { return }
        guard let a = numbers[entity], let b = numbers[inverseOwner], let ownerSide = numbers[inverse.destination],
            let memberSide = numbers[r.destination]
        else { return }
        let candidates = ["Z_\(a)" + r.name.uppercased(), "Z_\(b)" + inverse.name.uppercased()]
        guard let name = candidates.first(where: { schema.tables[$0] != nil }) else {
            differences.append("join table \(candidates.joined(separator: " or ")) is missing")
            return
        }
        guard !claimed.contains(name) else { return }
        claimed.insert(name)
        let actual = schema.tables[name] ?? []
        let ownerPattern = "Z_\(ownerSide)" + inverse.name.uppercased()
        let memberPattern = "Z_\(memberSide)" + r.name.uppercased()
        let owners = actual.filter { Self.matches($0, base: ownerPattern) }.sorted(by: Self.suffixOrder)
        let members = actual.filter { Self.matches($0, base: memberPattern) }.sorted(by: Self.suffixOrder)
        let ownerColumn: String?
        let memberColumn: String?
        if ownerPattern == memberPattern {
            ownerColumn = owners.count == 2 ? owners[0] : nil
            memberColumn = owners.count == 2 ? owners[1] : nil
        } else {
            ownerColumn = owners.count == 1 ? owners[0] : nil
            memberColumn = members.count == 1 ? members[0] : nil
        }
        guard let ownerColumn, let memberColumn else {
            differences.append("join table \(name): columns \(ownerPattern) and \(memberPattern) not found")
            return
        }
        // `Z_FOK_` + the member column without its `Z_` (`Z_FOK_1FAVORITES` for `Z_1FAVORITES`).
        let order = r.isOrdered ? "Z_FOK_" + memberColumn.dropFirst(2) : nil
        if let order, !actual.contains(order) { differences.append("join table \(name): column \(order) is missing") }
        for column in actual where ![ownerColumn, memberColumn, order].contains(column) {
            // The other side's order column, when both sides are ordered, is not read.
            if column.hasPrefix("Z_FOK_") { continue }
            differences.append("join table \(name): column \(column) is not in the model")
        }
        joinTables.append(
            CoreDataJoinTable(
                name: name, ownerEntity: entity, relationship: r.name, ownerColumn: ownerColumn,
                memberColumn: memberColumn, orderColumn: order))
    }

    /// The entity (among `entity` and its ancestors) that declares `relationship`.
    private func declaringEntity(of relationship: String, from entity: String) -> String? {
        var next: String? = entity
        while let current = next, let e = model.entity(named: current) {
            if e.relationships.contains(where: { $0.name == relationship }) { return current }
            next = e.parent
        }
        return nil
    }

    // MARK: - Resolution

    /// `column` is `base` with an optional decimal suffix.
    static func matches(_ column: String, base: String) -> Bool {
        guard column.hasPrefix(base) else { return false }
        return column.dropFirst(base.count).allSatisfy(\.isASCII) && column.dropFirst(base.count).allSatisfy(\.isNumber)
    }

    /// Bare name first, then by numeric suffix.
    static func suffixOrder(_ a: String, _ b: String) -> Bool {
        a.count != b.count ? a.count < b.count : a < b
    }

    private mutating func resolveColumns(
        _ table: String, actual: [String], plain: [(ColumnKey, String)], shared: [String: [ColumnKey]]
    ) -> [ColumnKey: String] {
        var columns: [ColumnKey: String] = [:]
        let present = Set(actual)
        var used: Set<String> = []
        for (key, name) in plain {
            if present.contains(name) {
                if case .property(entity: "", _) = key {} else { columns[key] = name }
                used.insert(name)
            } else {
                differences.append("table \(table): column \(name) is missing")
            }
        }
        let reserved = Set(plain.map(\.1)).union(shared.keys)
        for (base, keys) in shared.sorted(by: { $0.key < $1.key }) {
            if keys.count == 1 {
                if present.contains(base) {
                    columns[keys[0]] = base
                    used.insert(base)
                } else {
                    differences.append("table \(table): column \(base) is missing")
                }
                continue
            }
            // A name several entities of the table declare: one column each, in entity order.
            let candidates = actual.filter {
                !used.contains($0) && Self.matches($0, base: base) && ($0 == base || !reserved.contains($0))
            }.sorted(by: Self.suffixOrder)
            guard candidates.count == keys.count else {
                differences.append(
                    "table \(table): \(keys.count) columns \(base)… expected (one per entity declaring it), "
                        + "found \(candidates.count)")
                continue
            }
            for (key, column) in zip(keys, candidates) {
                columns[key] = column
                used.insert(column)
            }
        }
        for column in actual where !used.contains(column) {
            differences.append("table \(table): column \(column) is not in the model")
        }
        return columns
    }
}
