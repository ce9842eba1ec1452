import Testing
@testable import CdStore

/// Each recipe of Fixtures/corruptions/cases.json damages a copy of a test store; the verifier
/// must report a problem naming what was damaged (a torn WAL tail: a note and no problem; bytes of
/// another generation after the log's end, as a reused log file holds: nothing).
@Suite struct VerifyCorruptionSuiteTests {
    @Test(arguments: try CorruptionCase.load())
    func verifierNamesTheDamage(_ recipe: CorruptionCase) throws {
        var files = try TestStores.build(recipe.store)
        let aim = try recipe.apply(to: &files)
        let report = try files.verify()
        let problems = report.problemsOnly
        let shown = report.problems.prefix(12).map(\.description).joined(separator: "\n")
        switch recipe.expect {
        case "targetPage", "targetPages":
            for page in aim.pages {
                #expect(
                    problems.contains { $0.location.page == page.rawValue }, "no problem names page \(page):\n\(shown)")
            }
        case "targetPageInTree":
            #expect(
                problems.contains { $0.location.page == aim.pages.first?.rawValue && $0.location.tree == aim.tree },
                "no problem names page \(aim.pages) in tree \(aim.tree ?? "-"):\n\(shown)")
        case "lastExtent":
            #expect(
                problems.contains { $0.location.offset == aim.offset },
                "no problem at offset \(aim.offset ?? 0):\n\(shown)")
        case "pageMap":
            #expect(problems.contains { $0.location.area == .pageMap && $0.location.offset == aim.offset }, "\(shown)")
        case "walNoteOnly":
            #expect(problems.isEmpty, "\(shown)")
            #expect(report.notesOnly.contains { $0.location.area == .wal }, "\(shown)")
        case "noFindings":
            #expect(report.problems.isEmpty, "\(shown)")
        case "walProblemAtFrame":
            #expect(
                problems.contains {
                    $0.location.area == .wal && $0.location.walFrame == aim.walFrame
                        && (aim.offset == nil || $0.location.offset == aim.offset)
                },
                "no WAL problem at frame \(aim.walFrame.map(String.init) ?? "-"):\n\(shown)")
        case "headerCopy":
            #expect(problems.contains { $0.location.area == .header && $0.location.offset == aim.offset }, "\(shown)")
        default:
            Issue.record("unknown expectation \(recipe.expect)")
        }
    }
}
