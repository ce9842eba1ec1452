// `cadmium-crash-child [--cd] STORE [--max N]`: the victim of the process-crash campaign
// (Tests/CdStoreTests/Crash/ProcessCrashTests.swift, docs/TESTING.md). Opens STORE with
// `Durability.full`, continues the numbered transactions after the last one the store holds, and
// after each commit returns writes "ACK n\n" to stdout with write(2) — no buffering, so an ACK
// the parent reads was sent after the commit was durable. It runs until it is killed or has
// committed N transactions.
//
//   (default)         engine transactions, `CrashWorkload` (two trees)
//   --cd              object transactions through `Cd.transactAndWait`, `CdCrashWorkload`
//   --cd --check      no commits: checks the store through `Cd` and prints "LAST n" (exit 0) or
//                     the broken rule (exit 5)
//   --cd --history    as --cd, with persistent history tracked (the remote change tests)
//   --migrate --seed  writes a new version 1 store of `MigrationCrashWorkload` and exits
//   --migrate         migrates the store to version 2, one "ACK n" per progress event
//   --migrate --check no migration: checks the store and prints "VERSION v" (exit 0) or the
//                     broken rule (exit 5)
//   --bank STORE TAG  transfers of the several-processes campaign (`BankWorkload`), "ACK n" each
//   --structure-campaign [--full] [--start N], --shared-file-campaign [--start N], --structure-fixture PATH
//                     the structure campaign's cases, one line each (StructureCampaignChild)
//
// In `--cd` mode the work runs on a background queue while the main thread runs the main queue
// (`dispatchMain()`), as in an app: `Cd.transactAndWait` is not allowed on the main thread.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CdFaultSupport
import CdStore
import Dispatch
import Foundation

/// The two ways the child runs, as static functions so that a background queue may call them.
enum Child {
    static func say(_ line: String, to fd: Int32 = 1) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; exit(3) }
            done += n
        }
    }

    static func runEngine(path: String, maximum: Int) {
        do {
            let store = try retryingWhileLocked { try Store.open(path: path, options: CrashWorkload.options()) }
            let start = try CrashWorkload.lastNumber(in: store)
            say("OPEN \(start)")
            var n = start
            while n - start < maximum {
                n += 1
                try CrashWorkload.commit(n, to: store)
                say("ACK \(n)")
            }
            try store.close()
            exit(0)
        } catch {
            say("cadmium-crash-child: \(error)", to: 2)
            exit(1)
        }
    }

    static func runCd(path: String, maximum: Int, check: Bool, history: Bool) {
        do {
            try retryingWhileLocked { try CdCrashWorkload.open(path: path, history: history) }
            if check {
                do {
                    say("LAST \(try CdCrashWorkload.check())")
                    exit(0)
                } catch let violation as CrashWorkload.Violation {
                    say("VIOLATION \(violation)", to: 2)
                    exit(5)
                }
            }
            let start = try CdCrashWorkload.lastNumber()
            say("OPEN \(start)")
            var n = start
            while n - start < maximum {
                n += 1
                try CdCrashWorkload.commit(n)
                say("ACK \(n)")
            }
            exit(0)
        } catch {
            say("cadmium-crash-child: \(error)", to: 2)
            exit(1)
        }
    }
}

extension Child {
    static func runMigration(path: String, seed: Bool, check: Bool) -> Never {
        do {
            if seed {
                try MigrationCrashWorkload.seed(path: path)
                exit(0)
            }
            if check {
                do {
                    let version = try retryingWhileLocked { try MigrationCrashWorkload.check(path: path) }
                    say("VERSION \(version)")
                    exit(0)
                } catch let violation as CrashWorkload.Violation {
                    say("VIOLATION \(violation)", to: 2)
                    exit(5)
                }
            }
            say("OPEN 0")
            // One ACK per phase, and one when the swap is done: kills after 0–6 ACKs then land
            // in every phase, before and after the rename.
            let events = LockedCounter()
            try retryingWhileLocked {
                try MigrationCrashWorkload.migrate(path: path) { progress in
                    let swapped = progress.phase == .swapping && progress.fraction == 1
                    if let n = events.next(ifNew: "\(progress.phase)\(swapped ? " done" : "")") { say("ACK \(n)") }
                }
            }
            exit(0)
        } catch {
            say("cadmium-crash-child: \(error)", to: 2)
            exit(1)
        }
    }
}

extension Child {
    /// `--bank STORE TAG`: transfers between the accounts of a store other processes share
    /// (`BankWorkload`), "ACK n" after each durable commit TAG-n; every third commit it sums the
    /// bank in a read transaction it holds across a short pause (other processes commit and
    /// checkpoint meanwhile) and exits 5 on a wrong total.
    static func runBank(path: String, tag: String) -> Never {
        do {
            let store = try retryingWhileLocked { try Store.open(path: path, options: BankWorkload.options()) }
            say("OPEN 0")
            var rng = SystemRandomNumberGenerator()
            var n = 0
            while true {
                n += 1
                try BankWorkload.transfer(tag: tag, number: n, store: store, rng: &rng)
                say("ACK \(n)")
                if n % 3 == 0 {
                    try store.read { tx in
                        try BankWorkload.checkTotal(tx)
                        usleep(UInt32.random(in: 0..<3_000))
                        try BankWorkload.checkTotal(tx)
                    }
                }
            }
        } catch let violation as BankWorkload.Violation {
            say("VIOLATION \(violation)", to: 2)
            exit(5)
        } catch {
            say("cadmium-crash-child: \(error)", to: 2)
            exit(1)
        }
    }
}

/// Numbers the progress events whose mark differs from the one before.
final class LockedCounter: @unchecked Sendable {
    private var value = 0
    private var last = ""
    private let lock = NSLock()
    func next(ifNew mark: String) -> Int? {
        lock.withLock {
            guard mark != last else { return nil }
            last = mark
            value += 1
            return value
        }
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "--bank" {
    Child.runBank(path: arguments[2], tag: arguments[3])
}
if arguments.contains("--structure-campaign") || arguments.contains("--structure-fixture")
    || arguments.contains("--shared-file-campaign")
{
    exit(StructureCampaignChild.run(arguments) { Child.say($0) })
}
let flags = Set(arguments.dropFirst().filter { $0.hasPrefix("--") })
let positional = arguments.dropFirst().enumerated().filter { i, a in !a.hasPrefix("--") && arguments[i] != "--max" }
    .map(\.element)
guard let path = positional.first else {
    Child.say("usage: cadmium-crash-child [--cd [--check] [--history]] STORE [--max N]", to: 2)
    exit(16)
}
var maximum = Int.max
if let i = arguments.firstIndex(of: "--max"), i + 1 < arguments.count, let n = Int(arguments[i + 1]) { maximum = n }

let limit = maximum
if flags.contains("--migrate") {
    Child.runMigration(path: path, seed: flags.contains("--seed"), check: flags.contains("--check"))
}
if flags.contains("--cd") {
    let check = flags.contains("--check"), history = flags.contains("--history")
    DispatchQueue.global().async { Child.runCd(path: path, maximum: limit, check: check, history: history) }
    dispatchMain()
} else {
    Child.runEngine(path: path, maximum: limit)
}
