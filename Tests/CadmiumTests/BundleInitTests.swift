// `Cd.initWithSQLStore(momdInbundleID:…)` and `initWithSQLStore(momdURL:…)`: the model found by
// name in a bundle laid out in a temporary directory (holding the CadmiumTestModel fixture),
// `.momd` stripped, the store in the Documents directory (redirected to a temporary one, created
// when missing), nil file name = in memory, and the two `CdInitFailure`s.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct BundleInit {
        /// A temporary directory with `Test.bundle/<model>` and an empty `Documents` path.
        struct Layout {
            let root: URL
            var bundle: URL { root.appendingPathComponent("Test.bundle") }
            var documents: URL { root.appendingPathComponent("Documents") }

            /// nil (skip) when the fixture folder is missing outside CI.
            init?(modelAs layout: String) throws {
                guard let models = Fixtures.modelsFolder() else { return nil }
                root = FileManager.default.temporaryDirectory.appendingPathComponent("cd-bundle-\(UUID().uuidString)")
                let fm = FileManager.default
                try fm.createDirectory(
                    at: root.appendingPathComponent("Test.bundle"), withIntermediateDirectories: true)
                let source = models.appendingPathComponent("CadmiumTestModel.xcdatamodel")
                switch layout {
                case "xcdatamodeld":
                    let versions = root.appendingPathComponent("Test.bundle/CadmiumTestModel.xcdatamodeld")
                    try fm.createDirectory(at: versions, withIntermediateDirectories: true)
                    try fm.copyItem(at: source, to: versions.appendingPathComponent("CadmiumTestModel.xcdatamodel"))
                case "xcdatamodel":
                    try fm.copyItem(
                        at: source, to: root.appendingPathComponent("Test.bundle/CadmiumTestModel.xcdatamodel"))
                default:  // a compiled model only
                    try fm.createDirectory(
                        at: root.appendingPathComponent("Test.bundle/CadmiumTestModel.momd"),
                        withIntermediateDirectories: true)
                }
                Cd.documentsDirectoryOverride = documents
            }

            func remove() {
                Cd.reset()
                Cd.documentsDirectoryOverride = nil
                try? FileManager.default.removeItem(at: root)
            }
        }

        func expectFailure(
            _ failure: CdInitFailure, sourceLocation: SourceLocation = #_sourceLocation,
            _ body: () throws -> Void
        ) {
            #expect(throws: failure, sourceLocation: sourceLocation) { try body() }
        }

        @MainActor @Test(arguments: ["xcdatamodeld", "xcdatamodel"])
        func bundleByPathFindsTheModelAndStoresInDocuments(_ kind: String) throws {
            guard let layout = try Layout(modelAs: kind) else { return }
            defer { layout.remove() }
            try Cd.initWithSQLStore(
                momdInbundleID: layout.bundle.path, momdName: "CadmiumTestModel.momd",
                sqliteFilename: "items.store", classes: [TestItem.self])
            let storeFile = layout.documents.appendingPathComponent("items.store")
            #expect(FileManager.default.fileExists(atPath: storeFile.path), "Documents created, store file in it")
            try background {
                try Cd.transactAndWait {
                    let item = try Cd.create(TestItem.self)
                    item.id = 7
                    item.name = "kept"
                }
            }
            // Reopen: the item is in the file, and the entity is bound to TestItem.
            try Cd.initWithSQLStore(
                momdInbundleID: layout.bundle.path, momdName: "CadmiumTestModel",
                sqliteFilename: "items.store", classes: [TestItem.self], serialTX: true)
            #expect(Cd.defaultSerialTransactions)
            let items = try Cd.objects(TestItem.self).fetch()
            #expect(items.map(\.name) == ["kept"] && items.map(\.id) == [7])
        }

        @MainActor @Test func nilFileNameIsInMemory() throws {
            guard let layout = try Layout(modelAs: "xcdatamodeld") else { return }
            defer { layout.remove() }
            try Cd.initWithSQLStore(
                momdInbundleID: layout.bundle.path, momdName: "CadmiumTestModel",
                sqliteFilename: nil, classes: [TestItem.self])
            #expect(!FileManager.default.fileExists(atPath: layout.documents.path), "nothing written")
            try background {
                try Cd.transactAndWait {
                    let item = try Cd.create(TestItem.self); item.name = "x"
                }
            }
            #expect(try Cd.objects(TestItem.self).count() == 1)
        }

        @MainActor @Test func urlFormReadsTheModelFile() throws {
            guard let layout = try Layout(modelAs: "xcdatamodeld") else { return }
            defer { layout.remove() }
            let modelURL = layout.bundle.appendingPathComponent("CadmiumTestModel.xcdatamodeld")
            let storeURL = layout.root.appendingPathComponent("direct.store")
            try Cd.initWithSQLStore(momdURL: modelURL, sqliteURL: storeURL, classes: [TestItem.self])
            #expect(FileManager.default.fileExists(atPath: storeURL.path))
            #expect(try Cd.objects(TestItem.self).count() == 0)
        }

        @Test func failures() throws {
            guard let layout = try Layout(modelAs: "momd") else { return }
            Cd.reset()
            defer { layout.remove() }
            expectFailure(.invalidBundle) {
                try Cd.initWithSQLStore(
                    momdInbundleID: "org.example.no-such-bundle", momdName: "CadmiumTestModel",
                    sqliteFilename: nil, classes: [TestItem.self])
            }
            expectFailure(.invalidManagedObjectModel, "a compiled .momd only") {
                try Cd.initWithSQLStore(
                    momdInbundleID: layout.bundle.path, momdName: "CadmiumTestModel.momd",
                    sqliteFilename: nil, classes: [TestItem.self])
            }
            expectFailure(.invalidManagedObjectModel, "no such model in the main bundle") {
                try Cd.initWithSQLStore(
                    momdInbundleID: nil, momdName: "NoSuchModel", sqliteFilename: "never.store",
                    classes: [TestItem.self])
            }
            expectFailure(.invalidManagedObjectModel, "URL of a compiled .momd") {
                try Cd.initWithSQLStore(
                    momdURL: layout.bundle.appendingPathComponent("CadmiumTestModel.momd"),
                    sqliteURL: nil, classes: [TestItem.self])
            }
            let garbage = layout.root.appendingPathComponent("Broken.xcdatamodel")
            try FileManager.default.createDirectory(at: garbage, withIntermediateDirectories: true)
            try Data("not a model".utf8).write(to: garbage.appendingPathComponent("contents"))
            expectFailure(.invalidManagedObjectModel, "unreadable contents") {
                try Cd.initWithSQLStore(momdURL: garbage, sqliteURL: nil, classes: [TestItem.self])
            }
            #expect(!FileManager.default.fileExists(atPath: layout.documents.path), "failures create nothing")
            #expect(Cd.container == nil, "failures open no store")
        }

        @Test func documentsDirectoryDefault() {
            Cd.documentsDirectoryOverride = nil
            #expect(Cd.documentsDirectory().lastPathComponent == "Documents")
        }
    }
}

extension CadmiumSuites.BundleInit {
    func expectFailure(
        _ failure: CdInitFailure, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        #expect(throws: failure, comment, sourceLocation: sourceLocation) { try body() }
    }
}
