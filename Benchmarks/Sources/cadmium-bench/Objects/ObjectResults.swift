import Foundation

// Results, orchestration and the table of the object-level suite (the engine suite's
// counterparts in Harness/ and Report/).

struct ObjectSystemResult: Codable, Sendable {
    var system: ObjectSystemID
    var runs: [RunResult]
    var median: RunResult { SystemResult(system: .cadmium, runs: runs).median }
}

struct ObjectWorkloadResult: Codable, Sendable {
    var workload: ObjectWorkload
    var title: String
    var unit: String
    var durable: Bool
    var systems: [ObjectSystemResult]

    func result(_ id: ObjectSystemID) -> RunResult? { systems.first { $0.system == id }?.median }
}

extension Orchestrator {
    func runObjects(scale: ObjectScale, systems: [ObjectSystemID], workloads: [ObjectWorkload]) throws -> [ObjectWorkloadResult] {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        if workloads.contains(where: { $0.readsFixture || $0.changesFixture }) {
            for system in systems {
                log("preparing the object fixture for \(system.title) (\(scale.objects) employees)")
                _ = try objectChild(system, .prepare, scale)
            }
        }
        var results: [ObjectWorkloadResult] = []
        for workload in workloads {
            var perSystem: [ObjectSystemResult] = []
            for system in systems {
                var runs: [RunResult] = []
                for rep in 1...repetitions {
                    let r = try objectChild(system, workload, scale)
                    log("\(workload.rawValue.padded(17)) \(system.title.padded(21)) run \(rep)/\(repetitions): "
                        + "\(fixed(r.seconds, 3).leftPadded(9)) s \(fixed(r.throughput, 0).leftPadded(12)) \(workload.unit)"
                        + "  peak \(r.peakRSSKiB / 1024) MiB")
                    runs.append(r)
                }
                perSystem.append(ObjectSystemResult(system: system, runs: runs))
            }
            if workload.readsFixture {
                // Rows must agree everywhere; checksums only where the row order is fixed (by key).
                let ordered = workload == .fetchByKey || workload == .containsScan
                let sums = Set(perSystem.flatMap { $0.runs.map { ordered ? "\($0.checksum)/\($0.operations)" : "\($0.operations)" } })
                if sums.count > 1 { log("warning: \(workload.rawValue): systems returned different results \(sums)") }
            }
            results.append(ObjectWorkloadResult(workload: workload, title: workload.title, unit: workload.unit,
                                                durable: workload.isDurable, systems: perSystem))
        }
        for system in systems { removeStore(objectStorePath(dir: dataDirectory, system: system, workload: .prepare)) }
        return results
    }

    private func objectChild(_ system: ObjectSystemID, _ workload: ObjectWorkload, _ scale: ObjectScale) throws -> RunResult {
        try childProcess(["run-one", "--object-system", system.rawValue, "--object-workload", workload.rawValue,
                          "--objects", "\(scale.objects)", "--commits", "\(scale.commits)", "--gets", "\(scale.fetches)",
                          "--range-scans", "\(scale.ranges)", "--scans", "\(scale.scans)", "--dir", dataDirectory],
                         what: "\(system.rawValue) \(workload.rawValue)")
    }
}

extension ResultTables {
    /// Object-level throughput: Cadmium's ObjectStore ÷ each peer, with the targets
    /// (at least 2× GRDB on bulk insert and fetch by key; durable commits at least SQLite's rate).
    func objectThroughput() -> TextTable? {
        guard let rows = results.objectWorkloads, !rows.isEmpty else { return nil }
        let peers: [ObjectSystemID] = [.grdb, .sqlite]
        var t = TextTable(headers: ["workload", "durability"] + ([ObjectSystemID.cadmium] + peers).map(\.title)
                          + peers.map { "Cadmium ÷ \($0.title)" } + ["issue target"], rows: [])
        t.rightAligned = Set(2..<(t.headers.count - 1))
        for w in rows {
            guard let mine = w.result(.cadmium) else { continue }
            let rates = peers.map { w.result($0)?.throughput ?? .nan }
            let ratios = rates.map { mine.throughput / $0 }
            var target = "–"
            switch w.workload {
            case .insert, .fetchByKey:
                target = "≥ 2× GRDB: " + (ratios[0] >= 2 ? "met" : "missed (\(ratio(ratios[0])))")
            case .commitEach:
                target = "≥ 1× SQLite: " + (ratios[1] >= 1 ? "met" : "missed (\(ratio(ratios[1])))")
            default: break
            }
            t.rows.append(["\(w.title) (\(w.unit))", w.durable ? "fsync each commit" : "no fsync", humanRate(mine.throughput)]
                          + rates.map(humanRate) + ratios.map(ratio) + [target])
        }
        if let insert = rows.first(where: { $0.workload == .insert }), let mine = insert.result(.cadmium)?.fileBytes {
            let sizes = peers.map { insert.result($0)?.fileBytes ?? 0 }
            let r = sizes.map { Double(mine) / Double($0) }
            t.rows.append(["8a. file size after checkpoint (lower is better)", "–", humanBytes(mine)] + sizes.map(humanBytes)
                          + r.map(ratio) + ["≤ 0.5×: " + ((r.max() ?? 9) <= 0.5 ? "met" : "missed (\(ratio(r.max() ?? .nan)))")])
        }
        for w in rows where w.workload == .insert || w.workload == .fetchByKey {
            guard let mine = w.result(.cadmium)?.peakRSSKiB else { continue }
            let peaks = peers.map { w.result($0)?.peakRSSKiB ?? 0 }
            t.rows.append(["8b. peak memory, \(w.title) (lower is better)", "–", humanBytes(mine * 1024)]
                          + peaks.map { humanBytes($0 * 1024) } + peaks.map { ratio(Double(mine) / Double($0)) } + ["–"])
        }
        return t
    }
}
