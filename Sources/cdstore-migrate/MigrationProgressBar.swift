import CdObjects
import CdStore
import Foundation

// A one-line progress bar on standard error for a migration's phases (shown on a terminal only).

final class MigrationProgressBar: @unchecked Sendable {
    private let lock = Lock()
    private var lastLine = ""

    func update(_ p: MigrationProgress) {
        let width = 30
        let filled = Int(min(1, p.fraction) * Double(width))
        let label = p.step.map { "\(p.phase.rawValue) \($0)" } ?? p.phase.rawValue
        let line =
            "\r\(label.padding(toLength: 40, withPad: " ", startingAt: 0)) [" + String(repeating: "#", count: filled)
            + String(repeating: " ", count: width - filled) + "] \(Int(p.fraction * 100))%"
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
