// SwiftData models of the shared-store test (SwiftDataStoreTests.swift): a file of its own that
// imports SwiftData alone, so that `@Attribute` and `@Relationship` are SwiftData's macros, not
// Cadmium's property wrappers. Nested in an enum, since this module has classes of these names;
// SwiftData names the entities `Trip` and `Stop` all the same.

import Foundation
import SwiftData

enum SharedStoreModels {
    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var startDate: Date
        var budget: Double?
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

        init(name: String, startDate: Date, budget: Double? = nil) {
            self.name = name
            self.startDate = startDate
            self.budget = budget
        }
    }

    @Model
    final class Stop {
        #Index<Stop>([\.place])
        var place: String
        var nights: Int
        var trip: Trip?

        init(place: String, nights: Int) {
            self.place = place
            self.nights = nights
        }
    }

    static var schema: Schema { Schema([Trip.self, Stop.self]) }
}
