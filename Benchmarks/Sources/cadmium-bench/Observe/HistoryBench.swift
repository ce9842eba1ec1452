import Cadmium
import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// `cadmium-bench history`: the cost of persistent history on a Cd bulk insert. N employees
// (default 200,000) are created in one `Cd.transactAndWait` (the flushing path: batches of
// 4,096 through one store writer, one history part per batch) into a fresh store, with
// `StoreOptions.history` off and `.tracked`, alternating off/on for each repetition so that
// both see the same machine load; each run is one fresh store. Prints the median wall time and
// the process CPU time (user + system, from getrusage) of each mode and the ratio on/off. The
// target (issue 30) is within 10% of off.

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Times a Cd bulk insert with persistent history off and on.")

    @Option(help: "Employees to insert per run.")
    var objects = 200_000
    @Option(help: "Runs per mode (alternating off, on); the median is reported.")
    var repetitions = 3
    @Option(help: "Directory for the stores.")
    var dataDirectory = ".build/bench-data"

    /// Process CPU seconds so far (user + system).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// One bulk insert into a fresh store; (wall, CPU) seconds.
    func insert(tracked: Bool) throws -> (wall: Double, cpu: Double) {
        let path = dataDirectory + "/history-\(tracked ? "on" : "off").cdstore"
        for suffix in ["", "-wal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var options = StoreOptions()
        options.durability = .normal
        options.history = tracked ? .tracked : .off
        try Cd.initWithStore(
            model: try CdModel(classes: [Department.self, Employee.self]), storeURL: URL(fileURLWithPath: path),
            options: options)
        let n = objects
        let (startWall, startCPU) = (now(), Self.cpuSeconds())
        try onBackgroundThread {
            try Cd.transactAndWait {
                for i in 0..<n {
                    let e = try Cd.create(Employee.self)
                    e.name = "employee \(i)"
                    e.salary = Int64(i)
                    e.hired = Date(timeIntervalSince1970: Double(i))
                    e.notes = "notes"
                }
            }
        }
        let result = (now() - startWall, Self.cpuSeconds() - startCPU)
        if tracked {
            // The history holds the one transaction with every insert.
            let recorded = try Cd.history(after: nil)
            guard recorded.count == 1, recorded[0].changes.count == n else {
                throw ValidationError("history recorded \(recorded.map(\.changes.count)), not one transaction of \(n)")
            }
        }
        try Cd.initWithStore(model: try CdModel(classes: [Department.self, Employee.self]), storeURL: nil)
        for suffix in ["", "-wal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return result
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        var off: [(wall: Double, cpu: Double)] = [], on: [(wall: Double, cpu: Double)] = []
        for _ in 0..<repetitions {
            off.append(try insert(tracked: false))
            on.append(try insert(tracked: true))
        }
        func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
        let rows = [("off", off), ("tracked", on)].map { name, runs in
            (name, median(runs.map(\.wall)), median(runs.map(\.cpu)))
        }
        for (name, wall, cpu) in rows {
            let label = "history \(name)".padding(toLength: 16, withPad: " ", startingAt: 0)
            print(
                "\(label) bulk insert \(objects) employees  wall \(String(format: "%7.3f", wall)) s"
                    + "  CPU \(String(format: "%7.3f", cpu)) s  (median of \(repetitions))")
        }
        print(
            "history tracked / off: wall \(String(format: "%.3f", rows[1].1 / rows[0].1))×, "
                + "CPU \(String(format: "%.3f", rows[1].2 / rows[0].2))× (target: within 1.10×)")
    }
}
