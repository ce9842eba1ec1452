@testable import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

/// The structure campaign (docs/TESTING.md, campaign 5b): every catalogued field of three small
/// stores set to every hostile value with every checksum recomputed, through a read-only open, a
/// writable open with two commits, and the verifier — in a child process, so that a trap, a hang
/// or a runaway allocation is reported with its case instead of ending the test run.
@Suite struct StructureCampaignTests {
    static var full: Bool { ProcessInfo.processInfo.environment["CADMIUM_STRUCTURE_FULL"] == "1" }

    @Test func everyFieldSetToEveryHostileValueEndsInATypedErrorOrACleanResult() throws {
        let child = try BuiltExecutable.locate("cadmium-crash-child", override: "CADMIUM_CRASH_CHILD")
        let start = Date()
        let summary = try StructureCampaignDriver.run(child: child, full: Self.full)
        print(
            "structure campaign (\(Self.full ? "full" : "short") form): \(summary.description) "
                + "in \(String(format: "%.1f", Date().timeIntervalSince(start))) s"
        )
        #expect(summary.cases > 1000, "the campaign lost its cases")
        #expect(summary.clean > 0 && summary.typedErrors > 0, "a campaign where every case ends alike tests nothing")
        for (id, message) in summary.violations { Issue.record("\(id): \(message)") }
    }

    /// The shared file's words (SharedFileCampaign): every hostile value, with the state's CRC
    /// recomputed, while two processes have the file mapped; every read right or a typed error,
    /// the verifier clean beside them, and the store right when opened alone at the end.
    @Test func everySharedFileWordSetToEveryHostileValueGivesRightAnswersOrTypedErrors() throws {
        let child = try BuiltExecutable.locate("cadmium-crash-child", override: "CADMIUM_CRASH_CHILD")
        let start = Date()
        let summary = try StructureCampaignDriver.run(child: child, full: false, sharedFile: true)
        print(
            "shared-file campaign: \(summary.description) "
                + "in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        #expect(summary.cases > 80, "the campaign lost its cases")
        #expect(summary.clean > 0, "no case ran through cleanly: the runner itself is broken")
        for (id, message) in summary.violations { Issue.record("\(id): \(message)") }
    }

    /// `cdstore-verify` on a sample of the cases: exit 0 or 4 (8 only where the library call
    /// also refused the file as not a store or of another version), never a crash.
    @Test func verifierExecutableExitsWithAFindingCodeOnASample() throws {
        let verify = try BuiltExecutable.locate("cdstore-verify")
        let campaign = try StructureCampaign(full: false)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("structure-sample-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let step = max(1, campaign.cases.count / 40)
        var codes: [Int32: Int] = [:]
        for index in stride(from: 0, to: campaign.cases.count, by: step) {
            let files = campaign.files(of: index)
            let path = dir.appendingPathComponent("case-\(index).cdstore").path
            try Data(files.pageFile).write(to: URL(fileURLWithPath: path))
            try? FileManager.default.removeItem(atPath: path + "-wal")
            if !files.wal.isEmpty { try Data(files.wal).write(to: URL(fileURLWithPath: path + "-wal")) }
            let output = try BuiltExecutable.run(verify, arguments: ["--quiet", "--no-progress", path])
            codes[output.status, default: 0] += 1
            let id = campaign.cases[index].id
            if output.diedOfSignal {
                Issue.record("\(id): cdstore-verify died of signal \(output.status): \(output.stderr.suffix(400))");
                continue
            }
            var refused = false
            do { _ = try StoreVerifier.verify(path: path) } catch { refused = true }
            #expect(
                output.status == 0 || output.status == 4 || (output.status == 8 && refused),
                """
                \(id): cdstore-verify exited \(output.status): \
                \(output.stdout.prefix(300)) \(output.stderr.prefix(300))
                """
            )
        }
        print(
            "cdstore-verify on \(codes.values.reduce(0, +)) sampled cases: "
                + "exit codes \(codes.sorted { $0.key < $1.key })"
        )
    }
}
