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

/// A suite run. Schema 2 keeps the object level as one entry per size (`objectLevels`); schema 1
/// had a single size in `objectScale` and `objectWorkloads`, which decode as one level.
struct SuiteResults: Codable, Sendable {
    var schema = 2
    var date: String
    var mode: String
    var scale: Scale
    var repetitions: Int
    var machine: MachineInfo
    var workloads: [WorkloadResult]
    /// The object level at each size measured, largest first; nil when the run skipped it.
    var objectLevels: [ObjectLevelResult]?

    /// The level the targets are judged on: the largest size.
    var judgedObjectLevel: ObjectLevelResult? { objectLevels?.max { $0.scale.objects < $1.scale.objects } }

    private enum CodingKeys: String, CodingKey {
        case schema, date, mode, scale, repetitions, machine, workloads, objectLevels
        /// Schema 1's single object level.
        case objectScale, objectWorkloads
    }

    init(
        date: String, mode: String, scale: Scale, repetitions: Int, machine: MachineInfo,
        workloads: [WorkloadResult], objectLevels: [ObjectLevelResult]?
    ) {
        self.date = date
        self.mode = mode
        self.scale = scale
        self.repetitions = repetitions
        self.machine = machine
        self.workloads = workloads
        self.objectLevels = objectLevels
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Held in memory (and written back) as the current schema.
        let version = try c.decode(Int.self, forKey: .schema)
        guard version <= schema else {
            throw DecodingError.dataCorruptedError(
                forKey: .schema, in: c, debugDescription: "results schema \(version) is newer than \(schema)")
        }
        date = try c.decode(String.self, forKey: .date)
        mode = try c.decode(String.self, forKey: .mode)
        scale = try c.decode(Scale.self, forKey: .scale)
        repetitions = try c.decode(Int.self, forKey: .repetitions)
        machine = try c.decode(MachineInfo.self, forKey: .machine)
        workloads = try c.decode([WorkloadResult].self, forKey: .workloads)
        if let levels = try c.decodeIfPresent([ObjectLevelResult].self, forKey: .objectLevels) {
            objectLevels = levels
        } else if let s = try c.decodeIfPresent(ObjectScale.self, forKey: .objectScale),
            let w = try c.decodeIfPresent([ObjectWorkloadResult].self, forKey: .objectWorkloads)
        {
            objectLevels = [ObjectLevelResult(scale: s, workloads: w)]
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(date, forKey: .date)
        try c.encode(mode, forKey: .mode)
        try c.encode(scale, forKey: .scale)
        try c.encode(repetitions, forKey: .repetitions)
        try c.encode(machine, forKey: .machine)
        try c.encode(workloads, forKey: .workloads)
        try c.encodeIfPresent(objectLevels, forKey: .objectLevels)
    }
}
