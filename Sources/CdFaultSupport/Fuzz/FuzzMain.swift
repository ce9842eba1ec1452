// The `main` of each fuzz executable (`fuzz-store-open`, …). Built with
// `-sanitize=fuzzer -DCADMIUM_LIBFUZZER` (`make fuzz`) it hands control to libFuzzer through
// `LLVMFuzzerRunDriver`: the executable defines `main` itself, so the linker never pulls
// libFuzzer's own `main` from its archive, and SwiftPM's handling of executable entry points is
// left alone. Each executable also exports `LLVMFuzzerTestOneInput`, which the fuzzer runtime's
// own `main` needs when the link picks that one. Built normally it runs the seeded mutation loop.
//
//   fuzz-<target> --write-seeds DIR        write the seed inputs into DIR (a libFuzzer corpus)
//   fuzz-<target> [--runs N] [--seed S] [--save-input FILE]
//                                          mutation loop (normal build); FILE holds the input
//                                          being run, for a trap that ends the process
//   fuzz-<target> [libFuzzer flags] CORPUS libFuzzer (CADMIUM_LIBFUZZER build)

#if canImport(Glibc)
import Glibc
#endif
import Foundation

public enum FuzzMain {
    public static func run(_ target: FuzzTarget) -> Never {
        let arguments = CommandLine.arguments
        func value(_ flag: String) -> String? {
            arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        guard let fixtures = locateFixtures() else {
            printError("fuzz-\(target.rawValue): Fixtures/ not found; run from the repository or set CADMIUM_FIXTURES")
            exit(2)
        }
        if let dir = value("--write-seeds") {
            let url = URL(fileURLWithPath: dir)
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (i, seed) in target.seeds(fixtures: fixtures).enumerated() {
                try? Data(seed).write(to: url.appendingPathComponent(String(format: "seed-%04d", i)))
            }
            exit(0)
        }
        #if CADMIUM_LIBFUZZER
        exit(LibFuzzerGlue.run(target))
        #else
        let runs = value("--runs").flatMap(Int.init) ?? 10_000
        let seed = value("--seed").flatMap(UInt64.init) ?? 1
        let start = Date()
        let result = target.mutationRun(
            seeds: target.seeds(fixtures: fixtures), iterations: runs, seed: seed,
            saveEachInputTo: value("--save-input").map { URL(fileURLWithPath: $0) })
        let seconds = Date().timeIntervalSince(start)
        print(
            "fuzz-\(target.rawValue): \(result.executions) executions in \(String(format: "%.1f", seconds)) s "
                + "(seed \(seed)), \(result.findings.count) findings"
        )
        for (i, finding) in result.findings.enumerated() {
            let name = "finding-\(target.rawValue)-\(i).bin"
            try? Data(finding.input).write(to: URL(fileURLWithPath: name))
            print("  \(name): \(finding.message)")
        }
        exit(result.findings.isEmpty ? 0 : 1)
        #endif
    }

    /// Runs one libFuzzer input; a finding aborts, and libFuzzer saves the input as crash-<sha1>.
    public static func runOne(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
        if let finding = target.run(bytes) {
            printError("fuzz finding: \(finding)")
            abort()
        }
        return 0
    }
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

#if CADMIUM_LIBFUZZER
/// The target libFuzzer's callback runs (a C function pointer cannot capture it).
enum LibFuzzerGlue {
    nonisolated(unsafe) static var target = FuzzTarget.storeOpen

    static func run(_ target: FuzzTarget) -> Int32 {
        Self.target = target
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, libFuzzerCallback)
    }
}

private func libFuzzerCallback(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzMain.runOne(LibFuzzerGlue.target, data, size)
}

/// libFuzzer's driver entry point (compiler-rt FuzzerInterface.h), in the fuzzer runtime that
/// `-sanitize=fuzzer` links.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif
