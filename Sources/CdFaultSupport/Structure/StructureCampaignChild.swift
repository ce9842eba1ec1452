// The child-process side of the structure campaign (`cadmium-crash-child --structure-campaign`):
// runs the cases from `--start N` on and reports each over stdout with write(2), so that the
// parent (Tests/CdStoreTests/Hostile/StructureCampaignTests.swift) learns which case a trap, a
// hang or an allocation failure ended, restarts after it, and goes on:
//
//   TOTAL n
//   CASE i <store>: <site> = <value>        written before the case runs
//   DONE i <outcome> rss+<KiB> | ro: <error or ok> | rw: <error or ok> | verify: <problems> | <violation>
//
// Each case runs under `alarm(5)` (a hang ends the child with SIGALRM) and the process under an
// RLIMIT_DATA cap of 2 GiB (a runaway allocation fails and traps); a case whose peak RSS grows by
// more than 64 MiB reports a violation itself.
//
// `--shared-file-campaign [--start N]` runs the shared file's cases (SharedFileCampaign) the same
// way.
//
// `--structure-fixture PATH [--store NAME]` runs one stored case (a page file and its `-wal`,
// mutated from campaign store NAME) the same way and prints its DONE line, for the regression
// fixtures.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

public enum StructureCampaignChild {
    static let caseSeconds: UInt32 = 5
    static let peakGrowthLimitKiB = 64 << 10

    /// Runs the child mode named by `arguments`; returns its exit status.
    public static func run(_ arguments: [String], say: (String) -> Void) -> Int32 {
        func value(_ flag: String) -> String? {
            arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        capMemory()
        // A parent that ignores or blocks SIGALRM passes that on through exec: restore the default
        // (terminate), or a hang would go unnoticed.
        signal(SIGALRM, SIG_DFL)
        var alarmOnly = sigset_t()
        sigemptyset(&alarmOnly)
        sigaddset(&alarmOnly, SIGALRM)
        sigprocmask(SIG_UNBLOCK, &alarmOnly, nil)
        if let fixture = value("--structure-fixture") {
            guard
                let files = try? StoreFuzzInput(
                    pageFile: [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture))),
                    wal: (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture + "-wal")))) ?? [])
            else {
                say("cannot read \(fixture)"); return 2
            }
            // The unmutated store's trees, when the fixture names the campaign store it came from.
            let original =
                value("--store").flatMap(CampaignStore.init(rawValue:)).flatMap {
                    try? StructureCaseRunner.view(of: $0.make())
                } ?? [:]
            say("CASE 0 \(fixture)")
            say(line(0, runCase(files, original: original)))
            return 0
        }
        if arguments.contains("--shared-file-campaign") {
            do {
                let cases = try SharedFileCampaign.cases()
                say("TOTAL \(cases.count)")
                let first = min(max(0, Int(value("--start") ?? "0") ?? 0), cases.count)
                for i in first..<cases.count {
                    say("CASE \(i) \(cases[i].id)")
                    say(line(i, measure { SharedFileCaseRunner.run(cases[i]) }))
                }
                return 0
            } catch {
                say("cannot seed the shared-file campaign's store: \(error)")
                return 2
            }
        }
        do {
            let campaign = try StructureCampaign(full: arguments.contains("--full"))
            say("TOTAL \(campaign.cases.count)")
            let first = min(max(0, Int(value("--start") ?? "0") ?? 0), campaign.cases.count)
            for i in first..<campaign.cases.count {
                let c = campaign.cases[i]
                say("CASE \(i) \(c.id)")
                let result = runCase(campaign.files(of: i), original: campaign.subject(c.store).view)
                say(line(i, result))
            }
            return 0
        } catch {
            say("cannot build the campaign stores: \(error)")
            return 2
        }
    }

    static func runCase(_ files: StoreFuzzInput, original: TreeView) -> (StructureCaseResult, Int) {
        measure(size: "for files of \((files.pageFile.count + files.wal.count) >> 10) KiB") {
            StructureCaseRunner.run(files, original: original)
        }
    }

    /// Runs one case under the alarm and reports its peak RSS growth (a violation past the limit).
    static func measure(size: String = "", _ body: () -> StructureCaseResult) -> (StructureCaseResult, Int) {
        let before = peakRSSKiB()
        alarm(caseSeconds)
        var result = body()
        alarm(0)
        let growth = peakRSSKiB() - before
        if growth > peakGrowthLimitKiB, result.violation == nil {
            result.violation = "peak RSS grew by \(growth >> 10) MiB \(size)"
        }
        return (result, growth)
    }

    static func line(_ i: Int, _ r: (result: StructureCaseResult, growth: Int)) -> String {
        func oneLine(_ s: String?) -> String { (s ?? "ok").replacingOccurrences(of: "\n", with: " ") }
        return
            "DONE \(i) \(r.result.outcome) rss+\(r.growth) | ro: \(oneLine(r.result.readOnlyError)) "
            + "| rw: \(oneLine(r.result.writableError))"
            + " | verify: \(r.result.verifierProblems) | \(oneLine(r.result.violation))"
    }

    static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    static func capMemory() {
        var limit = rlimit(rlim_cur: 2 << 30, rlim_max: 2 << 30)
        _ = withUnsafePointer(to: &limit) { setrlimit(__rlimit_resource_t(RLIMIT_DATA.rawValue), $0) }
    }
}
