import Foundation

// One object-level workload on one system, inside a child process (see ChildRun.swift).

func objectStorePath(dir: String, system: ObjectSystemID, workload: ObjectWorkload) -> String {
    let stem = workload.readsFixture || workload == .prepare ? "objects-fixture" : workload.rawValue
    return "\(dir)/\(stem)-\(system.rawValue).db"
}

func runObjectWorkload(
    system: ObjectSystemID, workload: ObjectWorkload, scale: ObjectScale, dir: String
) throws -> RunResult {
    let pool = DataSet(count: 0).values
    let path = objectStorePath(dir: dir, system: system, workload: workload)
    var checksum: UInt64 = 0
    var fileBytes: Int?
    var matched = 0
    var seconds = 0.0
    let keys = DataSet.randomIndices(scale.fetches, below: scale.objects, seed: 17).map { Int64($0 + 1) }
    if let threads = workload.readThreads { BenchReadThreads.set(threads) }
    var cpu: Double?

    switch workload {
    case .prepare, .insert:
        removeStore(path)
        let employees = (0..<scale.objects).map { EmployeeData.make($0, pool: pool) }
        let db = try system.open(path: path, durable: false)
        seconds = try timed { try db.insert(employees, withDepartments: true) }
        fileBytes = try db.checkpointAndClose()
        if workload == .insert { removeStore(path) }
    case .commitEach, .commitEach4, .commitEach16:
        removeStore(path)
        let employees = (0..<scale.commits).map { EmployeeData.make($0, pool: pool) }
        let db = try system.open(path: path, durable: true)
        try db.insert([], withDepartments: true)
        let writers = workload.writers
        (seconds, cpu) = try timedWithCPU {
            if writers == 1 {
                try db.insertEach(employees)
            } else {
                try db.insertConcurrently(employees, writers: writers)
            }
        }
        try db.close()
        removeStore(path)
    case .fetchByKey:
        let db = try system.open(path: path, durable: false)
        seconds = try timed { checksum = try db.fetch(keys: keys) }
        try db.close()
    case .fetchBySalary:
        let salaries = keys.map(EmployeeData.salaryOf(key:))
        let db = try system.open(path: path, durable: false)
        seconds = try timed { (matched, checksum) = try db.fetch(salaries: salaries) }
        try db.close()
    case .rangeQuery, .rangeQuery1, .rangeQuery2:
        let width = EmployeeData.salarySpan / 100
        let ranges = DataSet.randomIndices(scale.ranges, below: Int(EmployeeData.salarySpan - width), seed: 19)
            .map { (EmployeeData.salaryLow + Int64($0), EmployeeData.salaryLow + Int64($0) + width) }
        let db = try system.open(path: path, durable: false)
        (seconds, cpu) = try timedWithCPU { (matched, checksum) = try db.fetch(ranges: ranges) }
        try db.close()
    case .containsScan, .containsScan1, .containsScan2:
        let db = try system.open(path: path, durable: false)
        (seconds, cpu) = try timedWithCPU {
            for _ in 0..<scale.scans { checksum = UInt64(try db.countNotesContaining(EmployeeData.needle)) }
        }
        matched = scale.objects * scale.scans
        try db.close()
    case .update, .delete:
        removeStore(path)
        let fixture = objectStorePath(dir: dir, system: system, workload: .prepare)
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        let targets = stride(from: 1, through: scale.objects, by: 10).map { Int64($0) }
        let db = try system.open(path: path, durable: false)
        seconds = try timed {
            if workload == .update { try db.raiseSalary(keys: targets) } else { try db.delete(keys: targets) }
        }
        try db.close()
        removeStore(path)
    case .openAndQuery:
        var db: (any ObjectSystem)?
        seconds = try timed {
            db = try system.open(path: path, durable: false)
            checksum = try db!.fetch(keys: [keys[0]])
        }
        try db?.close()
    }
    return RunResult(
        seconds: seconds, operations: scale.operations(workload, matched: matched), fileBytes: fileBytes,
        peakRSSKiB: peakRSSKiB(), checksum: checksum, cpuSeconds: cpu)
}
