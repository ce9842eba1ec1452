import ArgumentParser
import CdObjects
import CdStore
import CdStoreCommands
import CdToolSupport
import Foundation

// `cdstore import STORE FILE [--entity E] [--format F] [--batch N]`: creates objects from JSON,
// NDJSON or CSV records, what `export` writes (docs/CDSTORE.md, "import"). FILE is one entity's
// records (`--entity E`), a directory of `<Entity>.<format>` files (`export --output DIR`), or a
// JSON object of arrays by entity name (`export --format json` to standard output).
//
// Invariants:
//  IC1. The store must exist and record its model; import never creates a store.
//  IC2. Every CSV header and every source is checked before the store is opened for writing: an
//       unknown column or entity is a usage error and the store is not touched.
//  IC3. Writing follows ImportRun (IR1–IR4): all or nothing without `--batch`.

struct ImportCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create objects from JSON, NDJSON or CSV records (what export writes).",
        discussion: """
            FILE is one entity's records (--entity E), a directory of <Entity>.<format> files, or a JSON \
            object of arrays by entity name. Records keep their objectID (Entity/key) when they have one; \
            relationships name objects by ID, in the store or anywhere in the import. Everything is one \
            transaction unless --batch N commits every N records.
            """
    )

    @Option(name: .long, help: "The entity of FILE's records; default: the file's name (Employee.csv).")
    var entity: String?

    @Option(name: .long, help: "json, ndjson or csv; default: from the file name's extension.")
    var format: RecordFormat?

    @Option(name: .long, help: "Commit every N records instead of all at once.")
    var batch: Int?

    @Argument(help: "The store's page file (it must exist).")
    var store: String

    @Argument(help: "The records: a file, or a directory of <Entity>.<format> files.")
    var file: String

    func validate() throws {
        if format == .table { throw ValidationError("import reads json, ndjson or csv, not a table") }
        if let batch, batch < 1 { throw ValidationError("--batch must be at least 1") }
    }

    func execute(tool: String) -> Int32 {
        reportingFailures(tool: tool) {
            guard FileManager.default.fileExists(atPath: store) else {  // keeps IC1
                throw ToolFailure.operational("\(store): no such file")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw ToolFailure.operational("\(file): no such file")
            }
            let opened: (store: ObjectStore, record: StoredModelRecord)
            do { opened = try ObjectStore.openWithStoredModel(path: store, options: StoreOptions()) } catch {
                throw ToolFailure.from(error, path: store)
            }
            defer { try? opened.store.close() }
            let model = opened.record.model
            let sources = try isDirectory.boolValue ? directorySources(model) : fileSources(model)
            try checkHeaders(sources, model: model)  // keeps IC2
            let run = ImportRun(store: opened.store, sources: sources)
            let bar = isatty(STDERR_FILENO) == 1 ? ProgressLine(labelWidth: 24) : nil
            defer { bar?.finish() }
            run.progress = { phase, fraction in bar?.update(label: phase, fraction: fraction) }
            do {
                if let batch { try run.importInRuns(of: batch) } else { try run.importAtOnce() }
            } catch let failure as ImportFailure {
                throw failure.toolFailure
            } catch let failure as ToolFailure {
                throw failure
            } catch {
                throw ToolFailure.from(error, path: store)
            }
            bar?.finish()
            let total = run.counts.values.reduce(0, +)
            let objects = total == 1 ? "1 object" : "\(total) objects"
            let parts = run.counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            let commits = run.commits == 1 ? "1 commit" : "\(run.commits) commits"
            print("imported \(objects) (\(parts.joined(separator: ", "))) in \(commits)")
        }
    }

    /// The sources of a file: one entity's records, or a JSON object of arrays by entity.
    private func fileSources(_ model: ObjectModel) throws -> [ImportSource] {
        let format = try self.format ?? Self.format(ofFile: file)
        // A file named after an entity (what `export --output` writes) says its entity itself.
        let named = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        if let entity = entity ?? (model.entity(named: named) != nil ? named : nil) {
            guard let description = model.entity(named: entity) else {
                throw ToolFailure.usage(NameSuggestion.unknown("entity", entity, known: model.entityNames))
            }
            return [ImportSource(entity: description, path: file, format: format)]
        }
        guard format == .json, case let .object(byEntity) = try ImportSource.decodeJSONFile(file) else {
            throw ToolFailure.usage(
                "\(file): name the records' entity with --entity E (a file named <Entity>.<format>, or a JSON "
                    + "object of arrays by entity name, says it itself)")
        }
        return try byEntity.keys.sorted().map { name in
            guard let description = model.entity(named: name) else {
                throw ToolFailure.usage(
                    "\(file): " + NameSuggestion.unknown("entity", name, known: model.entityNames))
            }
            // The file is decoded once, here: each entity's source keeps its own array (IS1).
            return ImportSource(
                entity: description, path: file, format: .json, objectKey: name, objectValue: byEntity[name])
        }
    }

    /// The sources of a directory: each `<Entity>.<json|ndjson|csv>` file in it, by name.
    private func directorySources(_ model: ObjectModel) throws -> [ImportSource] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: file).sorted() } catch {
            throw ToolFailure.operational("\(file): cannot list the directory")
        }
        var sources: [ImportSource] = []
        for name in names where !name.hasPrefix(".") {
            let url = URL(fileURLWithPath: file).appendingPathComponent(name)
            guard let format = RecordFormat(rawValue: url.pathExtension), format != .table else { continue }
            if let only = self.format, only != format { continue }
            let entityName = url.deletingPathExtension().lastPathComponent
            if let entity, entity != entityName { continue }
            guard let description = model.entity(named: entityName) else {
                throw ToolFailure.usage(
                    "\(url.path): " + NameSuggestion.unknown("entity", entityName, known: model.entityNames))
            }
            sources.append(ImportSource(entity: description, path: url.path, format: format))
        }
        guard !sources.isEmpty else {
            throw ToolFailure.usage("\(file): no <Entity>.json, .ndjson or .csv file in the directory")
        }
        return sources
    }

    /// Each csv header names only properties of its entity, once each (IC2).
    private func checkHeaders(_ sources: [ImportSource], model: ObjectModel) throws {
        for source in sources {
            guard let (line, names) = try source.csvHeader() else { continue }
            let location = RecordLocation(file: source.name, number: line, isLine: true)
            let known =
                [objectIDColumn] + model.allAttributes(of: source.entity.name).filter { !$0.isTransient }.map(\.name)
                + model.allRelationships(of: source.entity.name).filter { !$0.isTransient }.map(\.name)
            var seen: Set<String> = []
            for name in names {
                guard known.contains(name) else {
                    throw ImportFailure(
                        location: location,
                        message: NameSuggestion.unknown("property", name, known: known, in: source.entity.name)
                    ).toolFailure
                }
                guard seen.insert(name).inserted else {
                    throw ImportFailure(location: location, message: "the column \(name) appears twice").toolFailure
                }
            }
        }
    }

    /// The format a file's extension names.
    private static func format(ofFile path: String) throws -> RecordFormat {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let format = RecordFormat(rawValue: ext), format != .table else {
            throw ToolFailure.usage("\(path): say the format with --format json, ndjson or csv")
        }
        return format
    }
}
