import Foundation

// The chart in docs/BENCHMARKS.md: for every workload, one bar per peer showing Cadmium's
// advantage over it on a log scale centred at 1× (right of the line: Cadmium is faster, smaller
// or leaner; left: behind). Plain SVG text, no dependencies.

struct SVGChart {
    var results: SuiteResults

    struct Row { var label: String; var bars: [(peer: SystemID, advantage: Double, detail: String)] }

    func rows() -> [Row] {
        let tables = ResultTables(results: results)
        var rows: [Row] = []
        for w in results.workloads {
            guard let mine = w.result(.cadmium) else { continue }
            rows.append(
                Row(
                    label: w.title,
                    bars: tables.peers.compactMap { p in
                        guard let r = w.result(p) else { return nil }
                        return (
                            p, mine.throughput / r.throughput,
                            "\(humanRate(mine.throughput)) vs \(humanRate(r.throughput)) \(w.unit)"
                        )
                    }))
        }
        for w in results.workloads where w.workload == .loadSequential || w.workload == .loadRandom {
            guard let mine = w.result(.cadmium)?.fileBytes else { continue }
            rows.append(
                Row(
                    label: "file size, \(w.workload == .loadSequential ? "sequential" : "random") load",
                    bars: tables.peers.compactMap { p in
                        guard let theirs = w.result(p)?.fileBytes else { return nil }
                        return (p, Double(theirs) / Double(mine), "\(humanBytes(mine)) vs \(humanBytes(theirs))")
                    }))
        }
        for w in results.workloads where w.workload == .loadSequential || w.workload == .getRandom {
            guard let mine = w.result(.cadmium)?.peakRSSKiB else { continue }
            rows.append(
                Row(
                    label: "peak memory, \(w.title)",
                    bars: tables.peers.compactMap { p in
                        guard let theirs = w.result(p)?.peakRSSKiB else { return nil }
                        return (
                            p, Double(theirs) / Double(mine),
                            "\(humanBytes(mine * 1024)) vs \(humanBytes(theirs * 1024))"
                        )
                    }))
        }
        // Object rows: one per workload for each of Cadmium's object APIs that was measured, with
        // the object peers drawn in the colours of the engine peers (the legend says which).
        // The judged (largest) size only.
        for w in results.judgedObjectLevel?.workloads ?? [] {
            for ours in [ObjectSystemID.cadmium, .cdAPI] {
                guard let mine = w.result(ours) else { continue }
                rows.append(
                    Row(
                        label: "\(ours.shortTitle): " + w.title,
                        bars: [(ObjectSystemID.grdb, SystemID.sqlite), (.sqlite, .sqliteRowid)].compactMap {
                            p, colour in
                            guard let r = w.result(p) else { return nil }
                            return (
                                colour, mine.throughput / r.throughput,
                                "\(humanRate(mine.throughput)) vs \(humanRate(r.throughput)) \(w.unit)"
                            )
                        }))
            }
        }
        return rows
    }

    func render() -> String {
        let rows = rows()
        let colors: [SystemID: String] = [.sqlite: "#4e79a7", .sqliteRowid: "#f28e2b"]
        let labelWidth = 300.0, plotWidth = 520.0, detailWidth = 250.0
        let barHeight = 14.0, gap = 3.0, rowGap = 12.0, top = 58.0
        let peers = ResultTables(results: results).peers
        // Bars per row: the engine peers, or the object peers in a run without the engine.
        let rowHeight = Double(rows.map(\.bars.count).max() ?? peers.count) * (barHeight + gap) + rowGap
        let height = top + Double(rows.count) * rowHeight + 40
        let width = labelWidth + plotWidth + detailWidth
        let maxLog = 6.0  // 1/64× … 64×
        func x(_ advantage: Double) -> Double {
            let l = max(-maxLog, min(maxLog, log2(max(advantage, 1e-9))))
            return labelWidth + plotWidth / 2 + l / maxLog * plotWidth / 2
        }
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="20" font-size="15" font-weight="bold">\
            Cadmium's advantage over each peer (log scale; right of 1× = Cadmium better)</text>
            <text x="10" y="38" fill="#555">\(results.mode) run, \(results.date), \(results.scale.keys) keys, \
            median of \(results.repetitions); speed = ours ÷ peer, size and memory = peer ÷ ours</text>

            """
        for tick in -6...6 {
            let tx = x(pow(2, Double(tick)))
            let label = tick >= 0 ? "\(1 << tick)×" : "1/\(1 << -tick)×"
            s +=
                "<line x1=\"\(tx)\" y1=\"\(top - 6)\" x2=\"\(tx)\" y2=\"\(height - 34)\" "
                + "stroke=\"\(tick == 0 ? "#000" : "#ddd")\"/>\n"
            s += "<text x=\"\(tx)\" y=\"\(height - 20)\" text-anchor=\"middle\" fill=\"#555\">\(label)</text>\n"
        }
        for (i, row) in rows.enumerated() {
            let y0 = top + Double(i) * rowHeight
            s +=
                "<text x=\"\(labelWidth - 8)\" y=\"\(y0 + barHeight)\" text-anchor=\"end\">"
                + "\(escape(row.label))</text>\n"
            for (j, bar) in row.bars.enumerated() {
                let y = y0 + Double(j) * (barHeight + gap)
                let a = x(1), b = x(bar.advantage)
                s +=
                    "<rect x=\"\(min(a, b))\" y=\"\(y)\" width=\"\(max(1, abs(b - a)))\" height=\"\(barHeight)\" "
                    + "fill=\"\(colors[bar.peer] ?? "#999")\"/>\n"
                let anchorRight = bar.advantage >= 1
                s +=
                    "<text x=\"\(anchorRight ? b + 4 : b - 4)\" y=\"\(y + barHeight - 3)\" font-size=\"11\" "
                    + "text-anchor=\"\(anchorRight ? "start" : "end")\">\(ratio(bar.advantage))</text>\n"
                s +=
                    "<text x=\"\(labelWidth + plotWidth + 10)\" y=\"\(y + barHeight - 3)\" font-size=\"11\" "
                    + "fill=\"#555\">\(escape(bar.detail))</text>\n"
            }
        }
        var lx = 10.0
        let objectTitles: [SystemID: String] = [.sqlite: "GRDB", .sqliteRowid: "SQLite C"]
        for p in peers {
            let title = p.title + (results.objectLevels == nil ? "" : " (objects: \(objectTitles[p] ?? ""))")
            s += "<rect x=\"\(lx)\" y=\"\(height - 14)\" width=\"12\" height=\"10\" fill=\"\(colors[p] ?? "#999")\"/>"
            s += "<text x=\"\(lx + 16)\" y=\"\(height - 5)\" font-size=\"11\">vs \(escape(title))</text>\n"
            lx += 330
        }
        return s + "</svg>\n"
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }
}
