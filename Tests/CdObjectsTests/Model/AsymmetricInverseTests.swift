import Foundation
import Testing
@testable import CdObjects

/// Model files whose inverses do not name each other back (Core Data loads them; Xcode warns).
@Suite struct AsymmetricInverseTests {
    /// Artsy's shape: Image.artist names Artist.thumbnail, which pairs with Image.thumbnail.
    static let artsyShape = modelXML(
        """
        <entity name="Artist" representedClassName="Artist">
            <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Image" inverseName="thumbnail" inverseEntity="Image"/>
        </entity>
        <entity name="Image" representedClassName="Image">
            <relationship name="artist" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist"/>
            <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist"/>
        </entity>
        """)

    @Test func anInverseNotNamedBackIsDroppedWithAWarning() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = try dir.write("M.xcdatamodel/contents", Self.artsyShape)
        let file = try ModelFileReader.load(at: dir.path("M.xcdatamodel"))
        let model = file.model
        #expect(model.relationship("artist", of: "Image")?.inverse == nil)
        #expect(model.relationship("thumbnail", of: "Image")?.inverse == "thumbnail")
        #expect(model.relationship("thumbnail", of: "Artist")?.inverse == "thumbnail")
        #expect(model.inverse(of: "thumbnail", in: "Artist")?.name == "thumbnail")
        #expect(file.warnings.count == 1)
        let warning = try #require(file.warnings.first)
        #expect(warning.file == path)
        #expect(warning.message.contains("Image.artist names Artist.thumbnail"))
        #expect(warning.message.contains("names thumbnail"))
    }

    @Test func aOneWayRelationshipLeavesTheNamedInverseAlone() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("M.xcdatamodel/contents", Self.artsyShape)
        let model = try ModelFileReader.load(at: dir.path("M.xcdatamodel")).model
        let store = try ObjectStore.open(path: nil, model: model)
        let artist = ObjectID(entity: "Artist", primaryKey: 1)
        let cover = ObjectID(entity: "Image", primaryKey: 1)
        let portrait = ObjectID(entity: "Image", primaryKey: 2)
        try store.apply(
            ChangeSet(inserted: [
                artist: [:], cover: ["thumbnail": .toOne(artist)], portrait: ["artist": .toOne(artist)],
            ]))
        #expect(try store.values(artist)?["thumbnail"] == .toOne(cover), "the pair is kept in step")
        #expect(try store.values(portrait)?["artist"] == .toOne(artist))
        #expect(try store.values(portrait)?["thumbnail"] == .toOne(nil))
        #expect(try store.verify().isEmpty)
    }

    @Test func aMissingInverseIsStillAnError() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write(
            "M.xcdatamodel/contents",
            modelXML(
                """
                <entity name="A" representedClassName="A">
                    <relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="nothing"/>
                </entity>
                <entity name="B" representedClassName="B"/>
                """))
        #expect(throws: ModelError.self) { try ModelFileReader.load(at: dir.path("M.xcdatamodel")) }
    }

    @Test func artsyModelsWithAsymmetricInversesLoad() throws {
        let folder = ModelFixtures.repoRoot.appendingPathComponent("../shared/fixtures/coredata-stores")
            .standardizedFileURL
        let bundle = folder.appendingPathComponent("artsy-partner-1.3.5-ios6/ArtsyPartner.xcdatamodeld").path
        guard FileManager.default.fileExists(atPath: bundle) else {
            #expect(!ModelFixtures.isCI, "fixture folder is missing: \(folder.path)")
            return
        }
        for version in ["ArtsyPartner 5", "ArtsyFolio v1.4"] {
            let file = try ModelFileReader.load(at: bundle, version: version)
            #expect(file.model.relationship("artist", of: "Image")?.inverse == nil, "\(version)")
            #expect(file.warnings.contains { $0.message.contains("Image.artist names Artist.thumbnail") })
        }
    }
}
