// A `@Model` class that is not final: its schema metadata is a `class var`, and its models are
// stored and fetched as those of a final class.

import Foundation
import SwiftData
import Testing

@Model
class Vehicle {
    var wheels: Int

    init(wheels: Int) {
        self.wheels = wheels
    }
}

@Suite struct NonFinalModelTests {
    @Test func aNonFinalModelIsStoredAndFetched() throws {
        let context = ModelContext(
            try ModelContainer(for: Vehicle.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.insert(Vehicle(wheels: 3))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Vehicle>()).map(\.wheels) == [3])
    }
}
