// Relationships an initializer sets: a property without a default value is written by its init
// accessor before the model is bound to its backing data, so its inverses are kept in step at
// insert (MS11 of ModelStorage.swift), and a save then writes them. Relationships set through
// the setters after the initializer are in step at once and are not linked a second time.

import Foundation
import SwiftData
import Testing

@Model
final class Album {
    var title: String
    @Relationship(inverse: \Track.album) var tracks: [Track]

    init(title: String, tracks: [Track]) {
        self.title = title
        self.tracks = tracks
    }
}

@Model
final class Track {
    var name: String
    var album: Album?
    var credits: [Credit] = []

    init(name: String) {
        self.name = name
    }
}

@Model
final class Credit {
    var role: String
    @Relationship(inverse: \Track.credits) var track: Track

    init(role: String, track: Track) {
        self.role = role
        self.track = track
    }
}

@Suite struct InitializerRelationshipTests {
    func container() throws -> ModelContainer {
        try ModelContainer(
            for: Album.self, Track.self, Credit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func aToManyTheInitializerSetsHasItsInversesAtInsert() throws {
        let container = try container()
        let context = ModelContext(container)
        let album = Album(title: "Kind of Blue", tracks: [Track(name: "So What"), Track(name: "Freddie Freeloader")])
        context.insert(album)
        #expect(album.tracks.count == 2)
        #expect(album.tracks.allSatisfy { $0.album === album })
        #expect(album.tracks.allSatisfy { $0.modelContext === context })
        try context.save()

        let reader = ModelContext(container)
        let tracks = try reader.fetch(FetchDescriptor<Track>(sortBy: [SortDescriptor(\.name)]))
        #expect(tracks.map(\.name) == ["Freddie Freeloader", "So What"])
        #expect(tracks.map { $0.album?.title } == ["Kind of Blue", "Kind of Blue"])
        let albums = try reader.fetch(FetchDescriptor<Album>())
        #expect(albums.map { $0.tracks.count } == [2])
    }

    @Test func aToOneTheInitializerSetsHasItsInverseAtInsert() throws {
        let container = try container()
        let context = ModelContext(container)
        let track = Track(name: "Blue in Green")
        let credit = Credit(role: "piano", track: track)
        context.insert(credit)
        #expect(track.credits.map(\.role) == ["piano"])
        #expect(track.modelContext === context)
        try context.save()

        let reader = ModelContext(container)  // models hold their context weakly
        let tracks = try reader.fetch(FetchDescriptor<Track>())
        #expect(tracks.map { $0.credits.map(\.role) } == [["piano"]])
    }

    @Test func aRolledBackInsertLinksItsInversesWhenInsertedAgain() throws {
        let container = try container()
        let context = ModelContext(container)
        let track = Track(name: "Flamenco Sketches")
        context.insert(track)
        try context.save()
        let credit = Credit(role: "trumpet", track: track)
        context.insert(credit)
        #expect(track.credits.map(\.role) == ["trumpet"])
        context.rollback()
        #expect(track.credits.isEmpty)
        context.insert(credit)
        #expect(track.credits.map(\.role) == ["trumpet"])
        try context.save()

        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Track>()).map { $0.credits.map(\.role) } == [["trumpet"]])
    }

    @Test func relationshipsSetAfterTheInitializerAreLinkedOnce() throws {
        let container = try container()
        let context = ModelContext(container)
        let album = Album(title: "Milestones", tracks: [])
        let track = Track(name: "Sid's Ahead")
        track.album = album  // the setter keeps the inverse in step at once
        #expect(album.tracks.count == 1)
        context.insert(track)  // brings the album in with it
        #expect(album.modelContext === context)
        #expect(album.tracks.count == 1)
        try context.save()

        let reader = ModelContext(container)
        let albums = try reader.fetch(FetchDescriptor<Album>())
        #expect(albums.map { $0.tracks.map(\.name) } == [["Sid's Ahead"]])
    }
}
