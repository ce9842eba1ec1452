// Cadmium's two "SQL store" initialisers (docs/CADMIUM-API.md §1), adapted to Linux:
//
//   initWithSQLStore(momdURL:sqliteURL:classes:options:serialTX:)
//       reads the model file at `momdURL` and opens the store at `sqliteURL` (nil: in memory).
//   initWithSQLStore(momdInbundleID:momdName:sqliteFilename:classes:options:serialTX:)
//       finds `<momdName>` (a trailing ".momd" stripped) in a bundle and opens
//       `<Documents>/<sqliteFilename>` (nil: in memory), then calls the URL form.
//   initWithSQLStore(inbundleID:momdName:sqliteFilename:classes:options:serialTX:)
//       the older spelling of the bundle form.
//
// Differences, because Linux has no Objective-C runtime and no model compiler:
//   - `classes:` binds entities to classes (Core Data finds them by `representedClassName`).
//   - The model is the source `.xcdatamodeld` / `.xcdatamodel` that Xcode would compile; a
//     compiled `.momd` (binary archives) cannot be read and is `invalidManagedObjectModel`.
//   - `Bundle(identifier:)` only knows loaded bundles on Linux, so the bundle ID may also be a
//     bundle's directory path.
//   - The store file is a Cadmium store, not SQLite; `options` are engine options.

import Foundation
import CdObjects
import CdStore

/// Why a bundle-based initialisation failed (Cadmium's `CdInitFailure`).
public enum CdInitFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No bundle has the given identifier (or path).
    case invalidBundle
    /// The model was not found in the bundle, is a compiled `.momd` (not readable on Linux: ship
    /// the `.xcdatamodeld` source instead), or could not be read.
    case invalidManagedObjectModel

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .invalidBundle:
            return "CdInitFailure.invalidBundle: no bundle with that identifier or path"
        case .invalidManagedObjectModel:
            return "CdInitFailure.invalidManagedObjectModel: no readable .xcdatamodeld or .xcdatamodel of that name "
                + "(a compiled .momd cannot be read on Linux)"
        }
    }
}

extension Cd {
    /// Opens a store with the model read from a model file (Cadmium's URL initialiser).
    ///
    /// - Parameters:
    ///   - momdURL: a `.xcdatamodeld` or `.xcdatamodel` (or its `contents` file). A compiled
    ///     `.momd` is not readable on Linux.
    ///   - sqliteURL: the store file (created when missing); nil for an in-memory store.
    ///   - classes: the entity classes, bound to entities by name (no Objective-C runtime to
    ///     resolve `representedClassName`; see ``CdModel/init(contentsOf:classes:)``).
    ///   - options: engine options, passed through.
    ///   - serialTX: the default for `serial: nil` in the transaction calls.
    /// - Throws: ``CdInitFailure/invalidManagedObjectModel`` when the model cannot be read;
    ///   store errors as ``Cd/initWithStore(model:storeURL:options:serialTX:)`` throws them.
    /// ```swift
    /// try Cd.initWithSQLStore(momdURL: modelURL, sqliteURL: storeURL, classes: [Item.self])
    /// ```
    public static func initWithSQLStore(
        momdURL: URL, sqliteURL: URL?, classes: [CdManagedObject.Type],
        options: StoreOptions = StoreOptions(), serialTX: Bool = false
    ) throws {
        if momdURL.pathExtension == "momd" { throw CdInitFailure.invalidManagedObjectModel }
        let model: CdModel
        do {
            model = try CdModel(contentsOf: momdURL, classes: classes)
        } catch {
            throw CdInitFailure.invalidManagedObjectModel
        }
        try initWithStore(model: model, storeURL: sqliteURL, options: options, serialTX: serialTX)
    }

    /// Opens a store with a model found by name in a bundle, the store file in the user's
    /// Documents directory (Cadmium's bundle initialiser).
    ///
    /// - Parameters:
    ///   - bundleID: nil for `Bundle.main`; otherwise a bundle identifier (`Bundle(identifier:)`)
    ///     or, on Linux, the path of a bundle directory.
    ///   - momdName: the model's name; a trailing `.momd` is stripped. The bundle's resources
    ///     (or its top directory) must hold `<name>.xcdatamodeld` or `<name>.xcdatamodel`.
    ///   - sqliteFilename: the store file's name in the Documents directory (created if
    ///     needed); nil for an in-memory store.
    ///   - classes: the entity classes (see ``initWithSQLStore(momdURL:sqliteURL:classes:options:serialTX:)``).
    ///   - options: engine options, passed through.
    ///   - serialTX: the default for `serial: nil` in the transaction calls.
    /// - Throws: ``CdInitFailure/invalidBundle``, ``CdInitFailure/invalidManagedObjectModel``,
    ///   and store errors.
    /// ```swift
    /// try Cd.initWithSQLStore(momdInbundleID: nil, momdName: "Company.momd", sqliteFilename: "company.store",
    ///                         classes: [Department.self, Employee.self])
    /// ```
    public static func initWithSQLStore(
        momdInbundleID bundleID: String?, momdName: String, sqliteFilename: String?,
        classes: [CdManagedObject.Type], options: StoreOptions = StoreOptions(),
        serialTX: Bool = false
    ) throws {
        guard let bundle = bundle(bundleID) else { throw CdInitFailure.invalidBundle }
        let name = momdName.hasSuffix(".momd") ? String(momdName.dropLast(".momd".count)) : momdName
        guard let modelURL = modelFile(named: name, in: bundle) else { throw CdInitFailure.invalidManagedObjectModel }
        var storeURL: URL?
        if let sqliteFilename {
            let documents = documentsDirectory()
            try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
            storeURL = documents.appendingPathComponent(sqliteFilename)
        }
        try initWithSQLStore(
            momdURL: modelURL, sqliteURL: storeURL, classes: classes, options: options, serialTX: serialTX)
    }

    /// The older spelling of ``initWithSQLStore(momdInbundleID:momdName:sqliteFilename:classes:options:serialTX:)``
    /// (Cadmium's README and tests before 1.0 wrote `inbundleID:`); the same call.
    ///
    /// ```swift
    /// try Cd.initWithSQLStore(inbundleID: "org.fieldman.CadmiumTests", momdName: "CadmiumTestModel",
    ///                         sqliteFilename: "test.sqlite", classes: [TestItem.self])
    /// ```
    public static func initWithSQLStore(
        inbundleID bundleID: String?, momdName: String, sqliteFilename: String?,
        classes: [CdManagedObject.Type], options: StoreOptions = StoreOptions(),
        serialTX: Bool = false
    ) throws {
        try initWithSQLStore(
            momdInbundleID: bundleID, momdName: momdName, sqliteFilename: sqliteFilename, classes: classes,
            options: options, serialTX: serialTX)
    }

    // MARK: - Finding things

    /// `Bundle.main` for nil, else the bundle of that identifier, else a bundle directory at
    /// that path.
    static func bundle(_ id: String?) -> Bundle? {
        guard let id else { return Bundle.main }
        if let bundle = Bundle(identifier: id) { return bundle }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: id, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        return Bundle(path: id)
    }

    /// The model source of `name` in `bundle`'s resources or top directory; a compiled `.momd`
    /// alone is not returned (it cannot be read).
    static func modelFile(named name: String, in bundle: Bundle) -> URL? {
        let places = [bundle.resourceURL, bundle.bundleURL].compactMap { $0 }
        for place in places {
            for ext in ["xcdatamodeld", "xcdatamodel"] {
                let url = place.appendingPathComponent("\(name).\(ext)")
                if FileManager.default.fileExists(atPath: url.path) { return url }
            }
        }
        return nil
    }

    /// The user's Documents directory (`FileManager`'s, else `$HOME/Documents`); tests
    /// redirect it with `documentsDirectoryOverride`.
    static func documentsDirectory() -> URL {
        if let override = globals.withLock({ $0.documentsDirectoryOverride }) { return override }
        if let url = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first { return url }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent("Documents")
    }

    /// Replaces the Documents directory (tests only).
    static var documentsDirectoryOverride: URL? {
        get { globals.withLock { $0.documentsDirectoryOverride } }
        set { globals.withLock { $0.documentsDirectoryOverride = newValue } }
    }
}
