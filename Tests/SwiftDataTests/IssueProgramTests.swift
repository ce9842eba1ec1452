// swift-format-ignore-file
// (The program of issue 26 is kept exactly as the issue writes it.)
// The program of issue 26 ("This must compile and behave as commented, unchanged"), verbatim:
// the model declarations at file scope, the top-level statements in an async test function. Its
// `print` calls are recorded (a file-private `print` shadows the standard one here) and compared
// with the comments of the program, line by line.

import Foundation
import Observation
import SwiftData
import Synchronization
import Testing

@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate])
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip)
    var accommodations: [Accommodation] = []
    @Transient var isSelected = false

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model
final class Accommodation {
    @Attribute(.unique) var code: String
    var name: String
    var trip: Trip?

    init(code: String, name: String) {
        self.code = code
        self.name = name
    }
}

@ModelActor
actor Importer {
    func importTrips(_ names: [String]) throws {
        for name in names {
            modelContext.insert(Trip(name: name, destination: "Unknown", startDate: .now, endDate: .now))
        }
        try modelContext.save()
    }
}

/// The lines the program printed, while a test records them.
final class PrintedLines: Sendable {
    private let lines = Mutex<[String]>([])
    @TaskLocal static var current: PrintedLines?

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// The program's `print`: recorded, then printed.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    PrintedLines.current?.append(line)
    Swift.print(line, terminator: terminator)
}

@Suite struct IssueProgramTests {
    /// Each `print` of the program, with what its comment says it prints.
    static let expected = [
        "Lisbon",
        "[\"Lisbon\"]",
        "[\"Alfama Loft\"]",
        "true",
        "3",
        "1 1",
    ]

    @Test func programBehavesAsCommented() async throws {
        let printed = PrintedLines()
        try await PrintedLines.$current.withValue(printed) {
            try await issue26Program()
        }
        #expect(printed.all == Self.expected)
    }
}

/// The program of the issue, unchanged: its top-level statements, in an async function.
func issue26Program() async throws {
    let url = URL(fileURLWithPath: NSTemporaryDirectory() + "trips-\(UUID().uuidString).store")
    let container = try ModelContainer(for: Trip.self, Accommodation.self,
                                       configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let lisbon = Trip(name: "Lisbon", destination: "Portugal", startDate: .now,
                      endDate: .now.addingTimeInterval(3 * 86_400))
    lisbon.accommodations.append(Accommodation(code: "LX1", name: "Alfama Flat"))
    context.insert(lisbon)
    try context.save()
    print(lisbon.accommodations.first?.trip?.name ?? "none")              // Lisbon

    let soon = Date.now.addingTimeInterval(30 * 86_400)
    var upcoming = FetchDescriptor<Trip>(
        predicate: #Predicate<Trip> { $0.startDate < soon && $0.destination.localizedStandardContains("portugal") },
        sortBy: [SortDescriptor(\.startDate)])
    upcoming.fetchLimit = 10
    print(try context.fetch(upcoming).map(\.name))                        // ["Lisbon"]

    context.insert(Accommodation(code: "LX1", name: "Alfama Loft"))       // same unique code: an update
    try context.save()
    print(try context.fetch(FetchDescriptor<Accommodation>()).map(\.name))  // ["Alfama Loft"]

    let renamed = Mutex(false)
    withObservationTracking { _ = lisbon.name } onChange: { renamed.withLock { $0 = true } }
    lisbon.name = "Lisboa"
    print(renamed.withLock { $0 })                                        // true

    try await Importer(modelContainer: container).importTrips(["Oslo", "Rome"])
    print(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()))  // 3

    try context.delete(model: Trip.self, where: #Predicate<Trip> { $0.destination == "Unknown" })
    let porto = Trip(name: "Porto", destination: "Portugal", startDate: .now, endDate: .now)
    porto.accommodations.append(Accommodation(code: "OP1", name: "Ribeira Room"))
    context.insert(porto)
    try context.save()
    context.delete(porto)                                                 // cascades to Ribeira Room
    try context.save()
    print(try context.fetchCount(FetchDescriptor<Trip>()),
          try context.fetchCount(FetchDescriptor<Accommodation>()))       // 1 1
}
