import Cadmium
import ArgumentParser
import Foundation

// `cadmium-bench batch --form batch|objects`: batch operations beside the object-by-object forms
// on N employees (default 100,000), in one process per form (peak RSS is per process):
//
//   insert   N employees: `Cd.batchInsert` of a lazy sequence  |  `Cd.create` in one transaction
//   update   every salary × 1.1: `batchUpdate(["salary": CdExpression("salary * 1.1")])`
//            |  fetch every employee and set its salary in one transaction
//   delete   10% (salary < 10% of the range): `batchDelete()`  |  fetch them and `Cd.delete`
//
// Prints the time of each step and the process's peak RSS after it.

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Times batch insert, update and delete beside the object-by-object forms.")

    enum Form: String, ExpressibleByArgument { case batch, objects }

    @Option(help: "batch or objects.")
    var form: Form = .batch
    @Option(help: "Employees to insert, update and (10%) delete.")
    var objects = 100_000
    @Option(help: "Objects per commit of a batch operation.")
    var batchSize = 1_000
    @Option(help: "Directory for the store.")
    var dataDirectory = ".build/bench-data"

    func run() throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let path = dataDirectory + "/batch-\(form.rawValue).cdstore"
        try? FileManager.default.removeItem(atPath: path)
        var options = StoreOptions()
        options.durability = .normal
        try Cd.initWithStore(
            model: try CdModel(classes: [Department.self, Employee.self]), storeURL: URL(fileURLWithPath: path),
            options: options)
        let n = objects, size = batchSize, form = self.form
        let cut = Int64(n / 10)
        func step(_ name: String, _ body: @escaping () throws -> Int) throws {
            let start = now()
            let count = try onBackgroundThread(body)
            let seconds = now() - start
            let label = form.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            let step = name.padding(toLength: 7, withPad: " ", startingAt: 0)
            let rate = String(format: "%10.0f", Double(count) / seconds)
            print(
                "\(label) \(step) \(String(format: "%8d", count)) objects  \(String(format: "%8.3f", seconds)) s"
                    + "  \(rate) objects/s  peak RSS \(peakRSSKiB() / 1024) MiB")
        }
        try step("insert") {
            try Cd.transactAndWait { () throws -> Int in
                switch form {
                case .batch:
                    return try Cd.batchInsert(
                        Employee.self,
                        (0..<n).lazy.map { i -> [String: Any] in
                            [
                                "name": "employee \(i)", "salary": Int64(i),
                                "hired": Date(timeIntervalSince1970: Double(i)),
                                "notes": "notes",
                            ]
                        }, batchSize: size)
                case .objects:
                    for i in 0..<n {
                        let e = try Cd.create(Employee.self)
                        e.name = "employee \(i)"
                        e.salary = Int64(i)
                        e.hired = Date(timeIntervalSince1970: Double(i))
                        e.notes = "notes"
                    }
                    return n
                }
            }
        }
        try step("update") {
            try Cd.transactAndWait { () throws -> Int in
                switch form {
                case .batch:
                    return try Cd.objects(Employee.self).batchUpdate(
                        ["salary": CdExpression("salary * 1.1")], batchSize: size)
                case .objects:
                    let all = try Cd.objects(Employee.self).fetch()
                    for e in all { e.salary = Int64((Double(e.salary) * 1.1).rounded()) }
                    return all.count
                }
            }
        }
        try step("delete") {
            try Cd.transactAndWait { () throws -> Int in
                let victims = Cd.objects(Employee.self).filter("salary < %@", Int64(Double(cut) * 1.1))
                switch form {
                case .batch: return try victims.batchDelete(batchSize: size)
                case .objects:
                    let found = try victims.fetch()
                    try Cd.throwing.delete(found)
                    return found.count
                }
            }
        }
        let left = try onBackgroundThread { try Cd.read { try Cd.objects(Employee.self).count() } }
        print("employees left: \(left)")
        try Cd.initWithStore(model: try CdModel(classes: [Department.self, Employee.self]), storeURL: nil)
    }
}
