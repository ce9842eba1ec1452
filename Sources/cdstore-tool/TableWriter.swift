import CdObjects

// The aligned table `query` prints by default: a header of column names, a rule, one line per
// object. Numbers are right-aligned, the rest left-aligned; null is `nil`. On a terminal the
// header is bold and nil dim (ANSI SGR); in a pipe or file there are no escape codes.

struct TableWriter {
    let columns: [Column]
    let colours: Bool

    /// The table of `rows`, every line ending in a newline.
    func render(_ rows: [ObjectRow]) -> String {
        let header = [objectIDColumn] + columns.map(\.name)
        let cells: [[String?]] = rows.map { row in [row.id.description] + row.values.map { ValueText.plain($0) } }
        let numeric: [Bool] =
            [false]
            + columns.indices.map { i in
                !rows.isEmpty && rows.allSatisfy { row in Self.isNumber(row.values[i]) }
            }
        var widths = header.map(\.count)
        for line in cells {
            for (i, cell) in line.enumerated() { widths[i] = max(widths[i], (cell ?? "nil").count) }
        }
        func pad(_ text: String, _ i: Int) -> String {
            let fill = String(repeating: " ", count: widths[i] - text.count)
            return numeric[i] ? fill + text : text + fill
        }
        let title = header.indices.map { pad(header[$0], $0) }.joined(separator: "  ").trimmingTrailingSpaces()
        var out = (colours ? "\u{1B}[1m" + title + "\u{1B}[0m" : title) + "\n"
        out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for line in cells {
            let text = line.indices.map { i -> String in
                guard let cell = line[i] else {
                    let padded = pad("nil", i)
                    return colours ? "\u{1B}[2m" + padded + "\u{1B}[0m" : padded
                }
                return pad(cell, i)
            }
            out += text.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        return out
    }

    private static func isNumber(_ value: PropertyValue?) -> Bool {
        switch value {
        case .attribute(.integer)?, .attribute(.double)?, .attribute(.decimal)?, .attribute(.null)?, nil: return true
        default: return false
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
