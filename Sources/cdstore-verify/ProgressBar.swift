import CdStore
import Foundation

// A one-line progress bar on standard error, shown only when standard error is a terminal and
// the store is large enough for the wait to be noticeable.

final class ProgressBar: @unchecked Sendable {
    /// Stores smaller than this verify in well under a second: no bar.
    static let minimumStoreBytes: UInt64 = 32 << 20
    private let lock = Lock()
    private var lastLine = ""

    static func forStandardError(enabled: Bool, store: String) -> ProgressBar? {
        guard enabled, isatty(STDERR_FILENO) == 1 else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: store)[.size] as? UInt64) ?? 0
        let walSize = (try? FileManager.default.attributesOfItem(atPath: store + "-wal")[.size] as? UInt64) ?? 0
        return size + walSize >= minimumStoreBytes ? ProgressBar() : nil
    }

    func update(_ p: VerificationProgress) {
        let width = 30
        let fraction = p.total > 0 ? min(1, Double(p.done) / Double(p.total)) : 0
        let filled = Int(fraction * Double(width))
        let line =
            "\r\(p.phase.padding(toLength: 16, withPad: " ", startingAt: 0)) [" + String(repeating: "#", count: filled)
            + String(repeating: " ", count: width - filled) + "] \(Int(fraction * 100))%"
        lock.withLock {
            guard line != lastLine else { return }
            lastLine = line
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    func finish() {
        lock.withLock {
            if !lastLine.isEmpty { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        }
    }
}
