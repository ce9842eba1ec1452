import Foundation

// The parent process: runs every (workload, system, repetition) as a child process of this
// same executable, collects the JSON line each child prints, and keeps every repetition.

struct Orchestrator {
    var scale: Scale
    var repetitions: Int
    var systems: [SystemID]
    var workloads: [Workload]
    var dataDirectory: String

    func run() throws -> [WorkloadResult] {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        if workloads.contains(where: \.readsFixture) {
            for system in systems {
                log("preparing the read fixture for \(system.title) (\(scale.keys) keys)")
                _ = try child(system, .prepare)
            }
        }
        var results: [WorkloadResult] = []
        for workload in workloads {
            var perSystem: [SystemResult] = []
            for system in systems {
                var runs: [RunResult] = []
                for rep in 1...repetitions {
                    let r = try child(system, workload)
                    log(
                        "\(workload.rawValue.padded(15)) \(system.title.padded(23)) run \(rep)/\(repetitions): "
                            + "\(fixed(r.seconds, 3).leftPadded(9)) s "
                            + "\(fixed(r.throughput, 0).leftPadded(12)) \(workload.unit)"
                            + "  peak \(r.peakRSSKiB / 1024) MiB")
                    runs.append(r)
                }
                perSystem.append(SystemResult(system: system, runs: runs))
            }
            try checkChecksums(workload, perSystem)
            results.append(
                WorkloadResult(
                    workload: workload, title: workload.title, unit: workload.unit,
                    durable: workload.isDurable, systems: perSystem))
        }
        for system in systems { removeStore(storePath(dir: dataDirectory, system: system, workload: .prepare)) }
        return results
    }

    /// Every system must have read the same data.
    private func checkChecksums(_ workload: Workload, _ results: [SystemResult]) throws {
        guard workload.readsFixture else { return }
        let sums = Set(results.flatMap { $0.runs.map(\.checksum) })
        if sums.count > 1 { throw BenchError.child("\(workload.rawValue): systems read different data (\(sums))") }
    }

    private func child(_ system: SystemID, _ workload: Workload) throws -> RunResult {
        try childProcess(
            [
                "run-one", "--system", system.rawValue, "--workload", workload.rawValue,
                "--keys", "\(scale.keys)", "--gets", "\(scale.gets)", "--range-scans", "\(scale.rangeScans)",
                "--commits", "\(scale.commits)", "--dir", dataDirectory,
            ],
            what: "\(system.rawValue) \(workload.rawValue)")
    }

    /// Runs this executable with `arguments` and decodes the result line it prints.
    func childProcess(_ arguments: [String], what: String) throws -> RunResult {
        try runChild(arguments, what: what)
    }
}

/// Runs this executable with `arguments` (and `environment`, else this process's) and decodes the
/// result line it prints.
func runChild(_ arguments: [String], environment: [String: String]? = nil, what: String) throws -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    p.arguments = arguments
    if let environment { p.environment = environment }
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let bytes = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw BenchError.child("\(what) exited with status \(p.terminationStatus)")
    }
    do {
        return try JSONDecoder().decode(RunResult.self, from: bytes)
    } catch {
        throw BenchError.child("\(what) printed no result: \(String(decoding: bytes, as: UTF8.self))")
    }
}

func log(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}
