// The parent side of the structure campaign: runs `cadmium-crash-child --structure-campaign`,
// reads its CASE / DONE lines (StructureCampaignChild), and when the child dies inside a case —
// a trap, SIGALRM for a hang, an allocation failure under its memory cap — records that case with
// the child's stack and restarts it after the case. The result counts every outcome.

import Foundation

public struct StructureCampaignSummary: Sendable {
    public var cases = 0
    public var clean = 0
    public var typedErrors = 0
    /// Cases whose verifier report listed problems.
    public var verifierFindings = 0
    /// Broken rules: (case id, what broke). Traps, hangs and over-allocations included.
    public var violations: [(id: String, message: String)] = []
    public var childRestarts = 0

    public var description: String {
        "\(cases) cases: \(clean) clean, \(typedErrors) typed errors, \(violations.count) violations"
            + " (verifier reported problems in \(verifierFindings)); \(childRestarts) child restarts"
    }
}

public enum StructureCampaignDriver {
    /// The child's environment: Swift's backtracer on, non-interactive, so a trap prints its stack.
    static let environment = ["SWIFT_BACKTRACE": "enable=yes,interactive=no,color=no,limit=24,top=0,sanitize=no"]

    /// Runs the whole campaign through `child` (the `cadmium-crash-child` executable): the store
    /// files' cases, or with `sharedFile` the shared file's (SharedFileCampaign).
    public static func run(child: URL, full: Bool, sharedFile: Bool = false) throws -> StructureCampaignSummary {
        var summary = StructureCampaignSummary()
        var start = 0
        while true {
            let output = try BuiltExecutable.run(
                child,
                arguments: [sharedFile ? "--shared-file-campaign" : "--structure-campaign", "--start", "\(start)"]
                    + (full ? ["--full"] : []),
                environment: environment)
            var open: (index: Int, id: String)?
            for line in output.stdout.split(separator: "\n").map(String.init) {
                if line.hasPrefix("TOTAL ") { summary.cases = Int(line.dropFirst(6)) ?? 0 }
                if line.hasPrefix("CASE ") {
                    let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
                    open = (Int(parts[1]) ?? -1, parts.count > 2 ? parts[2] : "")
                }
                if line.hasPrefix("DONE "), let current = open {
                    record(line, id: current.id, into: &summary)
                    open = nil
                }
            }
            if let open {
                summary.violations.append((open.id, death(output)))
                summary.childRestarts += 1
                start = open.index + 1
                continue
            }
            if output.status != 0 || output.diedOfSignal {
                summary.violations.append(
                    (
                        "(child)",
                        "exited with \(output.status) outside a case: "
                            + "\(output.stdout.suffix(300)) \(output.stderr.suffix(300))"
                    ))
            }
            return summary
        }
    }

    /// Runs one stored case (`--structure-fixture`): its DONE line's outcome, or how the child died.
    public static func runFixture(
        child: URL, path: String, store: CampaignStore
    ) throws -> (outcome: String, detail: String) {
        let output = try BuiltExecutable.run(
            child, arguments: ["--structure-fixture", path, "--store", store.rawValue],
            environment: environment)
        guard let done = output.stdout.split(separator: "\n").first(where: { $0.hasPrefix("DONE ") }) else {
            return ("died", death(output))
        }
        let words = done.split(separator: " ")
        return (words.count > 2 ? String(words[2]) : "?", String(done))
    }

    static func record(_ line: String, id: String, into summary: inout StructureCampaignSummary) {
        let fields = line.components(separatedBy: " | ")
        let outcome = line.split(separator: " ").dropFirst(2).first.map(String.init) ?? ""
        switch outcome {
        case "clean": summary.clean += 1
        case "typed-error": summary.typedErrors += 1
        default: summary.violations.append((id, fields.last ?? line))
        }
        if let verify = fields.first(where: { $0.hasPrefix("verify: ") }), let n = Int(verify.dropFirst(8)), n > 0 {
            summary.verifierFindings += 1
        }
    }

    /// `function at File.swift:line` from a backtrace line.
    static func compactFrame(_ line: String) -> String {
        let location =
            line.components(separatedBy: " at ").last.map { String($0.split(separator: "/").last ?? "") } ?? ""
        let function = line.components(separatedBy: " + ").first?.split(separator: " ").last.map(String.init) ?? ""
        return "\(function) at \(location)"
    }

    /// What killed the child: the signal, the runtime's message and the first frames in Sources/.
    static func death(_ output: BuiltExecutable.Output) -> String {
        let signal =
            output.diedOfSignal
            ? "signal \(output.status)\(output.status == 14 ? " (SIGALRM: a hang)" : "")" : "exit \(output.status)"
        let lines = output.stderr.split(separator: "\n").map(String.init)
        let message = lines.first {
            $0.contains("Fatal error") || $0.contains("runtime failure") || $0.contains("Could not allocate")
        }
        let frames = lines.filter {
            $0.contains("/Sources/") && !$0.contains("CdFaultSupport") && !$0.contains("cadmium-crash-child/")
        }
        .prefix(3).map(compactFrame)
        return ([signal] + (message.map { [$0.trimmingCharacters(in: .whitespaces)] } ?? []) + frames).joined(
            separator: " ← ")
    }
}
