// A context's registry of models (MC1, MC4 of ModelContext.swift): a loop of fetches whose
// results the program lets go keeps entries for the models still alive, not one per model ever
// made, and a model the program holds stays the one instance of its object through the sweeps.

import Foundation
@testable import SwiftData
import Testing

@Model
final class MeterReading {
    var value: Int

    init(value: Int) {
        self.value = value
    }
}

@Suite struct RegistrySweepTests {
    @Test func aLoopOfFetchesKeepsEntriesForLiveModelsOnly() throws {
        let container = try ModelContainer(
            for: MeterReading.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let count = 12_000
        for value in 0..<count { writer.insert(MeterReading(value: value)) }
        try writer.save()

        let context = ModelContext(container)
        var page = FetchDescriptor<MeterReading>(sortBy: [SortDescriptor(\.value)])
        page.fetchLimit = 1_000
        let held = try #require(try context.fetch(page).first)
        for offset in stride(from: 1_000, to: count, by: 1_000) {
            page.fetchOffset = offset
            let readings = try context.fetch(page)
            #expect(readings.first?.value == offset)
        }
        // 12,000 models were made; the registry swept the dead ones on its way.
        #expect(context.registrySize < 8_192)
        page.fetchOffset = 0
        page.fetchLimit = 1
        #expect(try context.fetch(page).first === held)
        #expect(held.value == 0)
    }
}
