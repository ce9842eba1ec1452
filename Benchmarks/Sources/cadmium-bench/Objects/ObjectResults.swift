import Foundation

// Results, orchestration and the table of the object-level suite (the engine suite's
// counterparts in Harness/ and Report/).

struct ObjectSystemResult: Codable, Sendable {
    var system: ObjectSystemID
    var runs: [RunResult]
    var median: RunResult { RunResult.median(of: runs) }
}

struct ObjectWorkloadResult: Codable, Sendable {
    var workload: ObjectWorkload
    var title: String
    var unit: String
    var durable: Bool
    var systems: [ObjectSystemResult]

    func result(_ id: ObjectSystemID) -> RunResult? { systems.first { $0.system == id }?.median }
}

/// The object level at one size: its scale and every workload run at it.
struct ObjectLevelResult: Codable, Sendable {
    var scale: ObjectScale
    var workloads: [ObjectWorkloadResult]
}

extension Orchestrator {
    /// The object level at each of `sizes` (employees), largest first. The largest runs every
    /// workload in `workloads`; the smaller ones only those whose work grows with the store
    /// (`ObjectWorkload.scalesWithObjects`), since the durable commits start from an empty store.
    func runObjectLevels(
        sizes: [Int], base: ObjectScale, systems: [ObjectSystemID], workloads: [ObjectWorkload]
    ) throws -> [ObjectLevelResult] {
        var levels: [ObjectLevelResult] = []
        for (i, objects) in Set(sizes).sorted(by: >).enumerated() {
            let kinds = i == 0 ? workloads : workloads.filter(\.scalesWithObjects)
            guard !kinds.isEmpty else { continue }
            var scale = base
            scale.objects = objects
            log("object level: \(objects) employees")
            levels.append(
                ObjectLevelResult(
                    scale: scale, workloads: try runObjects(scale: scale, systems: systems, workloads: kinds)))
        }
        return levels
    }

    func runObjects(
        scale: ObjectScale, systems all: [ObjectSystemID], workloads: [ObjectWorkload]
    ) throws -> [ObjectWorkloadResult] {
        let systems = all.filter { scale.objects <= $0.largestLevel }
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
                    let cpu: String = r.cpuSeconds.map { "  cpu \(fixed($0, 3)) s" } ?? ""
                    log(
                        "\(workload.rawValue.padded(17)) \(system.title.padded(21)) run \(rep)/\(repetitions): "
                            + "\(fixed(r.seconds, 3).leftPadded(9)) s "
                            + "\(fixed(r.throughput, 0).leftPadded(12)) \(workload.unit)"
                            + "  peak \(r.peakRSSKiB / 1024) MiB" + cpu)
                    runs.append(r)
                }
                perSystem.append(ObjectSystemResult(system: system, runs: runs))
            }
            if workload.readsFixture {
                // Rows must agree everywhere; checksums only where the row order is fixed (by key).
                let ordered = workload == .fetchByKey || workload.measured == .containsScan
                let sums = Set(
                    perSystem.flatMap {
                        $0.runs.map { ordered ? "\($0.checksum)/\($0.operations)" : "\($0.operations)" }
                    })
                if sums.count > 1 { log("warning: \(workload.rawValue): systems returned different results \(sums)") }
            }
            results.append(
                ObjectWorkloadResult(
                    workload: workload, title: workload.title, unit: workload.unit,
                    durable: workload.isDurable, systems: perSystem))
        }
        for system in systems { removeStore(objectStorePath(dir: dataDirectory, system: system, workload: .prepare)) }
        return results
    }

    private func objectChild(
        _ system: ObjectSystemID, _ workload: ObjectWorkload, _ scale: ObjectScale
    ) throws -> RunResult {
        try childProcess(
            [
                "run-one", "--object-system", system.rawValue, "--object-workload", workload.rawValue,
                "--objects", "\(scale.objects)", "--commits", "\(scale.commits)", "--gets", "\(scale.fetches)",
                "--range-scans", "\(scale.ranges)", "--scans", "\(scale.scans)", "--dir", dataDirectory,
            ],
            what: "\(system.rawValue) \(workload.rawValue)")
    }
}

extension ResultTables {
    /// Object-level throughput at one size: each of Cadmium's object APIs (the ObjectStore, and the Cd API when the
    /// run measured it) ÷ each peer, and SwiftData ÷ the Cd API when measured; then the file size and the peak
    /// memory of every workload (lower is better). With `judged`, an "issue target" column gives the verdict on
    /// each target (at least 2× GRDB on bulk insert and fetch by key; durable commits at least SQLite's rate; a
    /// file at most half the size; a bulk-insert peak at most 2× GRDB's). The targets are set for "the object API
    /// (Cd)", so the Cd API is judged; results from before the Cd API column are judged on the ObjectStore.
    func objectThroughput(_ level: ObjectLevelResult, judged withTargets: Bool) -> TextTable? {
        let rows = level.workloads
        guard !rows.isEmpty else { return nil }
        let peers: [ObjectSystemID] = [.grdb, .sqlite]
        let ours = [ObjectSystemID.cadmium, .cdAPI].filter { id in rows.contains { $0.result(id) != nil } }
        guard let judged = ours.last else { return nil }
        // SwiftData's column sits beside the Cd API's, compared with it (issue 26: within 1.25×).
        let swiftData = rows.contains { $0.result(.swiftData) != nil } ? [ObjectSystemID.swiftData] : []
        let shown = ours + swiftData + peers
        var t = TextTable(
            headers: ["workload", "durability"] + shown.map(\.title)
                + ours.flatMap { o in peers.map { "\(o.shortTitle) ÷ \($0.shortTitle)" } }
                + swiftData.map { "\($0.shortTitle) ÷ \(ObjectSystemID.cdAPI.shortTitle)" }
                + (withTargets ? ["issue target"] : []),
            rows: [])
        t.rightAligned = Set(2..<(t.headers.count - (withTargets ? 1 : 0)))

        /// ours ÷ peer for every (ours, peer) pair, in header order, from one value per system.
        func ratios(_ value: (ObjectSystemID) -> Double) -> [Double] {
            ours.flatMap { o in peers.map { value(o) / value($0) } } + swiftData.map { value($0) / value(.cdAPI) }
        }
        /// "Cd API missed (0.80×), ObjectStore 2.31×": the judged system's verdict, then the other's ratio.
        func verdict(_ value: (ObjectSystemID) -> Double, _ peer: ObjectSystemID, met: (Double) -> Bool) -> String {
            let r = value(judged) / value(peer)
            let others = ours.filter { $0 != judged }.map { "\($0.shortTitle) \(ratio(value($0) / value(peer)))" }
            return (["\(judged.shortTitle) " + (met(r) ? "met" : "missed (\(ratio(r)))")] + others).joined(
                separator: ", ")
        }
        func append(_ cells: [String], target: String) { t.rows.append(cells + (withTargets ? [target] : [])) }

        for w in rows where w.result(judged) != nil {
            let rate = { (id: ObjectSystemID) in w.result(id)?.throughput ?? .nan }
            var target = "–"
            switch w.workload {
            case .insert, .fetchByKey: target = "≥ 2× GRDB: " + verdict(rate, .grdb) { $0 >= 2 }
            case .commitEach, .commitEach4, .commitEach16:
                target = "≥ 1× SQLite: " + verdict(rate, .sqlite) { $0 >= 1 }
            default: break
            }
            append(
                ["\(w.title) (\(w.unit))", w.durable ? "fsync each commit" : "no fsync"]
                    + shown.map { humanRate(rate($0)) } + ratios(rate).map(ratio), target: target)
        }
        if let insert = rows.first(where: { $0.workload == .insert }), insert.result(judged)?.fileBytes != nil {
            let size = { (id: ObjectSystemID) in insert.result(id)?.fileBytes.map(Double.init) ?? .nan }
            // Judged against the larger of the two ratios (the smaller peer file).
            let worst = peers.max { size(judged) / size($0) < size(judged) / size($1) } ?? .grdb
            append(
                ["8a. file size after checkpoint (lower is better)", "–"]
                    + shown.map { humanBytes(Int(size($0).isFinite ? size($0) : 0)) }
                    + ratios(size).map(ratio),
                target: "≤ 0.5× \(worst.shortTitle): " + verdict(size, worst) { $0 <= 0.5 })
        }
        for w in rows where w.result(judged) != nil {
            let peak = { (id: ObjectSystemID) in w.result(id).map { Double($0.peakRSSKiB) } ?? .nan }
            append(
                ["8b. peak memory, \(w.title)", "–"]
                    + shown.map { peak($0).isFinite ? humanBytes(Int(peak($0)) * 1024) : "–" }
                    + ratios(peak).map(ratio),
                target: w.workload == .insert ? "≤ 2× GRDB: " + verdict(peak, .grdb) { $0 <= 2 } : "–")
        }
        return t
    }
}

extension ResultTables {
    /// The scaling rows at one size (the range read and the `CONTAINS[c]` scan with Cadmium's reads
    /// on 1 and on 2 threads, beside the default rows): median wall and process CPU seconds of each
    /// Cadmium system, and how many cores the read kept busy (CPU ÷ wall). Nil when the run had no
    /// scaling row.
    func readScaling(_ level: ObjectLevelResult) -> TextTable? {
        let rows = level.workloads.filter { $0.workload.readThreads != nil }
        guard !rows.isEmpty else { return nil }
        let base = level.workloads.filter { w in rows.contains { $0.workload.measured == w.workload } }
        var t = TextTable(
            headers: ["workload", "system", "read threads", "wall (s)", "CPU (s)", "CPU ÷ wall", "rows/s", "÷ GRDB"],
            rows: [])
        t.rightAligned = Set(2..<t.headers.count)
        for w in (base + rows).sorted(by: {
            ($0.workload.measured.title, $0.title) < ($1.workload.measured.title, $1.title)
        }) {
            let grdb = w.result(.grdb)?.throughput
            for system in [ObjectSystemID.cadmium, .cdAPI] {
                guard let r = w.result(system), let cpu = r.cpuSeconds else { continue }
                t.rows.append([
                    w.title, system.shortTitle, w.workload.readThreads.map(String.init) ?? "default",
                    fixed(r.seconds, 3), fixed(cpu, 3), fixed(cpu / max(r.seconds, 1e-9), 2) + "×",
                    humanRate(r.throughput), grdb.map { ratio(r.throughput / $0) } ?? "–",
                ])
            }
        }
        return t.rows.isEmpty ? nil : t
    }
}
