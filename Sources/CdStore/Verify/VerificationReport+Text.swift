// The human-readable form of a report, as `cdstore-verify` prints it: the summary, a result
// line, then one line per finding.

extension VerificationReport {
    /// The report as text: summary lines, a result line, then one line per finding.
    ///
    /// ```swift
    /// print(try StoreVerifier.verify(path: path).text(includeSummary: true))
    /// ```
    public func text(includeSummary: Bool = true) -> String {
        var lines: [String] = []
        if includeSummary { lines += summaryLines() }
        var result =
            problemCount == 0 ? "OK: no problems" : "\(problemCount) problem\(problemCount == 1 ? "" : "s") found"
        if noteCount > 0 { result += ", \(noteCount) note\(noteCount == 1 ? "" : "s")" }
        if omittedCount > 0 { result += " (\(omittedCount) not listed)" }
        lines.append(result)
        lines += problems.map(\.description)
        return lines.joined(separator: "\n") + "\n"
    }

    private func summaryLines() -> [String] {
        let s = summary
        var lines = ["store \(s.path) (\(s.fileBytes) bytes)"]
        guard let pageSize = s.pageSize, let version = s.formatVersion else { return lines }
        lines.append(
            "  format version \(version), page size \(pageSize), header copy \(s.headerCopy ?? 0) "
                + "(checkpoint \(s.checkpointSequence ?? 0))"
        )
        lines.append("  commits: page file \(s.pageFileCommit ?? 0), last \(s.lastCommit ?? 0)")
        let order = ["meta", "branch", "leaf", "overflow", "free-list", "free", "unreadable", "missing", "unknown"]
        let types = order.compactMap { t in s.pagesByType[t].map { "\(t) \($0)" } }.joined(separator: ", ")
        lines.append("  pages 1..<\(s.pageCount)" + (types.isEmpty ? "" : ": \(types)"))
        if !s.trees.isEmpty {
            lines.append("  trees:")
            let width = min(32, s.trees.map(\.name.count).max() ?? 0)
            for t in s.trees {
                let name = t.name.count < width ? t.name + String(repeating: " ", count: width - t.name.count) : t.name
                lines.append("    \(name)  root \(t.root), \(t.entries) entries, depth \(t.depth), \(t.pages) pages")
            }
        }
        let ratio = (s.compressionRatio * 100).rounded() / 100
        lines.append("  compression: \(ratio) (\(s.logicalBytes) logical bytes stored in \(s.storedBytes) bytes)")
        lines.append(
            "  free space: \(s.freePages) free pages in \(s.freeListTrunks) trunk pages; "
                + "\(s.freeBytes) free bytes in the data area, \(s.fileTailBytes) past its end"
        )
        if let w = s.wal {
            lines.append(
                "  WAL: \(w.bytes) bytes, generation \(w.generation.map(String.init) ?? "-"), "
                    + "\(w.frames) frames in \(w.commits) commits (\(w.commitsToApply) newer than the page file), "
                    + "tail \(w.tailFrames) frames / \(w.tailBytes) bytes"
            )
        } else {
            lines.append("  WAL: none")
        }
        return lines
    }
}
