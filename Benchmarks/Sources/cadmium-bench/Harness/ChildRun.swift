// One workload on one system, as run inside a child process (`cadmium-bench run-one`), so that
// each run's peak memory is its own and no run inherits another's caches or heap.

/// Where a system's files for a workload live under the data directory.
func storePath(dir: String, system: SystemID, workload: Workload) -> String {
    let stem = workload.readsFixture || workload == .prepare ? "fixture" : workload.rawValue
    return "\(dir)/\(stem)-\(system.rawValue).db"
}

/// Removes a store and its side files (WAL, SQLite's shared-memory index).
func removeStore(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { removeIfPresent(path + suffix) }
}

/// Runs `workload` on `system` at `scale` and reports what it measured.
func runOne(system: SystemID, workload: Workload, scale: Scale, dir: String) throws -> RunResult {
    let data = DataSet(count: scale.keys)
    let path = storePath(dir: dir, system: system, workload: workload)
    var checksum: UInt64 = 0
    var fileBytes: Int?
    let seconds: Double

    switch workload {
    case .prepare, .loadSequential, .loadRandom:
        removeStore(path)
        let order = workload == .loadRandom ? data.shuffledIndices(seed: 7) : Array(0..<scale.keys)
        let engine = try system.open(path: path, durable: false)
        seconds = try timed { try engine.load(order, data: data) }
        fileBytes = try engine.checkpointAndClose()
    case .getRandom:
        let indices = DataSet.randomIndices(scale.gets, below: scale.keys, seed: 11)
        let engine = try system.open(path: path, durable: false)
        seconds = try timed { checksum = try engine.get(indices) }
        try engine.close()
    case .getWarm:
        let indices = DataSet.randomIndices(scale.gets, below: scale.keys, seed: 11)
        let engine = try system.open(path: path, durable: false, cacheBytes: workload.cacheBytes)
        _ = try engine.scanAll()  // untimed: brings every page into the cache
        seconds = try timed { checksum = try engine.get(indices) }
        try engine.close()
    case .scanFull:
        let engine = try system.open(path: path, durable: false)
        seconds = try timed { checksum = try engine.scanAll() }
        try engine.close()
    case .scanRange:
        let starts = DataSet.randomIndices(scale.rangeScans, below: scale.keys - scale.rangeLength + 1, seed: 13)
        let engine = try system.open(path: path, durable: false)
        seconds = try timed { checksum = try engine.scanRanges(starts, length: scale.rangeLength) }
        try engine.close()
    case .commitDurable, .commitDurable4, .commitDurable16:
        removeStore(path)
        let engine = try system.open(path: path, durable: true)
        let order = Array(0..<scale.commits)
        seconds = try timed {
            if workload.writers == 1 {
                try engine.commitEach(order, data: data)
            } else {
                try engine.commitConcurrently(order, writers: workload.writers, data: data)
            }
        }
        try engine.close()
        removeStore(path)
    }
    if workload == .loadSequential || workload == .loadRandom { removeStore(path) }
    return RunResult(
        seconds: seconds, operations: scale.operations(workload), fileBytes: fileBytes,
        peakRSSKiB: peakRSSKiB(), checksum: checksum)
}
