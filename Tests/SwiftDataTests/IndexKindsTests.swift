// `#Index` in its typed form (`.binary`, `.rtree`) beside the key-path-list form: the schema lists
// the indexes as declared, and the store keeps one B-tree per distinct list of properties, which
// the query planner uses.

import CdObjects
import Foundation
import Testing

@testable import SwiftData

@Model
final class Landmark {
    #Index<Landmark>(.binary([\.name]), .rtree([\.latitude, \.longitude]), .binary([\.name]))
    #Index<Landmark>([\.height])
    var name: String
    var latitude: Double
    var longitude: Double
    var height: Int

    init(name: String, latitude: Double, longitude: Double, height: Int) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.height = height
    }
}

@Suite struct IndexKindsTests {
    @Test func typedAndListIndexesAreListedAsDeclared() throws {
        let entity = try #require(Schema([Landmark.self]).entities.first)
        #expect(entity.indices == [["name"], ["latitude", "longitude"], ["name"], ["height"]])
        let index = Schema.Index<Landmark>(.rtree([\.latitude, \.longitude]))
        guard case .rtree(let paths) = try #require(index.indices.first) else {
            Issue.record("\(index.indices) is not one rtree index")
            return
        }
        #expect(paths == [\Landmark.latitude, \Landmark.longitude])
    }

    @Test func eachDistinctIndexIsAStoreIndexThatQueriesUse() throws {
        let container = try ModelContainer(
            for: Landmark.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for i in 0..<200 {
            context.insert(
                Landmark(
                    name: "L\(i)", latitude: Double(i % 90), longitude: Double(i % 180), height: i * 3))
        }
        try context.save()

        // One index per distinct list: the repeated `.binary([\.name])` is made once.
        let indexes = container.store.model.entity(named: "Landmark")?.fetchIndexes.map { $0.elements.map(\.property) }
        #expect(indexes == [["name"], ["latitude", "longitude"], ["height"]])

        for (format, index) in [
            ("latitude >= 10 AND latitude < 12", "latitude"), ("name == 'L7'", "name"), ("height > 590", "height"),
        ] {
            var request = FetchRequest(entity: "Landmark")
            request.predicate = try CdPredicate(format: format)
            let plan = try container.store.read { try $0.explain(request) }
            #expect(plan.contains("INDEX") && plan.contains(index), "\(format): \(plan)")
        }

        let band = try context.fetch(
            FetchDescriptor<Landmark>(
                predicate: #Predicate { $0.latitude >= 10 && $0.latitude < 12 }, sortBy: [SortDescriptor(\.height)]))
        #expect(band.map(\.name) == ["L10", "L11", "L100", "L101", "L190", "L191"])
    }
}
