// Loads Core Data model files: a `.xcdatamodel` folder (its `contents` XML), a `contents` file
// itself, or a `.xcdatamodeld` bundle of versions with `.xccurrentversion` naming the current
// one. The XML mapping lives in ModelXMLParser.swift; this file finds the file to read.
//
// Choosing the version of a bundle, in order:
//  1. the `version` argument, when given;
//  2. `_XCCurrentVersionName` from `.xccurrentversion` (an XML plist); a name that is not in
//     the bundle is an error, since the bundle contradicts itself;
//  3. when `.xccurrentversion` is missing, empty or unreadable: the only version, else the last
//     version by name in numeric order (Model < Model 2 < Model 10), with a warning.

import Foundation

/// A model read from a file, with what the reader noticed on the way.
public struct ModelFile: Sendable {
    /// The resolved model.
    public var model: ObjectModel
    /// Skipped elements and attributes, version fallbacks: never fatal.
    public var warnings: [ModelWarning]
    /// The `contents` file that was read.
    public var contentsPath: String
    /// For a bundle, the version read (e.g. `SampleModel.xcdatamodel`); `nil` otherwise.
    public var versionName: String?
    /// For a bundle, all versions it holds, in numeric name order; empty otherwise.
    public var availableVersions: [String]
    /// `userDefinedModelVersionIdentifier`, when set.
    public var versionIdentifier: String?
    /// Configuration name → member entity names, as declared.
    public var configurations: [String: [String]]
}

/// Reads `.xcdatamodel` and `.xcdatamodeld` files.
///
/// ```swift
/// let file = try ModelFileReader.load(at: "Resources/Model.xcdatamodeld")
/// file.versionName          // "Model 3.xcdatamodel"
/// file.model.entityNames    // ["Car", "Person", …]
/// ```
public enum ModelFileReader {
    /// Loads the model at `path`: a `.xcdatamodeld` bundle (its current version, or `version`),
    /// a `.xcdatamodel` folder, or a `contents` file.
    public static func load(at path: String, version: String? = nil) throws(ModelError) -> ModelFile {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .fileNotFound(path: path)
        }
        guard isDirectory.boolValue else {
            return try loadContents(at: path)
        }
        let contents = (path as NSString).appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents) && !path.hasSuffix(".xcdatamodeld") {
            return try loadContents(at: contents)
        }
        return try loadBundle(at: path, version: version)
    }

    /// The `.xcdatamodel` versions in a bundle, in numeric name order.
    public static func versions(inBundle path: String) throws(ModelError) -> [String] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw .fileNotFound(path: path)
        }
        return names.filter { name in
            var isDirectory: ObjCBool = false
            let full = (path as NSString).appendingPathComponent(name)
            return name.hasSuffix(".xcdatamodel")
                && FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted(by: versionOrder)
    }

    /// Version order: names without the `.xcdatamodel` extension, compared with numbers as
    /// numbers, so Xcode's "Model", "Model 2", …, "Model 10" sort as written.
    static func versionOrder(_ a: String, _ b: String) -> Bool {
        func stem(_ s: String) -> String { s.hasSuffix(".xcdatamodel") ? String(s.dropLast(".xcdatamodel".count)) : s }
        return stem(a).compare(stem(b), options: [.numeric]) == .orderedAscending
    }

    /// Parses `contents` XML already in memory; `path` is only used in errors and warnings.
    public static func parse(contents data: Data, path: String) throws(ModelError) -> ModelFile {
        let parsed = try parseModelXML(data, path: path)
        let oneWay = droppingAsymmetricInverses(parsed.entities, path: path)
        return ModelFile(
            model: try ObjectModel(entities: oneWay.entities), warnings: parsed.warnings + oneWay.warnings,
            contentsPath: path, versionName: nil, availableVersions: [],
            versionIdentifier: parsed.versionIdentifier, configurations: parsed.configurations)
    }

    // MARK: - Private

    private static func loadContents(at path: String) throws(ModelError) -> ModelFile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadableFile(path: path, detail: error.localizedDescription)
        }
        return try parse(contents: data, path: path)
    }

    private static func loadBundle(at path: String, version requested: String?) throws(ModelError) -> ModelFile {
        let available = try versions(inBundle: path)
        guard let last = available.last else { throw .noModelVersion(path: path) }
        var warnings: [ModelWarning] = []
        let chosen: String
        if let requested {
            chosen = requested.hasSuffix(".xcdatamodel") ? requested : requested + ".xcdatamodel"
        } else {
            let marker = (path as NSString).appendingPathComponent(".xccurrentversion")
            switch currentVersionName(at: marker) {
            case let .named(name):
                chosen = name
            case let .unusable(reason):
                chosen = available.count == 1 ? available[0] : last
                let rule = available.count == 1 ? "the only version" : "the last version by name"
                warnings.append(
                    ModelWarning(
                        element: ".xccurrentversion", file: marker, line: nil,
                        message: "\(reason); using \(rule), \(chosen)"))
            }
        }
        guard available.contains(chosen) else { throw .versionNotFound(path: path, version: chosen) }
        var file = try loadContents(
            at: ((path as NSString).appendingPathComponent(chosen) as NSString).appendingPathComponent("contents"))
        file.warnings = warnings + file.warnings
        file.versionName = chosen
        file.availableVersions = available
        return file
    }

    private enum CurrentVersion {
        case named(String)
        case unusable(String)
    }

    private static func currentVersionName(at path: String) -> CurrentVersion {
        guard FileManager.default.fileExists(atPath: path) else { return .unusable("no .xccurrentversion") }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            return .unusable(".xccurrentversion is unreadable")
        }
        guard !data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            return .unusable(".xccurrentversion is empty")
        }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil),
            let dict = plist as? [String: Any]
        else {
            return .unusable(".xccurrentversion is not a property list")
        }
        guard let name = dict["_XCCurrentVersionName"] as? String, !name.isEmpty else {
            return .unusable(".xccurrentversion has no _XCCurrentVersionName")
        }
        return .named(name)
    }
}
