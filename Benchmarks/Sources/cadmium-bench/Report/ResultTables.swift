// The result tables: throughput (with the issue's targets), file size and peak memory, each with
// Cadmium's ratio to every peer. Rendered as aligned text for the terminal and as Markdown for
// docs/BENCHMARKS.md, from the same rows.

struct TextTable {
    var headers: [String]
    var rows: [[String]]
    /// Columns aligned right (numbers).
    var rightAligned: Set<Int> = []

    func markdown() -> String {
        var lines = ["| " + headers.joined(separator: " | ") + " |"]
        lines.append(
            "|" + headers.indices.map { rightAligned.contains($0) ? "---:" : "---" }.joined(separator: "|") + "|")
        for r in rows { lines.append("| " + r.joined(separator: " | ") + " |") }
        return lines.joined(separator: "\n")
    }

    func text() -> String {
        let widths = headers.indices.map { c in ([headers[c]] + rows.map { $0[c] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { c, s in rightAligned.contains(c) ? s.leftPadded(widths[c]) : s.padded(widths[c]) }
                .joined(separator: "  ")
        }
        return
            ([line(headers), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
            + rows.map(line)).joined(separator: "\n")
    }
}

/// The issue's targets, as the ratio Cadmium must reach against the stronger SQLite peer.
enum Target {
    /// Minimum speed ratio (ours ÷ peer) for a workload, when the issue sets one.
    static func minimumSpeed(_ w: Workload) -> Double? {
        switch w {
        case .loadSequential, .loadRandom, .getRandom, .commitDurable: 1.0
        default: nil
        }
    }
    /// Maximum size ratio (ours ÷ peer) for the store file.
    static let maximumFileRatio = 0.5
}

struct ResultTables {
    var results: SuiteResults
    var ours: SystemID = .cadmium
    var peers: [SystemID] { SystemID.allCases.filter { $0 != ours && results.workloads.first?.result($0) != nil } }

    /// Throughput per workload with ours ÷ each peer (higher is better for us).
    func throughput() -> TextTable {
        var t = TextTable(
            headers: ["workload", "durability"] + ([ours] + peers).map { $0.title }
                + peers.map { "Cadmium ÷ \($0.title)" } + ["issue target"], rows: [])
        t.rightAligned = Set(2..<(t.headers.count - 1))
        for w in results.workloads {
            guard let mine = w.result(ours) else { continue }
            let peerRates = peers.map { w.result($0)?.throughput ?? .nan }
            let ratios = peerRates.map { mine.throughput / $0 }
            var target = "–"
            if let min = Target.minimumSpeed(w.workload), let worst = ratios.min(), worst.isFinite {
                target = "≥ \(fixed(min, 0))×: " + (worst >= min ? "met" : "missed (\(ratio(worst)))")
            }
            t.rows.append(
                [
                    "\(w.title) (\(w.unit))", w.durable ? "fsync each commit" : "no fsync",
                    humanRate(mine.throughput),
                ] + peerRates.map(humanRate) + ratios.map(ratio) + [target])
        }
        return t
    }

    /// Store size after a checkpoint, from the load workloads (lower is better for us).
    func fileSize() -> TextTable {
        var t = TextTable(
            headers: ["data"] + ([ours] + peers).map { $0.title }
                + peers.map { "Cadmium ÷ \($0.title)" } + ["issue target"], rows: [])
        t.rightAligned = Set(1..<(t.headers.count - 1))
        for w in results.workloads where w.workload == .loadSequential || w.workload == .loadRandom {
            guard let mine = w.result(ours)?.fileBytes else { continue }
            let sizes = peers.map { w.result($0)?.fileBytes ?? 0 }
            let ratios = sizes.map { Double(mine) / Double($0) }
            let worst = ratios.max() ?? .nan
            let target =
                !worst.isFinite
                ? "–"
                : "≤ 0.5×: " + (worst <= Target.maximumFileRatio ? "met" : "missed (\(ratio(worst)))")
            t.rows.append(
                [
                    "\(results.scale.keys) keys, "
                        + "\(w.workload == .loadSequential ? "sequential" : "random") insert order",
                    humanBytes(mine),
                ] + sizes.map(humanBytes) + ratios.map(ratio) + [target])
        }
        return t
    }

    /// Peak resident memory of each child run (lower is better for us).
    func peakMemory() -> TextTable {
        var t = TextTable(
            headers: ["workload"] + ([ours] + peers).map { $0.title } + peers.map { "Cadmium ÷ \($0.title)" },
            rows: [])
        t.rightAligned = Set(1..<t.headers.count)
        for w in results.workloads {
            guard let mine = w.result(ours)?.peakRSSKiB else { continue }
            let peaks = peers.map { w.result($0)?.peakRSSKiB ?? 0 }
            t.rows.append(
                [w.title] + ([mine] + peaks).map { humanBytes($0 * 1024) }
                    + peaks.map { ratio(Double(mine) / Double($0)) })
        }
        return t
    }
}
