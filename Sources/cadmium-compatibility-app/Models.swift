// The Linux side of the compatibility app: what a Cadmium app changes to run on Linux, and
// nothing else. Core Data generated `@NSManaged` properties from the model; here the entity
// classes declare them with `@Attribute` / `@Relationship`. The model file an app ships in its
// bundle (Cadmium's test model) is laid out in a temporary bundle directory, and the init lines
// name the classes (`classes:`), since Linux has no Objective-C runtime to find them.

import Cadmium
import Foundation

/// Cadmium's test entity (its `TestItem.swift`).
final class TestItem: CdManagedObject {
    @Attribute var id: Int64 = 0
    @Attribute var name: String
}

/// The README's entity.
final class Employee: CdManagedObject {
    @Attribute var name: String
    @Attribute var salary: Int64 = 0
}

/// The README's "visit a place" entity.
final class Place: CdManagedObject {
    @Attribute var id: Int64 = 0
    @Attribute var visits: Int64 = 0
}

/// The example app's entities (CadmiumBasicExample, with its relationship branch).
final class ExampleItem: CdManagedObject {
    @Attribute var name: String
    @Attribute var numberTaps: Int32 = 0
    @Relationship(inverse: "myExample") var myOther: OtherItem?
}

final class OtherItem: CdManagedObject {
    @Attribute var prop: Int64 = 0
    @Relationship(inverse: "myOther") var myExample: ExampleItem?
}

/// Cadmium's test model as Xcode writes it, in `<bundle>/CadmiumTestModel.xcdatamodeld`.
enum TestBundle {
    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Xcode 7.0">
            <entity name="TestItem" representedClassName="CadmiumTests.TestItem" syncable="YES">
                <attribute name="id" attributeType="Integer 64" defaultValueString="0" syncable="YES"/>
                <attribute name="name" attributeType="String" syncable="YES"/>
            </entity>
        </model>
        """

    /// A bundle directory holding the model; its path stands for the bundle identifier
    /// (`Bundle(identifier:)` only knows loaded bundles on Linux).
    static func make() throws -> String {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("cd-compat-\(UUID().uuidString)/CadmiumTests.bundle")
        let folder = root.appendingPathComponent("CadmiumTestModel.xcdatamodeld/CadmiumTestModel.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try model.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return root.path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}

/// Cadmium's `initCd()` (its tests' set-up), with the Linux init line: the bundle is a
/// directory, the store in memory, and the classes named.
func initCd(_ bundle: String, serialTX: Bool = false) throws {
    try Cd.initWithSQLStore(
        inbundleID: bundle, momdName: "CadmiumTestModel", sqliteFilename: nil, classes: [TestItem.self],
        serialTX: serialTX)
}

/// The README's and the example app's store, with the Linux init line.
func initAppStore(serialTX: Bool) throws {
    let model = try CdModel(classes: [Employee.self, Place.self, ExampleItem.self, OtherItem.self])
    try Cd.initWithStore(model: model, storeURL: nil, serialTX: serialTX)
}
