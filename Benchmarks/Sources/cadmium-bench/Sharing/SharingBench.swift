import ArgumentParser
import Foundation

// `cadmium-bench sharing`: what letting several processes share a store costs a process that has
// it alone. Every engine row of Cadmium and every object row of the ObjectStore and the Cd API runs
// as `run-one` children in pairs: one child opening its stores exclusively
// (`CADMIUM_BENCH_SHARING=exclusive`: an exclusive `flock`, no shared file, no remote-change
// watcher), one shared (the default: `NAME-shm`, its locks and reader marks, the watcher), side by
// side for each row and round so that both see the same machine load. Each side has its own data
// directory and read fixtures. Prints per row the median timed seconds of each side and the ratio
// shared ÷ exclusive of the timed seconds and of the timed part's process CPU, where the child
// measures it. The target (issue 30): every row within 1.05×.

struct Sharing: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Times every Cadmium row opened exclusively and shared, in alternating pairs.")

    @Option(help: "Employees at the object level.")
    var objects = 200_000
    @Option(help: "Keys at the engine level.")
    var keys = 500_000
    @Option(help: "Durable commits per commit row.")
    var commits = 2_000
    @Option(help: "Fetches (object level) and gets (engine level) per read row.")
    var gets = 50_000
    @Option(help: "Range queries per range row.")
    var rangeScans = 20
    @Option(help: "CONTAINS scans per scan row.")
    var scans = 3
    @Option(help: "Pairs per row; the median of each side is reported.")
    var rounds = 5
    @Option(help: "Directory for the stores (one subdirectory per side).")
    var dataDirectory = ".build/bench-data/sharing"
    @Flag(help: "The smallest sizes and one round: every row's code runs once, the figures mean nothing.")
    var smoke = false

    /// The two ways of opening, in the order each pair runs them.
    enum Side: String, CaseIterable {
        case exclusive, shared
    }

    /// One row: its label and the `run-one` arguments (without sizes and directory).
    struct Row {
        var label: String
        var arguments: [String]
        var prepare: [String]?
    }

    var rows: [Row] {
        let engine = [Workload.loadSequential, .getRandom, .scanFull, .scanRange, .commitDurable].map { w in
            Row(
                label: "engine      \(w.title)", arguments: ["--system", "cadmium", "--workload", w.rawValue],
                prepare: w.readsFixture ? ["--system", "cadmium", "--workload", Workload.prepare.rawValue] : nil)
        }
        let objectWorkloads: [ObjectWorkload] = [
            .insert, .commitEach, .fetchByKey, .fetchBySalary, .rangeQuery, .containsScan, .update, .delete,
            .openAndQuery,
        ]
        let objectRows = [ObjectSystemID.cadmium, .cdAPI].flatMap { system in
            objectWorkloads.map { w in
                Row(
                    label: "\(system == .cdAPI ? "Cd API     " : "ObjectStore") \(w.title)",
                    arguments: ["--object-system", system.rawValue, "--object-workload", w.rawValue],
                    prepare: ["--object-system", system.rawValue, "--object-workload", ObjectWorkload.prepare.rawValue])
            }
        }
        return engine + objectRows
    }

    var sizes: [String] {
        let s =
            smoke
            ? (objects: 200, keys: 1_000, commits: 20, gets: 200, ranges: 2, scans: 1)
            : (objects: objects, keys: keys, commits: commits, gets: gets, ranges: rangeScans, scans: scans)
        return [
            "--objects", "\(s.objects)", "--keys", "\(s.keys)", "--commits", "\(s.commits)", "--gets", "\(s.gets)",
            "--range-scans", "\(s.ranges)", "--scans", "\(s.scans)",
        ]
    }

    func directory(_ side: Side) -> String { dataDirectory + "/" + side.rawValue }

    /// Runs one child on `side` and decodes its result.
    func child(_ arguments: [String], side: Side) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        environment["CADMIUM_BENCH_SHARING"] = side == .exclusive ? "exclusive" : nil
        return try runChild(
            ["run-one"] + arguments + sizes + ["--dir", directory(side)], environment: environment,
            what: "\(side.rawValue) \(arguments.joined(separator: " "))")
    }

    func run() throws {
        let rounds = smoke ? 1 : max(1, self.rounds)
        for side in Side.allCases {
            try FileManager.default.createDirectory(atPath: directory(side), withIntermediateDirectories: true)
        }
        let all = rows
        var prepared = Set<[String]>()
        for row in all {
            guard let prepare = row.prepare, prepared.insert(prepare).inserted else { continue }
            for side in Side.allCases { _ = try child(prepare, side: side) }
        }
        func median(_ xs: [Double]) -> Double {
            let s = xs.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        print(
            "row".padding(toLength: 46, withPad: " ", startingAt: 0)
                + "   exclusive s     shared s   shared ÷ exclusive (time)   (CPU)")
        var worst = 0.0
        for row in all {
            var seconds: [Side: [Double]] = [:]
            var cpu: [Side: [Double]] = [:]
            for round in 0..<rounds {
                // Alternate which side goes first, so that neither always runs on a warmer machine.
                let order = round % 2 == 0 ? Side.allCases : Side.allCases.reversed()
                for side in order {
                    let r = try child(row.arguments, side: side)
                    seconds[side, default: []].append(r.seconds)
                    if let c = r.cpuSeconds { cpu[side, default: []].append(c) }
                }
            }
            let x = median(seconds[.exclusive]!), p = median(seconds[.shared]!)
            let ratio = x > 0 ? p / x : 1
            worst = max(worst, ratio)
            var cpuText = "      -"
            if let cx = cpu[.exclusive], let cp = cpu[.shared], cx.count == rounds, cp.count == rounds,
                median(cx) > 0
            {
                cpuText = String(format: "%7.3f×", median(cp) / median(cx))
            }
            print(
                row.label.padding(toLength: 46, withPad: " ", startingAt: 0)
                    + String(format: " %12.4f %12.4f %15.3f×", x, p, ratio) + "          " + cpuText)
        }
        print(
            "sharing: worst row \(String(format: "%.3f", worst))× shared ÷ exclusive, median of \(rounds) pairs "
                + "(target: within 1.05×)")
        for side in Side.allCases { try? FileManager.default.removeItem(atPath: directory(side)) }
    }
}
