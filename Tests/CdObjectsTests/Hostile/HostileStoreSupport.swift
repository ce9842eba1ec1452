// Hostile object stores: a small valid company store as in-memory file images, changed one
// stored value at a time through the engine's own write API (so every checksum is right and only
// the object layer can tell), and the one probe every hostile store goes through — the verifier
// with object checks, then `ObjectStore.open` and a read of every object and relationship.

import CdStore
import Foundation
import Testing
@testable import CdObjects

/// The files of one store (page file and WAL) by path, on an `InMemoryFileSystem`.
struct StoreImage: Sendable {
    static let path = "/hostile.cdstore"
    var files: [String: [UInt8]]

    var fileSystem: InMemoryFileSystem { InMemoryFileSystem(files: files) }

    var options: StoreOptions {
        var options = StoreOptions(fileSystem: fileSystem)
        options.durability = .off
        return options
    }

    /// The company store the hostile stores start from: every relationship shape of
    /// `companyModel()` (to-one, to-many, many-to-many, ordered to-many, one-to-one), two
    /// attribute indexes and three uniqueness constraints, a dozen objects; closed.
    static func company() throws -> StoreImage {
        let fs = InMemoryFileSystem()
        var options = StoreOptions(fileSystem: fs)
        options.durability = .off
        let store = try ObjectStore.open(path: path, model: try companyModel(), options: options)
        let office = try store.insert("Office", ["city": str("Lyon")])
        let d1 = try store.insert("Department", ["name": str("R&D"), "budget": int(500), "office": .toOne(office)])
        let d2 = try store.insert("Department", ["name": str("Sales"), "office": .toOne(office)])
        let eve = try store.insert(
            "Employee", ["badge": str("E1"), "name": str("Eve"), "salary": int(10), "department": .toOne(d1)])
        let bob = try store.insert(
            "Employee",
            [
                "badge": str("E2"), "name": str("Bob"), "department": .toOne(d2),
                "hired": .attribute(.date(Date(timeIntervalSinceReferenceDate: 86_400))),
            ])
        let ann = try store.insert(
            "Manager",
            [
                "badge": str("M1"), "name": str("Ann"), "level": int(3), "department": .toOne(d1),
                "reports": .toMany([eve, bob]),
            ])
        _ = try store.insert(
            "Project", ["title": str("Apollo"), "members": .toMany([eve, ann]), "owner": .toOne(ann)])
        _ = try store.insert("Project", ["title": str("Gemini"), "members": .toMany([bob, eve])])
        _ = try store.insert("Desk", ["floor": int(1), "number": int(7), "owner": .toOne(eve)])
        #expect(try store.verify() == [], "the base store is consistent")
        try store.close()
        return StoreImage(fs)
    }

    /// The files of `fs`.
    init(_ fs: InMemoryFileSystem) {
        files = Dictionary(uniqueKeysWithValues: fs.paths.compactMap { p in fs.contents(of: p).map { (p, $0) } })
    }

    init(files: [String: [UInt8]]) { self.files = files }

    /// Every entry of every tree, by tree name (the catalog's own entries left out).
    func entries() throws -> [String: [(key: [UInt8], value: [UInt8])]] {
        var options = self.options
        options.readOnly = true
        let store = try Store.open(path: Self.path, options: options)
        defer { try? store.close() }
        return try store.read { tx in
            var result: [String: [(key: [UInt8], value: [UInt8])]] = [:]
            for name in try tx.treeNames() {
                guard let tree = try tx.tree(name) else { continue }
                var list: [(key: [UInt8], value: [UInt8])] = []
                try tree.scan { key, value in
                    list.append((key, value)); return true
                }
                result[name] = list
            }
            return result
        }
    }

    /// This store with `body` run in one engine write transaction, then closed (checkpointed).
    func changed(_ body: (WriteTransaction) throws -> Void) throws -> StoreImage {
        let fs = fileSystem
        var options = StoreOptions(fileSystem: fs)
        options.durability = .off
        let store = try Store.open(path: Self.path, options: options)
        try store.write(body)
        try store.close()
        return StoreImage(fs)
    }

    /// This store with the entry `key` of `tree` replaced (nil: deleted), and the entries `also`
    /// put into the same tree.
    func replacing(
        tree: String, key: [UInt8], with replacement: (key: [UInt8], value: [UInt8])?,
        also: [(key: [UInt8], value: [UInt8])] = []
    ) throws -> StoreImage {
        try changed { tx in
            guard let t = try tx.tree(tree) else { throw StoreError.treeNotFound(tree) }
            _ = try t.delete(key)
            if let replacement { try t.put(replacement.key, replacement.value) }
            for (k, v) in also { try t.put(k, v) }
        }
    }
}

/// How a hostile store fared: the verifier's findings and what the object store made of it.
struct HostileOutcome: Sendable, CustomStringConvertible {
    /// The verifier's problems (with `ObjectStoreCheck`); nil when it threw (an operational error).
    var problems: [String]?
    /// The verifier's error, when it threw.
    var verifierError: String?
    /// The typed error that ended the open or a read, nil when everything read.
    var objectError: CdError?
    /// An error of another type than `CdError` from the object store (never acceptable).
    var untypedError: String?

    var description: String {
        "verifier: \(problems.map { "\($0.count) problems \($0.prefix(3))" } ?? "threw \(verifierError ?? "")"); "
            + "object store: "
            + "\(objectError.map { "\($0)" } ?? untypedError.map { "untyped \($0)" } ?? "read everything")"
    }

    /// The rules every hostile store must keep: the verifier reports rather than throws, the object
    /// store fails only with `CdError`, and whatever the object store found damaged the verifier
    /// found too.
    func expectKeptTheRules(_ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            problems != nil, "\(label): the verifier threw (an operational error for damage): \(self)",
            sourceLocation: sourceLocation)
        #expect(untypedError == nil, "\(label): \(self)", sourceLocation: sourceLocation)
        if let objectError, objectError.isDamage, let problems {
            #expect(
                !problems.isEmpty, "\(label): the object store found damage the verifier did not: \(self)",
                sourceLocation: sourceLocation)
        }
    }
}

extension CdError {
    /// Whether the error says the store's contents are wrong (rather than, say, locked).
    var isDamage: Bool {
        switch self {
        case .store(.corruption), .unsupportedObjectFormat, .incompatibleModel: return true
        default: return false
        }
    }
}

enum HostileProbe {
    /// Runs `image` through the verifier with object checks, then through `ObjectStore.open`, a
    /// fetch of every entity, the values and to-many targets of every object, new IDs for every
    /// concrete entity, and an insert the uniqueness index refuses.
    static func run(_ image: StoreImage, model: ObjectModel) -> HostileOutcome {
        var outcome = HostileOutcome()
        var verifierOptions = VerifierOptions(fileSystem: image.fileSystem)
        verifierOptions.additionalPasses = [ObjectStoreCheck()]
        verifierOptions.decodedPageCacheBytes = 1 << 20
        do {
            let report = try StoreVerifier.verify(path: StoreImage.path, options: verifierOptions)
            outcome.problems = report.problems.filter { $0.severity == .problem }.map(\.message)
        } catch {
            outcome.verifierError = "\(error)"
        }
        do {
            try readEverything(image, model: model)
        } catch let error as CdError {
            outcome.objectError = error
        } catch {
            outcome.untypedError = "\(type(of: error)): \(error)"
        }
        return outcome
    }

    static func readEverything(_ image: StoreImage, model: ObjectModel) throws {
        var options = image.options
        options.cacheBytes = 1 << 20
        let store = try ObjectStore.open(path: StoreImage.path, model: model, options: options)
        defer { try? store.close() }
        try store.read { snapshot in
            for entity in model.entities {
                for id in try snapshot.fetchIDs(FetchRequest(entity: entity.name)) {
                    _ = try snapshot.values(of: id)
                    for r in model.allRelationships(of: id.entity) where r.isToMany && !r.isTransient {
                        _ = try snapshot.related(id, r.name)
                    }
                }
                // Fetches sorted by each indexed attribute and each uniqueness column: the query
                // executor walks the hostile index entries.
                let indexed =
                    entity.fetchIndexes.compactMap { $0.elements.first?.property }
                    + entity.uniquenessConstraints.compactMap(\.first)
                for property in Set(indexed) {
                    var request = FetchRequest(entity: entity.name)
                    request.sortDescriptors = [SortDescriptor(property)]
                    _ = try snapshot.fetchIDs(request)
                }
            }
        }
        for entity in model.entities where !entity.isAbstract {
            _ = try store.newObjectIDs(entity: entity.name, count: 1)
        }
        // A second badge E1: the uniqueness check scans the hostile index. The apply fails and
        // writes nothing, unless the damage took E1's entry out of the index.
        do { try store.insert("Employee", ["badge": str("E1")]) } catch CdError.constraintViolation {}
        // Delete rules over the hostile lists and records: Department 1 cascades to its
        // employees, who leave their projects, desks and manager's reports.
        try store.apply(ChangeSet(deleted: [ObjectID(entity: "Department", primaryKey: 1)]))
    }
}
