// `cadmium-crash-child STORE [--max N]`: the victim of the process-crash campaign
// (Tests/CdStoreTests/Crash/ProcessCrashTests.swift, docs/TESTING.md). Opens STORE with
// `Durability.full`, continues the numbered transactions of `CrashWorkload` after the last one
// the store holds, and after each commit returns writes "ACK n\n" to stdout with write(2) — no
// buffering, so an ACK the parent reads was sent after the commit was durable. It runs until it
// is killed or has committed N transactions (default: effectively forever).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CdFaultSupport
import CdStore

func say(_ line: String, to fd: Int32 = 1) {
    var bytes = Array(line.utf8)
    bytes.append(0x0A)
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; exit(3) }
        done += n
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    say("usage: cadmium-crash-child STORE [--max N]", to: 2)
    exit(16)
}
let path = arguments[1]
var maximum = Int.max
if let i = arguments.firstIndex(of: "--max"), i + 1 < arguments.count, let n = Int(arguments[i + 1]) { maximum = n }

do {
    let store = try Store.open(path: path, options: CrashWorkload.options())
    let start = try CrashWorkload.lastNumber(in: store)
    say("OPEN \(start)")
    var n = start
    while n - start < maximum {
        n += 1
        try CrashWorkload.commit(n, to: store)
        say("ACK \(n)")
    }
    try store.close()
} catch {
    say("cadmium-crash-child: \(error)", to: 2)
    exit(1)
}
