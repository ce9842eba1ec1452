import CdObjects
import CdToolSupport
import Foundation

// The migration's progress bar (`ProgressLine`) for its phases, shown on a terminal only.

package final class MigrationProgressBar: Sendable {
    private let line = ProgressLine(labelWidth: 40)

    package init() {}

    package func update(_ p: MigrationProgress) {
        line.update(label: p.step.map { "\(p.phase.rawValue) \($0)" } ?? p.phase.rawValue, fraction: p.fraction)
    }

    package func finish() { line.finish() }
}
