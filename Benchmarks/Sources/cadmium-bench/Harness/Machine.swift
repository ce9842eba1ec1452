import CSQLite
import Foundation

// A description of the machine a run happened on, read from /proc and the tools themselves.

extension MachineInfo {
    static func current(packageDirectory: String) -> MachineInfo {
        let cpuinfo = readTextFile("/proc/cpuinfo") ?? ""
        let cpu =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) }
            ?? "unknown"
        let memKiB =
            (readTextFile("/proc/meminfo") ?? "").split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var u = utsname()
        uname(&u)
        let kernel = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let swift =
            (command("swift", ["--version"]) ?? "unknown").split(separator: "\n").first.map(String.init) ?? "unknown"
        let fs =
            (command("df", ["-T", packageDirectory]) ?? "").split(separator: "\n").dropFirst().first?
            .split(separator: " ").dropFirst().first.map(String.init) ?? "unknown"
        return MachineInfo(
            cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)), cpu: cpu,
            memoryGiB: (Double(memKiB) / 1_048_576 * 10).rounded() / 10,
            kernel: kernel, swift: swift, sqlite: String(cString: sqlite3_libversion()),
            grdb: grdbVersion(packageDirectory: packageDirectory), fileSystem: fs,
            shared: "shared with other engineers' builds during the run (timings are noisy)")
    }

    /// GRDB's version as resolved in the benchmark package's Package.resolved.
    static func grdbVersion(packageDirectory: String) -> String {
        guard let data = FileManager.default.contents(atPath: packageDirectory + "/Package.resolved"),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let pins = json["pins"] as? [[String: Any]]
        else { return "unknown" }
        for pin in pins where (pin["identity"] as? String)?.lowercased() == "grdb.swift" {
            return (pin["state"] as? [String: Any])?["version"] as? String ?? "unknown"
        }
        return "unknown"
    }
}

/// The first output of a command found on PATH, or nil.
func command(_ name: String, _ arguments: [String]) -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [name] + arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return p.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
}
