// The versions of a model: each one's name and entity model, in the order a store moves through
// them when it is migrated. A `.xcdatamodeld` bundle gives them in version-name order (Xcode's
// "Model", "Model 2", …); a model declared in code lists them itself (`MigrationPlan`).

import Foundation

/// One version of a model.
///
/// ```swift
/// let history = try ModelFileReader.loadVersions(at: "SampleModel.xcdatamodeld")
/// history.versions.map(\.name)   // ["SampleModel.xcdatamodel", "SampleModel2.xcdatamodel", …]
/// ```
public struct ModelVersion: Sendable, Hashable {
    /// The version's name (a bundle's `.xcdatamodel` folder name, or a name given in code).
    public var name: String
    /// The model's `userDefinedModelVersionIdentifier`, when the file has one.
    public var identifier: String?
    /// The entity model of this version.
    public var model: ObjectModel

    /// A version named `name` with `model`.
    public init(name: String, identifier: String? = nil, model: ObjectModel) {
        self.name = name
        self.identifier = identifier
        self.model = model
    }

    /// The version hash a store written with this version records (`ObjectModel.versionHash`).
    public var versionHash: String { model.versionHash }
}

/// Every version of a model and which one is current.
public struct ModelVersionHistory: Sendable, Hashable {
    /// The versions, oldest first.
    public var versions: [ModelVersion]
    /// The name of the current version (the one new stores are written with).
    public var currentVersionName: String?

    /// A history of `versions` (oldest first) whose current one is `currentVersionName`.
    public init(versions: [ModelVersion] = [], currentVersionName: String? = nil) {
        self.versions = versions
        self.currentVersionName = currentVersionName
    }

    /// The current version, when it is in the list.
    public var current: ModelVersion? { versions.first { $0.name == currentVersionName } }

    /// The position of the version whose hash is `versionHash` (the last one if several share it).
    public func index(ofHash versionHash: String) -> Int? {
        versions.lastIndex { $0.versionHash == versionHash }
    }

    /// The version named `name` (with or without the `.xcdatamodel` extension).
    public func version(named name: String) -> ModelVersion? {
        versions.first { $0.name == name || $0.name == name + ".xcdatamodel" }
    }
}

extension ModelFileReader {
    /// Every version of the model at `path`: for a `.xcdatamodeld` bundle, each `.xcdatamodel` in
    /// version-name order and the current one (as ``load(at:version:)`` chooses it); for a single
    /// `.xcdatamodel` or `contents` file, that one version.
    public static func loadVersions(at path: String) throws(ModelError) -> ModelVersionHistory {
        let current = try load(at: path)
        guard let currentName = current.versionName, !current.availableVersions.isEmpty else {
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            return ModelVersionHistory(
                versions: [ModelVersion(name: name, identifier: current.versionIdentifier, model: current.model)],
                currentVersionName: name)
        }
        var versions: [ModelVersion] = []
        for name in current.availableVersions {
            let file = name == currentName ? current : try load(at: path, version: name)
            versions.append(ModelVersion(name: name, identifier: file.versionIdentifier, model: file.model))
        }
        return ModelVersionHistory(versions: versions, currentVersionName: currentName)
    }
}
