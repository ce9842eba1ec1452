@_spi(Benchmarks) import Cadmium
import ArgumentParser
import Foundation

// `cadmium-bench observe`: the cost of keeping a fetched results controller up to date.
// A store of N employees (default 100,000), a controller over all of them sorted by salary then
// name, and commits that change the salary of 1 or of 1,000 employees. For each commit the
// controller reports how long it took to bring its results up to date after the merge
// (`lastUpdate`, the delegate's calls not included). Two controllers run side by side:
//
//   incremental  the request as is: the commit's objects are re-tested and re-placed
//   refetch      the same request with `limit(N + 1)` (same results), which the controller can
//                only refetch and diff: the cost before incremental updates
//
// Prints the median and the 90th percentile per workload, in microseconds.

struct Observe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Times a fetched results controller's update after commits of 1 and 1,000 changes.")

    @Option(help: "Employees in the store (all of them are results).")
    var results = 100_000
    @Option(help: "Commits per workload.")
    var repetitions = 20
    @Option(help: "Directory for the store.")
    var dataDirectory = ".build/bench-data"
    @Flag(help: "Skip the refetching controller (it takes long at large sizes).")
    var skipRefetch = false

    func run() throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = dataDirectory + "/observe.cdstore"
        try? FileManager.default.removeItem(atPath: path)
        var options = StoreOptions()
        options.durability = .off
        try Cd.initWithStore(
            model: try CdModel(classes: [Department.self, Employee.self]), storeURL: URL(fileURLWithPath: path),
            options: options)
        let count = results
        try onBackgroundThread {
            try Cd.transactAndWait {
                for i in 0..<count {
                    let e = try Cd.create(Employee.self)
                    e.name = "employee \(i)"
                    e.salary = Int64(i * 7 % 1_000_003)
                    e.hired = Date(timeIntervalSince1970: Double(i))
                    e.notes = "notes"
                }
            }
        }
        let incremental = Cd.newFetchedResultsController(
            Cd.objects(Employee.self).sorted("salary").sorted("name"), sectionNameKeyPath: nil, cacheName: nil)
        try incremental.performFetch()
        var controllers = [("incremental", incremental)]
        if !skipRefetch {
            let refetch = Cd.newFetchedResultsController(
                Cd.objects(Employee.self).sorted("salary").sorted("name").limit(count + 1),
                sectionNameKeyPath: nil, cacheName: nil)
            try refetch.performFetch()
            controllers.append(("refetch", refetch))
        }
        var changes = 0
        print("results \(count), \(repetitions) commits per workload (microseconds: median, p90)")
        for changed in [1, 1_000] {
            var times: [String: [Double]] = [:]
            for rep in 0..<repetitions {
                let keys = (0..<changed).map { Int64(($0 * 97 + rep * 7_919) % count) + 1 }
                let round = rep
                try onBackgroundThread {
                    try Cd.transactAndWait {
                        let ids = keys.map { ObjectID(entity: Employee.entityName, primaryKey: $0) }
                        for e in try Cd.objects(Employee.self).filter("SELF IN %@", ids).fetch() {
                            e.salary = Int64((Int(e.salary) + 500_000 + round) % 1_000_003)
                        }
                    }
                }
                for (name, controller) in controllers {
                    guard let update = controller.lastUpdate else { continue }
                    let label = "\(name)\(update.incremental ? "" : " (refetched)")"
                    times[label, default: []].append(
                        Double(update.duration.components.attoseconds) / 1e12 + Double(
                            update.duration.components.seconds) * 1e6)
                }
                changes += changed
            }
            for (label, samples) in times.sorted(by: { $0.key < $1.key }) {
                let sorted = samples.sorted()
                let median = sorted[sorted.count / 2], p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
                print(
                    "controller-\(changed)  \(label.padding(toLength: 24, withPad: " ", startingAt: 0))"
                        + "  median \(String(format: "%10.1f", median))  p90 \(String(format: "%10.1f", p90))")
            }
        }
        let fetched = incremental.fetchedObjects ?? []
        let check = try Cd.objects(Employee.self).sorted("salary").sorted("name").fetch()
        print("incremental results equal a fresh fetch: \(fetched.map(\.objectID) == check.map(\.objectID))")
        _ = changes
        try Cd.initWithStore(model: try CdModel(classes: [Department.self, Employee.self]), storeURL: nil)
    }
}
