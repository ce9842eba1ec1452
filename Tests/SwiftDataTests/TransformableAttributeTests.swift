// `@Attribute(.transformable(by:))` (TC1–TC3 of TransformableCoding.swift): a property of a type
// the store has no form for is stored as the bytes its transformer makes, found by class or by
// registered name; a transformer that makes no Data is refused at save, a name with no
// transformer when the container opens.

import Foundation
@testable import SwiftData
import Testing

/// A class that is neither Codable nor a scalar: only a transformer can store it.
final class Hue {
    let red: UInt8, green: UInt8, blue: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

final class HueTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let hue = value as? Hue else { return nil }
        return Data([hue.red, hue.green, hue.blue])
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 3 else { return nil }
        return Hue(red: data[data.startIndex], green: data[data.startIndex + 1], blue: data[data.startIndex + 2])
    }
}

/// Stores a string as its reversed UTF-8 bytes; registered by name.
final class ReversingTransformer: ValueTransformer {
    override func transformedValue(_ value: Any?) -> Any? {
        (value as? String).map { Data($0.utf8.reversed()) }
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).map { String(decoding: $0.reversed(), as: UTF8.self) }
    }
}

/// Makes a string, not Data.
final class TextTransformer: ValueTransformer {
    override func transformedValue(_ value: Any?) -> Any? { "not data" }
}

@Model
final class Swatch {
    var name: String
    @Attribute(.transformable(by: HueTransformer.self)) var hue: Hue
    @Attribute(.transformable(by: "Reversing")) var note: String?

    init(name: String, hue: Hue, note: String?) {
        self.name = name
        self.hue = hue
        self.note = note
    }
}

@Model
final class Smudge {
    @Attribute(.transformable(by: TextTransformer.self)) var hue: Hue

    init(hue: Hue) { self.hue = hue }
}

@Model
final class Orphan {
    @Attribute(.transformable(by: "NoTransformerHasThisName")) var hue: Hue?

    init() {}
}

@Model
final class Latecomer {
    @Attribute(.transformable(by: "RegisteredLate")) var note: String?

    init(note: String?) { self.note = note }
}

@Suite struct TransformableAttributeTests {
    func container(_ types: any PersistentModel.Type...) throws -> ModelContainer {
        ValueTransformer.setValueTransformer(ReversingTransformer(), forName: NSValueTransformerName("Reversing"))
        return try ModelContainer(for: Schema(types), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func aValueGoesThroughItsTransformerAndBack() throws {
        let container = try container(Swatch.self)
        let context = ModelContext(container)
        context.insert(Swatch(name: "teal", hue: Hue(red: 0, green: 128, blue: 128), note: "calm"))
        context.insert(Swatch(name: "plain", hue: Hue(red: 9, green: 9, blue: 9), note: nil))
        try context.save()

        let reader = ModelContext(container)
        let swatches = try reader.fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.name)]))
        #expect(swatches.map(\.name) == ["plain", "teal"])
        #expect(swatches.map { [$0.hue.red, $0.hue.green, $0.hue.blue] } == [[9, 9, 9], [0, 128, 128]])
        #expect(swatches.map(\.note) == [nil, "calm"])

        // The store holds the transformers' bytes (TC1).
        let teal = try #require(swatches.last).persistentModelID.objectID
        let record = try #require(try container.store.read { try $0.values(of: teal) })
        #expect(record["hue"] == .attribute(.data(Data([0, 128, 128]))))
        #expect(record["note"] == .attribute(.data(Data("mlac".utf8))))
    }

    @Test func aTransformerThatMakesNoDataIsRefusedAtSave() throws {
        let container = try container(Smudge.self)
        let context = ModelContext(container)
        context.insert(Smudge(hue: Hue(red: 1, green: 2, blue: 3)))
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? SwiftDataError else { return false }
            return error.message.contains("Smudge.hue") && error.message.contains("not Data")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Smudge>()) == 0)
    }

    @Test func aTransformableAttributeIsNotQueriedInTheStoreAndSortedInSwift() throws {
        let context = ModelContext(try container(Swatch.self))
        context.insert(Swatch(name: "teal", hue: Hue(red: 0, green: 128, blue: 128), note: "calm"))
        context.insert(Swatch(name: "red", hue: Hue(red: 255, green: 0, blue: 0), note: "bold"))
        try context.save()
        #expect(throws: SwiftDataError.self) {
            try context.fetch(FetchDescriptor<Swatch>(predicate: #Predicate { $0.note == "calm" }))
        }
        // The store holds the transformer's bytes ("mlac", "dlob"); Swift sorts the values (FE4).
        let sorted = try context.fetch(FetchDescriptor<Swatch>(sortBy: [SortDescriptor(\.note)]))
        #expect(sorted.map(\.name) == ["red", "teal"])
    }

    @Test func aModelMadeBeforeItsTransformerWasRegisteredIsNotInserted() throws {
        let early = Latecomer(note: "made too soon")  // the name has no transformer yet
        ValueTransformer.setValueTransformer(ReversingTransformer(), forName: NSValueTransformerName("RegisteredLate"))
        let container = try ModelContainer(
            for: Latecomer.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(early)
        #expect {
            try context.save()
        } throws: { error in
            (error as? SwiftDataError)?.message.contains("Latecomer made before its class's schema could be read")
                == true
        }
        context.insert(Latecomer(note: "on time"))
        try context.save()
        let notes = try ModelContext(container).fetch(FetchDescriptor<Latecomer>()).map(\.note)
        #expect(notes == ["on time"])
    }

    @Test func aNameWithNoTransformerIsRefusedWhenTheContainerOpens() throws {
        #expect {
            _ = try container(Orphan.self)
        } throws: { error in
            (error as? SwiftDataError)?.message.contains("NoTransformerHasThisName") == true
        }
    }
}
