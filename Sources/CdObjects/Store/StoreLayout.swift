// The catalog of the object store: every entity's layout, every index tree, and the names of the
// engine trees this layer owns. All tree names start with `cd.` so they cannot clash with trees
// of other layers; docs/FORMAT.md describes their keys and values byte by byte.
//
//   cd.meta                      format version, stored model (JSON), version hash, next keys,
//                                history ID
//   cd.history                   transaction number ‖ part → history entry (HistoryLayout.swift)
//   cd.rec.<Root>                primary key (u64 BE) → record (one tree per inheritance root)
//   cd.idx.<Entity>.<index>      column keys + primary key → empty
//   cd.rel.<Entity>.<rel>        source key + target key (or position) → target

/// Entity layouts and index definitions for one model (immutable, shared by all transactions).
final class StoreLayout: Sendable {
    /// The record format version, at the head of each record.
    static let formatVersion: UInt8 = 1
    /// The object store layout version in `cd.meta` ("format"): 1 the first layout, 2 the same
    /// with persistent history (`cd.history`, `history.id`). A build reads both; a store of
    /// layout 1 is raised to 2 when history starts in it (HistoryRecorder.startAnew).
    static let layoutVersion: UInt8 = HistoryLayout.formatVersion
    static let metaTree = "cd.meta"
    static let metaFormatKey: [UInt8] = Array("format".utf8)
    static let metaModelKey: [UInt8] = Array("model".utf8)
    static let metaHashKey: [UInt8] = Array("hash".utf8)

    /// The `format` entry a new store gets: `layoutVersion` as u32 LE.
    static var formatEntry: [UInt8] { [layoutVersion, 0, 0, 0] }

    /// Why the `format` entry of `cd.meta` is not one this build reads, or nil when it is. The one
    /// check of the entry: `ObjectStore.open` refuses the store with it and the verifier reports it.
    static func formatProblem(_ entry: [UInt8]?) -> FormatProblem? {
        guard let entry else { return .missing }
        guard entry.count == 4 else { return .damaged("the format entry is \(entry.count) bytes, not 4") }
        let version = entry.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        if version >= 1 && version <= UInt32(layoutVersion) { return nil }
        return version > UInt32(layoutVersion)
            ? .newer(version) : .damaged("object format version \(version) does not exist")
    }

    /// What is wrong with the `format` entry of `cd.meta` (see `formatProblem`).
    enum FormatProblem: Equatable, CustomStringConvertible {
        case missing
        case damaged(String)
        /// Written by a newer object layout than this build reads.
        case newer(UInt32)

        var description: String {
            switch self {
            case .missing: return "the format entry is missing"
            case let .damaged(detail): return detail
            case let .newer(version):
                return "object format version \(version) is newer than this build reads (\(StoreLayout.layoutVersion))"
            }
        }
    }

    /// A `next.<Root>` value: u64 LE, at least 1; nil when the bytes are not one.
    static func decodeNextKey(_ value: [UInt8]) -> Int64? {
        var r = RecordReader(value)
        guard value.count == 8, let next = try? Int64(bitPattern: r.u64LE()), next >= 1 else { return nil }
        return next
    }

    static func recordTreeName(root: String) -> String { "cd.rec.\(root)" }
    static func relationshipTreeName(entity: String, relationship: String) -> String {
        "cd.rel.\(entity).\(relationship)"
    }
    static func indexTreeName(entity: String, name: String) -> String { "cd.idx.\(entity).\(name)" }
    static func nextKeyKey(root: String) -> [UInt8] { Array("next.\(root)".utf8) }

    let model: ObjectModel
    let entities: [String: EntityLayout]
    /// Layouts by code (EL1).
    let byCode: [EntityLayout]
    /// Layouts by the process-wide code of their name (OI1): an identifier finds its entity's
    /// layout with an array read, no name hashed.
    private let byNameCode: EntityCodeMap<EntityLayout>
    /// Names of inheritance roots, sorted.
    let roots: [String]
    let indexDefinitions: [IndexDefinition]
    /// The model's predicate schema as a table, for validating every fetch's predicate (FK4).
    let predicateSchema: TabledPredicateSchema

    init(model: ObjectModel) {
        self.model = model
        predicateSchema = TabledPredicateSchema(model)
        var definitions: [IndexDefinition] = []
        for entity in model.entities {
            for a in entity.attributes where a.isIndexed && !a.isTransient {
                definitions.append(
                    IndexDefinition(
                        tree: Self.indexTreeName(entity: entity.name, name: "attr.\(a.name)"),
                        entity: entity.name, kind: .attribute, properties: [a.name], ascending: [true]))
            }
            for f in entity.fetchIndexes where !f.elements.isEmpty {
                definitions.append(
                    IndexDefinition(
                        tree: Self.indexTreeName(entity: entity.name, name: "fetch.\(f.name)"),
                        entity: entity.name, kind: .fetchIndex,
                        properties: f.elements.map(\.property), ascending: f.elements.map(\.isAscending)))
            }
            for c in entity.uniquenessConstraints where !c.isEmpty {
                definitions.append(
                    IndexDefinition(
                        tree: Self.indexTreeName(entity: entity.name, name: "unique.\(c.joined(separator: "+"))"),
                        entity: entity.name, kind: .unique,
                        properties: c, ascending: c.map { _ in true }))
            }
        }
        indexDefinitions = definitions
        let names = model.entityNames.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let codes = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        let layouts = names.enumerated().map {
            EntityLayout(name: $1, code: $0, codes: codes, model: model, definitions: definitions)
        }
        byCode = layouts
        entities = Dictionary(uniqueKeysWithValues: layouts.map { ($0.name, $0) })
        byNameCode = EntityCodeMap(entities)
        roots = Array(Set(layouts.map(\.root))).sorted()
    }

    /// The layout of `name`, or a 1550 error naming the unknown entity.
    func entity(_ name: String) throws -> EntityLayout {
        guard let e = entities[name] else {
            throw CdError.validation(
                ValidationFailure(entity: name, key: "entity", message: "the model has no entity named \(name)"))
        }
        return e
    }

    /// The layout of the entity of `id`, or nil when the model has no such entity.
    @inline(__always)
    func entity(of id: ObjectID) -> EntityLayout? { byNameCode[id] }

    /// The layout of the entity of `id`, or a 1550 error naming the unknown entity.
    func entityOrThrow(of id: ObjectID) throws -> EntityLayout {
        if let e = entity(of: id) { return e }
        return try entity(id.entity)
    }

    /// Whether an object of `entity` may be the target of a relationship to `destination`.
    func isKind(_ entity: String, of destination: String) -> Bool {
        entities[destination]?.kinds.contains(entity) ?? false
    }
}
