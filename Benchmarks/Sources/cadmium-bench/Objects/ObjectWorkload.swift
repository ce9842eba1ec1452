import Foundation

// The object-level workloads of issue 6 on the Employee entity: a name, an indexed integer
// salary, a to-one department (100 departments), a hire date and a ~100-character notes string.

enum ObjectWorkload: String, CaseIterable, Codable, Sendable {
    /// Builds the read fixture; not reported.
    case prepare = "obj-prepare"
    case insert = "obj-insert"
    case commitEach = "obj-commit"
    /// `obj-commit` from 4 threads at once, each transaction durable.
    case commitEach4 = "obj-commit-4"
    /// `obj-commit` from 16 threads at once.
    case commitEach16 = "obj-commit-16"
    case fetchByKey = "obj-fetch-key"
    case fetchBySalary = "obj-fetch-salary"
    case rangeQuery = "obj-range"
    case containsScan = "obj-contains"
    /// `obj-range` and `obj-contains` with Cadmium's reads on 1 and on 2 threads
    /// (`StoreOptions.readThreads`): the scaling rows.
    case rangeQuery1 = "obj-range-1t"
    case rangeQuery2 = "obj-range-2t"
    case containsScan1 = "obj-contains-1t"
    case containsScan2 = "obj-contains-2t"
    case update = "obj-update"
    case delete = "obj-delete"
    case openAndQuery = "obj-open"

    static let reported: [ObjectWorkload] = allCases.filter { $0 != .prepare }

    var title: String {
        switch self {
        case .prepare: "prepare object fixture"
        case .insert: "1. bulk insert, 1 txn"
        case .commitEach: "2. single-object durable txns"
        case .commitEach4: "2b. same, 4 concurrent writers"
        case .commitEach16: "2c. same, 16 concurrent writers"
        case .fetchByKey: "3a. fetch by primary key"
        case .fetchBySalary: "3b. fetch by indexed salary"
        case .rangeQuery: "4. indexed range, ~1% each"
        case .containsScan: "5. full scan, notes CONTAINS[c]"
        case .rangeQuery1: "4s. indexed range, 1 read thread"
        case .rangeQuery2: "4s. indexed range, 2 read threads"
        case .containsScan1: "5s. CONTAINS[c] scan, 1 read thread"
        case .containsScan2: "5s. CONTAINS[c] scan, 2 read threads"
        case .update: "6a. update 10%, 1 txn"
        case .delete: "6b. delete 10%, 1 txn"
        case .openAndQuery: "7. cold open + first query"
        }
    }

    var unit: String {
        switch self {
        case .commitEach, .commitEach4, .commitEach16: "commits/s"
        case .rangeQuery, .containsScan, .rangeQuery1, .rangeQuery2, .containsScan1, .containsScan2: "rows/s"
        case .openAndQuery: "opens/s"
        case .fetchByKey, .fetchBySalary: "fetches/s"
        default: "objects/s"
        }
    }

    var readsFixture: Bool {
        [.fetchByKey, .fetchBySalary, .rangeQuery, .containsScan, .openAndQuery].contains(self) || readThreads != nil
    }
    /// The read threads a scaling row gives Cadmium's stores; nil: the store's default (or
    /// `CADMIUM_BENCH_READ_THREADS`).
    var readThreads: Int? {
        switch self {
        case .rangeQuery1, .containsScan1: 1
        case .rangeQuery2, .containsScan2: 2
        default: nil
        }
    }
    /// The workload a scaling row repeats (itself for the others).
    var measured: ObjectWorkload {
        switch self {
        case .rangeQuery1, .rangeQuery2: .rangeQuery
        case .containsScan1, .containsScan2: .containsScan
        default: self
        }
    }
    /// Works on its own copy of the fixture.
    var changesFixture: Bool { self == .update || self == .delete }
    var isDurable: Bool { writers > 0 }
    /// Its work grows with the store's size; the durable commits insert into an empty store.
    var scalesWithObjects: Bool { !isDurable }
    /// The threads committing at once in a durable workload; 0 for the others.
    var writers: Int {
        switch self {
        case .commitEach: 1
        case .commitEach4: 4
        case .commitEach16: 16
        default: 0
        }
    }
}

/// Sizes of the object suite.
struct ObjectScale: Codable, Sendable {
    var objects: Int
    var commits: Int
    var fetches: Int
    var ranges: Int
    var scans: Int

    /// The sizes: 1,000,000 objects, 10,000 durable transactions, 200,000 fetches.
    static let full = ObjectScale(objects: 1_000_000, commits: 10_000, fetches: 200_000, ranges: 20, scans: 3)
    static let quick = ObjectScale(objects: 10_000, commits: 200, fetches: 5_000, ranges: 5, scans: 1)
    /// The employee counts a full run measures: 1,000,000 (the judged size) and 200,000 beside it.
    static let fullSizes = [1_000_000, 200_000]
    /// Two small sizes, so that a quick run goes through the multi-size path.
    static let quickSizes = [10_000, 2_000]
    /// The smallest sizes that still run every object workload's code, on two levels (CI's check of a debug build).
    static let smoke = ObjectScale(objects: 500, commits: 10, fetches: 100, ranges: 2, scans: 1)
    /// The smoke run's two levels.
    static let smokeSizes = [500, 200]

    func operations(_ w: ObjectWorkload, matched: Int) -> Int {
        switch w {
        case .prepare, .insert: objects
        case .commitEach, .commitEach4, .commitEach16: commits
        case .fetchByKey, .fetchBySalary: fetches
        case .rangeQuery, .containsScan, .rangeQuery1, .rangeQuery2, .containsScan1, .containsScan2: matched
        case .update, .delete: objects / 10
        case .openAndQuery: 1
        }
    }
}

/// One employee, as every system stores it.
struct EmployeeData {
    static let departments = 100
    /// 2020-01-01T00:00:00Z.
    static let epoch = 1_577_836_800.0

    let id: Int64
    let name: String
    let salary: Int64
    let department: Int64
    let hired: Date
    let notes: String

    /// Employee `i` (primary keys 1…N): deterministic, with realistic text.
    static func make(_ i: Int, pool: [[UInt8]]) -> EmployeeData {
        let text = String(decoding: pool[DataSet.poolIndex(i)], as: UTF8.self).split(separator: "|")
        let salary = 30_000 + Int64((UInt64(i) &* 0x9E37_79B9_7F4A_7C15) >> 33) % 200_000
        return EmployeeData(
            id: Int64(i + 1), name: String(text[0]), salary: salary,
            department: Int64(i % departments + 1),
            hired: Date(timeIntervalSince1970: epoch + Double(i % 2000) * 86_400),
            notes: String(text[2]))
    }

    /// Salaries are spread over 30,000..<230,000: a ~1% range is 2,000 wide.
    static let salaryLow: Int64 = 30_000
    static let salarySpan: Int64 = 200_000
    /// The substring of the CONTAINS[c] scan (a word in some notes, in another case).
    static let needle = "LISBON"
}

/// A system at the object level.
protocol ObjectSystem {
    init(path: String, durable: Bool) throws
    /// Inserts departments 1…100 (when `withDepartments`) and `employees` in one transaction.
    func insert(_ employees: [EmployeeData], withDepartments: Bool) throws
    /// Inserts each employee in a durable transaction of its own.
    func insertEach(_ employees: [EmployeeData]) throws
    /// `insertEach` from `writers` threads at once, each inserting its share (`share(of:)`) as
    /// its users would commit from many threads.
    func insertConcurrently(_ employees: [EmployeeData], writers: Int) throws
    /// Fetches each employee by primary key, reading every attribute.
    func fetch(keys: [Int64]) throws -> UInt64
    /// Fetches the employees with each salary (indexed equality), reading every attribute.
    func fetch(salaries: [Int64]) throws -> (rows: Int, checksum: UInt64)
    /// Fetches the employees with lower ≤ salary < upper for each range (the index).
    func fetch(ranges: [(Int64, Int64)]) throws -> (rows: Int, checksum: UInt64)
    /// Counts the employees whose notes contain `needle`, ignoring case (no index helps).
    func countNotesContaining(_ needle: String) throws -> Int
    /// Adds 1 to the salary of each employee of `keys`, in one transaction.
    func raiseSalary(keys: [Int64]) throws
    /// Deletes each employee of `keys`, in one transaction.
    func delete(keys: [Int64]) throws
    func checkpointAndClose() throws -> Int
    func close() throws
}

enum ObjectSystemID: String, CaseIterable, Codable, Sendable {
    case cadmium = "cadmium-objects"
    case cdAPI = "cd-api"
    case swiftData = "swiftdata"
    case grdb
    case sqlite = "sqlite-c"

    var title: String {
        switch self {
        case .cadmium: "Cadmium ObjectStore"
        case .cdAPI: "Cadmium Cd API"
        case .swiftData: "Cadmium SwiftData"
        case .grdb: "GRDB Codable records"
        case .sqlite: "SQLite C"
        }
    }

    /// The name in ratio headings and verdicts: "Cd API ÷ GRDB".
    var shortTitle: String {
        switch self {
        case .cadmium: "ObjectStore"
        case .cdAPI: "Cd API"
        case .swiftData: "SwiftData"
        case .grdb: "GRDB"
        case .sqlite: "SQLite C"
        }
    }

    /// The most employees this system is measured at: SwiftData's column is issue 26's, at
    /// 200,000 employees (and the smaller quick sizes); the 1,000,000 level, judged on the Cd
    /// API, runs without it.
    var largestLevel: Int { self == .swiftData ? 200_000 : .max }

    /// The systems this binary can measure: the SwiftData column only when it was built with it
    /// (CADMIUM_BENCH_SWIFTDATA=1, Benchmarks/Package.swift).
    static var built: [ObjectSystemID] {
        #if BENCH_SWIFTDATA
        allCases
        #else
        allCases.filter { $0 != .swiftData }
        #endif
    }

    func open(path: String, durable: Bool) throws -> any ObjectSystem {
        switch self {
        case .cadmium: try CadmiumObjects(path: path, durable: durable)
        case .cdAPI: try CdAPIObjects(path: path, durable: durable)
        case .swiftData:
            #if BENCH_SWIFTDATA
            try SwiftDataObjects(path: path, durable: durable)
            #else
            throw BenchError.child(
                "this cadmium-bench was built without the SwiftData column (CADMIUM_BENCH_SWIFTDATA=1 builds it)")
            #endif
        case .grdb: try GRDBObjects(path: path, durable: durable)
        case .sqlite: try SQLiteObjects(path: path, durable: durable)
        }
    }
}
