#if canImport(Glibc)
import Glibc
#endif

// Clocks and memory readings for the child runs.

/// Monotonic seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Runs `body` and returns its wall-clock seconds.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
}

/// Process CPU seconds so far: user and system time of every thread (`getrusage`).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs `body` and returns its wall-clock and process CPU seconds.
func timedWithCPU(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let cpu = processCPUSeconds()
    let wall = try timed(body)
    return (wall, processCPUSeconds() - cpu)
}

/// The process's peak resident set so far (`VmHWM` in /proc/self/status), KiB; 0 when unknown.
func peakRSSKiB() -> Int {
    guard let text = readTextFile("/proc/self/status") else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// The size of a file in bytes, 0 when it does not exist.
func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : 0
}

/// Removes a file when it exists.
func removeIfPresent(_ path: String) {
    unlink(path)
}

/// A whole small text file, or nil.
func readTextFile(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Mixes one read result into a running checksum. Cheap on purpose (the length and one byte of
/// each value): it keeps the reads observable without adding a per-byte loop to the timings.
@inline(__always)
func mix(_ h: inout UInt64, count: Int, first: UInt8) {
    h = (h ^ UInt64(truncatingIfNeeded: count) ^ (UInt64(first) << 32)) &* 0x100_0000_01B3
}
