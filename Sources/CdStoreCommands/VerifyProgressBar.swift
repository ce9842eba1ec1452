import CdStore
import CdToolSupport
import Foundation

// The verifier's progress bar (`ProgressLine`), shown only when standard error is a terminal and
// the store is large enough for the wait to be noticeable.

package final class VerifyProgressBar: Sendable {
    /// Stores smaller than this verify in well under a second: no bar.
    static let minimumStoreBytes: UInt64 = 32 << 20
    private let line = ProgressLine(labelWidth: 16)

    private init() {}

    package static func forStandardError(enabled: Bool, store: String) -> VerifyProgressBar? {
        guard enabled, isatty(STDERR_FILENO) == 1 else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: store)[.size] as? UInt64) ?? 0
        let walSize = (try? FileManager.default.attributesOfItem(atPath: store + "-wal")[.size] as? UInt64) ?? 0
        return size + walSize >= minimumStoreBytes ? VerifyProgressBar() : nil
    }

    package func update(_ p: VerificationProgress) {
        line.update(label: p.phase, fraction: p.total > 0 ? Double(p.done) / Double(p.total) : 0)
    }

    package func finish() { line.finish() }
}
