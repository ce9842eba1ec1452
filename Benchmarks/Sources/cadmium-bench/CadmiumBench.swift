import ArgumentParser
import Foundation

// `cadmium-bench`: Cadmium against SQLite (C API) on the same data in one run.
//
//   cadmium-bench [run] [--quick] [--json PATH] [--docs DIR]   the suite, as a table (the object
//                                                            level's systems: --object-systems)
//   cadmium-bench render --json PATH --docs DIR               docs from an earlier results file
//   cadmium-bench run-one --system S --workload W ...         one child run (used by `run`)
//   cadmium-bench observe [--results N]                       a results controller's update cost
//   cadmium-bench batch --form batch|objects                 batch operations beside object-by-object
//   cadmium-bench links [--members N…]                        one many-to-many link as the list grows
//   cadmium-bench tagged [--notes N]                          the notes with one tag, beside GRDB's join
//   cadmium-bench coredata-import [--objects N]               a Core Data import beside the bulk insert
//   cadmium-bench history [--objects N]                       Cd bulk insert, history off and on
//   cadmium-bench sharing [--objects N]                       every Cadmium row opened exclusively and shared

@main
struct CadmiumBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cadmium-bench",
        abstract: "Benchmarks Cadmium's storage engine side by side with SQLite.",
        subcommands: [
            Run.self, Render.self, RunOne.self, Observe.self, Batch.self, Links.self, Tagged.self,
            CoreDataImportBench.self, History.self, Sharing.self,
        ],
        defaultSubcommand: Run.self
    )
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Runs the suite and prints the results table.")

    @Flag(help: "Small sizes and one repetition: seconds of measuring.")
    var quick = false
    @Flag(
        help: """
            The smallest sizes and one repetition: every workload's code runs once, the figures mean nothing \
            (CI runs it on a debug build to keep the harness working).
            """)
    var smoke = false
    @Option(help: "Repetitions per workload and system (default 3, or 1 with --quick); the median is reported.")
    var repetitions: Int?
    @Option(help: "Write the results as JSON to this path.")
    var json: String?
    @Option(help: "Regenerate the chart (DIR/benchmarks/chart.svg) and the tables in DIR/BENCHMARKS.md.")
    var docs: String?
    @Option(help: "Directory for the stores (on the disk under test, not tmpfs).")
    var dataDirectory = ".build/bench-data"
    @Option(parsing: .upToNextOption, help: "Workloads to run (default: all).")
    var workloads: [Workload] = Workload.reported
    @Flag(help: "Skip the engine-level workloads.")
    var skipEngine = false
    @Option(
        parsing: .upToNextOption, help: "Object-level workloads to run (default: all; `none` to skip the object level)."
    )
    var objectWorkloads: [String] = ObjectWorkload.reported.map(\.rawValue)
    @Option(parsing: .upToNextOption, help: "Systems to run (default: all).")
    var systems: [SystemID] = SystemID.allCases
    @Option(parsing: .upToNextOption, help: "Object-level systems to run (default: all).")
    var objectSystems: [ObjectSystemID] = ObjectSystemID.built
    @Option(help: "Directory of this package, for its Package.resolved (GRDB's version).")
    var packageDirectory = "."
    @Option(
        parsing: .upToNextOption,
        help: """
            Employees at the object level, one level per count (default: 1000000 200000 in full mode, \
            10000 2000 in quick mode, 500 200 in smoke mode). The largest runs every object workload and is \
            the one judged; the others skip the durable commits, which do not depend on the store's size.
            """)
    var objects: [Int] = []

    func validate() throws {
        if quick && smoke { throw ValidationError("--quick and --smoke: choose one") }
        if let bad = objects.first(where: { $0 < 1 }) {
            throw ValidationError("--objects: \(bad) employees; each size must be at least 1")
        }
    }

    func run() throws {
        let scale = smoke ? Scale.smoke : quick ? Scale.quick : Scale.full
        let reps = repetitions ?? (quick || smoke ? 1 : 3)
        let orchestrator = Orchestrator(
            scale: scale, repetitions: reps, systems: systems,
            workloads: workloads, dataDirectory: dataDirectory)
        let engine = skipEngine ? [] : try orchestrator.run()
        let objectKinds = objectWorkloads.compactMap(ObjectWorkload.init(rawValue:))
        let defaultSizes = smoke ? ObjectScale.smokeSizes : quick ? ObjectScale.quickSizes : ObjectScale.fullSizes
        let sizes = objects.isEmpty ? defaultSizes : objects
        let levels =
            objectKinds.isEmpty
            ? nil
            : try orchestrator.runObjectLevels(
                sizes: sizes, base: smoke ? ObjectScale.smoke : quick ? ObjectScale.quick : ObjectScale.full,
                systems: objectSystems, workloads: objectKinds)
        let results = SuiteResults(
            date: ISO8601DateFormatter().string(from: Date()), mode: smoke ? "smoke" : quick ? "quick" : "full",
            scale: scale, repetitions: reps,
            machine: MachineInfo.current(packageDirectory: packageDirectory),
            workloads: engine, objectLevels: levels)
        let tables = ResultTables(results: results)
        print("\nThroughput (median of \(reps); ratio > 1× means Cadmium is faster)\n")
        print(tables.throughput().text())
        print("\nFile size after a checkpoint (ratio < 1× means Cadmium is smaller)\n")
        print(tables.fileSize().text())
        print("\nPeak memory per run (VmHWM)\n")
        print(tables.peakMemory().text())
        let judged = results.judgedObjectLevel?.scale.objects
        for level in levels ?? [] {
            guard let table = tables.objectThroughput(level, judged: level.scale.objects == judged) else { continue }
            print(
                "\nObject level, \(grouped(level.scale.objects)) employees (median of \(reps); "
                    + "ratio > 1× means Cadmium is faster)\n")
            print(table.text())
            if let scaling = tables.readScaling(level) {
                print("\nReads on several threads, \(grouped(level.scale.objects)) employees (wall and process CPU)\n")
                print(scaling.text())
            }
        }
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: json))
            print("\nresults written to \(json)")
        }
        if let docs { try render(results, docs: docs) }
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Regenerates the docs chart and tables from a results file.")

    @Option(help: "The results JSON of a run.")
    var json: String
    @Option(help: "The docs directory holding BENCHMARKS.md.")
    var docs: String

    func run() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: json))
        try render(try JSONDecoder().decode(SuiteResults.self, from: data), docs: docs)
    }
}

func render(_ results: SuiteResults, docs: String) throws {
    try FileManager.default.createDirectory(atPath: docs + "/benchmarks", withIntermediateDirectories: true)
    try SVGChart(results: results).render().write(
        toFile: docs + "/benchmarks/chart.svg", atomically: true, encoding: .utf8)
    try DocsUpdater.update(markdownPath: docs + "/BENCHMARKS.md", with: results)
    print("docs updated: \(docs)/BENCHMARKS.md, \(docs)/benchmarks/chart.svg")
}

struct RunOne: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run-one",
        abstract: "Runs one workload on one system and prints its result as JSON (used by `run`).")

    @Option var system: SystemID?
    @Option var workload: Workload?
    @Option var keys = Scale.full.keys
    @Option var gets = Scale.full.gets
    @Option var rangeScans = Scale.full.rangeScans
    @Option var commits = Scale.full.commits
    @Option var dir = ".build/bench-data"
    @Option var objectSystem: ObjectSystemID?
    @Option var objectWorkload: ObjectWorkload?
    @Option var objects = ObjectScale.full.objects
    @Option var scans = ObjectScale.full.scans

    func run() throws {
        let result: RunResult
        if let objectSystem, let objectWorkload {
            let scale = ObjectScale(objects: objects, commits: commits, fetches: gets, ranges: rangeScans, scans: scans)
            result = try runObjectWorkload(system: objectSystem, workload: objectWorkload, scale: scale, dir: dir)
        } else {
            let scale = Scale(keys: keys, gets: gets, rangeScans: rangeScans, commits: commits)
            result = try runOne(
                system: system ?? .cadmium, workload: workload ?? .loadSequential, scale: scale, dir: dir)
        }
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }
}

extension SystemID: ExpressibleByArgument {}
extension ObjectSystemID: ExpressibleByArgument {}
extension ObjectWorkload: ExpressibleByArgument {}
