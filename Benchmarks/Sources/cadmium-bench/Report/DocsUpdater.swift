import Foundation

// Rewrites the generated section of docs/BENCHMARKS.md: everything between the two markers is
// replaced by the tables and the machine description of a results file; the prose around them
// is left alone.

enum DocsUpdater {
    static let begin = "<!-- BEGIN GENERATED RESULTS: `make bench` rewrites this section; do not edit by hand -->"
    static let end = "<!-- END GENERATED RESULTS -->"

    static func generatedSection(_ r: SuiteResults) -> String {
        let tables = ResultTables(results: r)
        let m = r.machine
        return """
            \(begin)

            Run of \(r.date), \(r.mode) mode: \(r.scale.keys) keys, \(r.scale.gets) gets, \
            \(r.scale.rangeScans) range scans of \(r.scale.rangeLength) rows, \(r.scale.commits) commits; \
            each cell is the median of \(r.repetitions) runs, each run in a fresh child process.

            **Machine:** \(m.cores) cores (`nproc`), \(m.cpu), \(fixed(m.memoryGiB, 1)) GiB RAM, \
            kernel \(m.kernel), \(m.fileSystem) file system; \(m.swift); SQLite \(m.sqlite); GRDB \(m.grdb). \
            The machine was \(m.shared).

            ![Cadmium's advantage over each peer](benchmarks/chart.svg)

            #### Throughput (higher is better; ratio > 1× means Cadmium is faster)

            \(tables.throughput().markdown())

            #### File size after a checkpoint (lower is better; ratio < 1× means Cadmium is smaller)

            \(tables.fileSize().markdown())

            #### Peak resident memory of each run (VmHWM of the child process, \
            including the ~same runtime baseline for all)

            \(tables.peakMemory().markdown())

            \(objectSection(r, tables))

            \(end)
            """
    }

    /// One table per object-level size, largest (the judged one, with the issue-target column) first.
    static func objectSection(_ r: SuiteResults, _ tables: ResultTables) -> String {
        let levels = (r.objectLevels ?? []).sorted { $0.scale.objects > $1.scale.objects }
        let judged = r.judgedObjectLevel?.scale.objects
        let sections = levels.compactMap { level -> String? in
            let isJudged = level.scale.objects == judged
            guard let table = tables.objectThroughput(level, judged: isJudged) else { return nil }
            let s = level.scale
            let measured = [ObjectSystemID.cadmium, .cdAPI, .swiftData].filter { id in
                level.workloads.contains { $0.result(id) != nil }
            }
            let names = measured.map(\.shortTitle)
            let apis =
                names.count > 1
                ? names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1] : "ObjectStore"
            let kinds = Set(level.workloads.map(\.workload))
            var sizes = ["\(grouped(s.objects)) employees in 100 departments"]
            if kinds.contains(where: \.isDurable) { sizes.append("\(grouped(s.commits)) durable commits") }
            if kinds.contains(.fetchByKey) || kinds.contains(.fetchBySalary) {
                sizes.append("\(grouped(s.fetches)) fetches")
            }
            if kinds.contains(.rangeQuery) { sizes.append("\(s.ranges) range queries of ~1%") }
            if kinds.contains(.containsScan) { sizes.append("\(s.scans) CONTAINS scans") }
            let skipped =
                isJudged || kinds.contains(where: \.isDurable)
                ? ""
                : " The durable commits start from an empty store, so they are measured at the largest size only."
            return """
                #### Object level, \(grouped(s.objects)) employees: Cadmium's \(apis) \
                vs GRDB Codable records vs SQLite C

                \(sizes.joined(separator: "; ")). Ratio > 1× means Cadmium is faster \
                (for the file size and peak memory rows, lower is better: < 1× means smaller).\(skipped)

                \(table.markdown())
                """
                    + (tables.readScaling(level).map { scaling in
                        """


                        Reads on several threads at \(grouped(s.objects)) employees (Cadmium's `readThreads`; \
                        median runs; CPU is the process's user + system time of the timed part):

                        \(scaling.markdown())
                        """
                    } ?? "")
        }
        return sections.isEmpty ? "#### Object level\n\nNot measured in this run." : sections.joined(separator: "\n\n")
    }

    static func update(markdownPath: String, with r: SuiteResults) throws {
        let text = try String(contentsOfFile: markdownPath, encoding: .utf8)
        guard let b = text.range(of: begin), let e = text.range(of: end), b.lowerBound < e.lowerBound else {
            throw BenchError.child("\(markdownPath) lacks the generated-section markers")
        }
        let updated = text.replacingCharacters(in: b.lowerBound..<e.upperBound, with: generatedSection(r))
        try updated.write(toFile: markdownPath, atomically: true, encoding: .utf8)
    }
}
