// `ProgressLine`: the one-line progress bar the command-line tools draw on standard error
// (`cdstore-verify`, `cdstore-migrate`): a padded label, thirty cells and a percentage, redrawn
// in place with a carriage return, and written only when the line changes. The tools decide
// when to show it (a terminal, a store large enough to wait for).

import CdStore
import Foundation

/// A progress bar on one line of standard error; thread-safe.
package final class ProgressLine: @unchecked Sendable {
    // @unchecked: `lastLine` is touched only under `lock`.
    private let lock = Lock()
    private var lastLine = ""
    private let labelWidth: Int

    /// A bar whose labels are padded to `labelWidth` characters.
    package init(labelWidth: Int) { self.labelWidth = labelWidth }

    /// Draws `label` and `fraction` (clamped to 0…1) unless the line would not change.
    package func update(label: String, fraction: Double) {
        let width = 30
        let fraction = max(0, min(1, fraction))
        let filled = Int(fraction * Double(width))
        let line =
            "\r\(label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)) ["
            + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(Int(fraction * 100))%"
        lock.withLock {
            guard line != lastLine else { return }
            lastLine = line
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Clears the line, if anything was drawn.
    package func finish() {
        lock.withLock {
            if !lastLine.isEmpty { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        }
    }
}
