import CdObjects
import Foundation

// How `import` writes its records: every object is inserted with its attributes first, then the
// to-ones are set, then the to-manys, so that a relationship may name an object of any record of
// any source (a later line, another entity's file) and a to-many's order is the file's.
//
// Invariants:
//  IR1. Without `--batch`, everything is one streaming write (ObjectStoreWriter): the sources are
//       read once per phase, the changes applied `pageSize` records at a time, and nothing is
//       committed unless every record of every source is written and validated (validation as
//       the API does it: at commit, against the final state). Any failure rolls everything back.
//  IR2. With `--batch N`, every record is read and checked first without writing (so a
//       malformed value stops the import before the first commit); then each run of N records
//       is one commit of its three phases, and its relationships may name only objects already
//       in the store or in the same run. A failure in run k leaves runs 1…k-1 committed, and
//       the error says so.
//  IR3. A record's object ID is its `objectID` field (Entity/key, the entity or a sub-entity of
//       the source's, never abstract), else a new key of the source's entity, handed out by the
//       store in record order and kept (8 bytes a record) so that later phases and error reports
//       find the same object. An ID given twice is an error naming both records.
//  IR4. An error of the store (validation, uniqueness, a target that does not exist) names the
//       record of the object it is about, found by reading the sources again.

/// One record, read and checked against the model.
struct ParsedRecord {
    var location: RecordLocation
    /// The `objectID` field, when the record has one.
    var id: ObjectID?
    var attributes: [String: PropertyValue] = [:]
    var toOnes: [String: PropertyValue] = [:]
    var toManys: [String: PropertyValue] = [:]
}

/// The records of some sources written into a store (IR1–IR4).
final class ImportRun {
    /// Records whose changes go into the writer at once (IR1).
    static let pageSize = 512

    let store: ObjectStore
    let sources: [ImportSource]
    private let parser: ImportValueParser
    /// The keys handed out to records without an `objectID`, per source, in record order (IR3).
    private var allocated: [[ObjectID]]
    /// Every explicit ID seen so far, with its record (IR3).
    private var explicit: [ObjectID: RecordLocation] = [:]
    /// Objects written, per entity.
    private(set) var counts: [String: Int] = [:]
    /// Commits made.
    private(set) var commits = 0
    /// Called after each page: the phase, and how far the import is (0…1) when it knows.
    var progress: ((_ phase: String, _ fraction: Double) -> Void)?
    /// Records in all sources, once a first reading has counted them.
    private var total: Int?

    init(store: ObjectStore, sources: [ImportSource]) {
        self.store = store
        self.sources = sources
        parser = ImportValueParser(model: store.model)
        allocated = Array(repeating: [], count: sources.count)
    }

    /// Reads `record` of `source` against the model (IR3 for the ID; VP1–VP3 for values).
    func parse(_ record: ImportRecord, of source: ImportSource) throws -> ParsedRecord {
        let model = store.model
        var parsed = ParsedRecord(location: record.location)
        for (key, field) in record.fields.sorted(by: { $0.key < $1.key }) {
            do {
                if key == objectIDColumn {
                    parsed.id = try objectID(field, of: source)
                    continue
                }
                if let attribute = model.attribute(key, of: source.entity.name), !attribute.isTransient {
                    parsed.attributes[key] = .attribute(try parser.value(field, attribute: attribute))
                } else if let relationship = model.relationship(key, of: source.entity.name),
                    !relationship.isTransient
                {
                    let value = try parser.value(field, relationship: relationship)
                    if relationship.isToMany { parsed.toManys[key] = value } else { parsed.toOnes[key] = value }
                } else {
                    let known =
                        [objectIDColumn] + model.allAttributes(of: source.entity.name).map(\.name)
                        + model.allRelationships(of: source.entity.name).map(\.name)
                    throw ImportFailure(
                        location: record.location,
                        message: NameSuggestion.unknown("property", key, known: known, in: source.entity.name))
                }
            } catch let e as ImportValueError {
                throw ImportFailure(location: record.location, message: "\(e.property): \(e.reason)")
            }
        }
        if let id = parsed.id, model.entity(named: id.entity)?.isAbstract == true {
            throw ImportFailure(
                location: record.location, message: "\(objectIDColumn): \(id.entity) is abstract and has no objects")
        }
        if parsed.id == nil, source.entity.isAbstract {
            throw ImportFailure(
                location: record.location,
                message: "\(source.entity.name) is abstract: the record needs an \(objectIDColumn) of a sub-entity")
        }
        return parsed
    }

    private func objectID(_ field: ImportField, of source: ImportSource) throws -> ObjectID? {
        let text: String
        switch field {
        case .json(.null): return nil
        case let .text(t) where t.isEmpty: return nil
        case let .json(.string(t)), let .text(t): text = t
        case let .json(other):
            throw ImportValueError(property: objectIDColumn, reason: "\(other.kindName) is not an ID")
        }
        guard let id = parser.objectID(text) else {
            throw ImportValueError(property: objectIDColumn, reason: "\"\(text)\" is not an object ID (Entity/key)")
        }
        guard store.model.isEntity(id.entity, kindOf: source.entity.name) else {
            throw ImportValueError(property: objectIDColumn, reason: "\(text) is not a \(source.entity.name)")
        }
        return id
    }

    // MARK: - One transaction (IR1)

    /// Imports every record of every source in one commit (IR1).
    func importAtOnce() throws {
        let writer = try store.beginWriter()
        defer { if writer.isOpen { writer.rollback() } }
        try phase("objects", 0, writer) { parsed, id, changes in
            changes.inserted[id] = parsed.attributes
        }
        try phase("to-one relationships", 1, writer) { parsed, id, changes in
            if !parsed.toOnes.isEmpty { changes.updated[id] = parsed.toOnes }
        }
        try phase("to-many relationships", 2, writer) { parsed, id, changes in
            if !parsed.toManys.isEmpty { changes.updated[id] = parsed.toManys }
        }
        do { try writer.commit() } catch { throw locating(error, committed: 0) }
        commits = 1
    }

    /// Reads every source once, adding each record's changes (`add`) to pages applied to `writer`.
    private func phase(
        _ name: String, _ number: Int, _ writer: ObjectStoreWriter,
        _ add: (ParsedRecord, ObjectID, inout ChangeSet) throws -> Void
    ) throws {
        let inserting = name == "objects"
        var changes = ChangeSet()
        var pending = 0
        var done = 0
        func flush() throws {
            guard !changes.isEmpty else { return }
            do { try writer.apply(changes) } catch { throw locating(error, committed: 0) }
            changes = ChangeSet()
            pending = 0
            progress?(name, (Double(number) + (total.map { Double(done) / Double(max($0, 1)) } ?? 0)) / 3)
        }
        for (index, source) in sources.enumerated() {
            var nth = 0
            try source.forEachRecord { record in
                let parsed = try parse(record, of: source)
                let id = try identity(of: parsed, source: index, nth: &nth, assigning: inserting)
                if inserting { counts[id.entity, default: 0] += 1 }
                try add(parsed, id, &changes)
                pending += 1
                done += 1
                if pending >= Self.pageSize { try flush() }
            }
        }
        try flush()
        total = done
    }

    /// The object ID of a record (IR3): its explicit one, else the `nth` key handed out to the
    /// source, made when `assigning` (the first phase).
    private func identity(of parsed: ParsedRecord, source: Int, nth: inout Int, assigning: Bool) throws -> ObjectID {
        if let id = parsed.id {
            if assigning {
                if let other = explicit[id] {
                    throw ImportFailure(
                        location: parsed.location, message: "\(objectIDColumn) \(id) is also the object of \(other)")
                }
                explicit[id] = parsed.location
            }
            return id
        }
        defer { nth += 1 }
        if assigning, nth == allocated[source].count {
            allocated[source].append(try store.newObjectIDs(entity: sources[source].entity.name, count: 1)[0])
        }
        return allocated[source][nth]
    }

    // MARK: - Runs of N records (IR2)

    /// Checks every record, then imports runs of `size` records, one commit each (IR2).
    func importInRuns(of size: Int) throws {
        var records = 0
        for source in sources {
            try source.forEachRecord { record in
                _ = try parse(record, of: source)
                records += 1
            }
        }
        var run: [(record: ParsedRecord, source: Int)] = []
        var committedRecords = 0
        func commitRun() throws {
            guard !run.isEmpty else { return }
            let writer = try store.beginWriter()
            defer { if writer.isOpen { writer.rollback() } }
            do {
                var ids: [ObjectID] = []
                var inserted = ChangeSet()
                var nths = Array(repeating: 0, count: sources.count)
                for (parsed, source) in run {
                    nths[source] = allocated[source].count
                    let id = try identity(of: parsed, source: source, nth: &nths[source], assigning: true)
                    ids.append(id)
                    inserted.inserted[id] = parsed.attributes
                }
                try writer.apply(inserted)
                var toOnes = ChangeSet()
                var toManys = ChangeSet()
                for ((parsed, _), id) in zip(run, ids) {
                    if !parsed.toOnes.isEmpty { toOnes.updated[id] = parsed.toOnes }
                    if !parsed.toManys.isEmpty { toManys.updated[id] = parsed.toManys }
                }
                if !toOnes.isEmpty { try writer.apply(toOnes) }
                if !toManys.isEmpty { try writer.apply(toManys) }
                try writer.commit()
                for id in ids { counts[id.entity, default: 0] += 1 }
            } catch let failure as ImportFailure {
                throw failure
            } catch {
                throw locating(error, committed: committedRecords)
            }
            commits += 1
            committedRecords += run.count
            progress?("records", Double(committedRecords) / Double(max(records, 1)))
            run.removeAll(keepingCapacity: true)
        }
        for (index, source) in sources.enumerated() {
            try source.forEachRecord { record in
                run.append((try parse(record, of: source), index))
                if run.count >= size { try commitRun() }
            }
        }
        try commitRun()
    }

    // MARK: - Errors (IR4)

    /// `error` as a failure naming the record of the object it is about, when it names one.
    private func locating(_ error: any Error, committed: Int) -> any Error {
        if error is ImportFailure || error is ToolFailure { return error }
        let kept = committed > 0 ? " (the first \(committed) records are committed; nothing after them is)" : ""
        var failure: ValidationFailure?
        if let e = error as? CdError {
            if case let .multipleValidationErrors(list) = e {
                failure = list.first?.failure
            } else {
                failure = e.failure
            }
        }
        let message = ToolFailure.oneLine(String(describing: error))
        if let objectID = failure?.objectID, let location = try? location(of: objectID) {
            return ImportFailure(location: location, message: message + kept)
        }
        return ToolFailure.usage(message + kept)
    }

    /// The record whose object is `description` (`Entity/key`), by reading the sources again.
    private func location(of description: String) throws -> RecordLocation? {
        for (index, source) in sources.enumerated() {
            var nth = 0
            var found: RecordLocation?
            do {
                try source.forEachRecord { record in
                    let parsed = try parse(record, of: source)
                    let id: ObjectID?
                    if let explicit = parsed.id {
                        id = explicit
                    } else {
                        id = nth < allocated[index].count ? allocated[index][nth] : nil
                        nth += 1
                    }
                    if id?.description == description {
                        found = record.location
                        throw FoundRecord()
                    }
                }
            } catch is FoundRecord {
                return found
            }
        }
        return nil
    }

    private struct FoundRecord: Error {}
}
