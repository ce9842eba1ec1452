import Foundation

// Number and column formatting shared by the terminal table, the Markdown table and the chart.

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// `x` with `digits` decimals.
func fixed(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }

/// A count with thousands separators: 1000000 → "1,000,000".
func grouped(_ n: Int) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (n < 0 ? "-" : "") + out
}

/// A rate with a k/M suffix: 1234567 → "1.23 M".
func humanRate(_ x: Double) -> String {
    switch x {
    case 1e6...: fixed(x / 1e6, 2) + " M"
    case 1e4...: fixed(x / 1e3, 0) + " k"
    case 1e3...: fixed(x / 1e3, 1) + " k"
    default: fixed(x, 0)
    }
}

/// Bytes in MiB with one decimal.
func humanBytes(_ bytes: Int) -> String { fixed(Double(bytes) / 1_048_576, 1) + " MiB" }

/// A ratio as "1.23×".
func ratio(_ x: Double) -> String { x.isFinite ? fixed(x, 2) + "×" : "–" }
