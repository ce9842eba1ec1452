// The versions of a model read from a `.xcdatamodeld` bundle: `CdModel(contentsOf:version:classes:)`
// keeps every version of the file (`versionHistory`), so that opening a store written with an
// older one migrates it through the versions in between.

import Foundation
import CdObjects

extension CdModel {
    /// The model in a Core Data model file, as ``init(contentsOf:classes:)``, with `version`
    /// (a `.xcdatamodel` name in the bundle, with or without its extension) instead of the current
    /// one when given. ``versionHistory`` lists every version of the bundle and names the current
    /// one; a store written with any of them is migrated, version by version, when it is opened
    /// with this model.
    ///
    /// ```swift
    /// let model = try CdModel(contentsOf: bundleURL, version: "SampleModel3", classes: [])
    /// model.versionHistory.versions.count   // 3
    /// ```
    public init(contentsOf url: URL, version: String?, classes: [CdManagedObject.Type]) throws {
        let file = try ModelFileReader.load(at: url.path, version: version)
        try self.init(objectModel: file.model, classes: classes)
        // A version that does not read leaves the history with the chosen one only: the model
        // itself loaded, and a store of that unreadable version could not be migrated anyway.
        let name = file.versionName ?? ((url.lastPathComponent as NSString).deletingPathExtension)
        versionHistory =
            (try? ModelFileReader.loadVersions(at: url.path))
            ?? ModelVersionHistory(
                versions: [ModelVersion(name: name, identifier: file.versionIdentifier, model: file.model)],
                currentVersionName: name)
    }

    /// The version of ``versionHistory`` that this model is (the one whose hash is its own).
    public var version: ModelVersion? {
        versionHistory.index(ofHash: objectModel.versionHash).map { versionHistory.versions[$0] }
    }
}
