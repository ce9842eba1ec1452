// The results of a suite run, as written to `--json` and read back to render the docs.

/// One workload on one system: every repetition and their median.
struct SystemResult: Codable, Sendable {
    var system: SystemID
    var runs: [RunResult]

    /// The median repetition by time (the run reported).
    var median: RunResult { RunResult.median(of: runs) }
}

extension RunResult {
    /// The median of `runs` by time, with the median file size and peak memory of its own
    /// (not the fastest run's). `runs` is not empty.
    static func median(of runs: [RunResult]) -> RunResult {
        let sorted = runs.sorted { $0.seconds < $1.seconds }
        var m = sorted[sorted.count / 2]
        let sizes = runs.compactMap(\.fileBytes).sorted()
        m.fileBytes = sizes.isEmpty ? nil : sizes[sizes.count / 2]
        let peaks = runs.map(\.peakRSSKiB).sorted()
        m.peakRSSKiB = peaks[peaks.count / 2]
        return m
    }
}

struct WorkloadResult: Codable, Sendable {
    var workload: Workload
    var title: String
    var unit: String
    var durable: Bool
    var systems: [SystemResult]

    func result(_ id: SystemID) -> RunResult? { systems.first { $0.system == id }?.median }
}

/// What the machine was, for the docs.
struct MachineInfo: Codable, Sendable {
    var cores: Int
    var cpu: String
    var memoryGiB: Double
    var kernel: String
    var swift: String
    var sqlite: String
    var grdb: String
    var fileSystem: String
    var shared: String
}

struct SuiteResults: Codable, Sendable {
    var schema = 1
    var date: String
    var mode: String
    var scale: Scale
    var repetitions: Int
    var machine: MachineInfo
    var workloads: [WorkloadResult]
    var objectScale: ObjectScale?
    var objectWorkloads: [ObjectWorkloadResult]?
}
