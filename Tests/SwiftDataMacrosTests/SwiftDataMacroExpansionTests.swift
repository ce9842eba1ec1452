// Every macro expansion case of Fixtures/swiftdata-macros, expanded and compared with its
// expected source and diagnostics.

import Foundation
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct SwiftDataMacroExpansionTests {
    @Test(arguments: try ExpansionCase.all())
    func expandsAsExpected(_ expansion: ExpansionCase) {
        #expect(expansion.diagnostics.count == expansion.diagnosticSpecs().count, "a malformed .diagnostics line")
        assertMacroExpansion(
            expansion.input, expandedSource: expansion.expanded, diagnostics: expansion.diagnosticSpecs(),
            macroSpecs: swiftDataMacros,
            failureHandler: { failure in Issue.record(Comment(rawValue: "\(expansion.name): \(failure.message)")) })
    }

    @Test func everyMacroHasACase() throws {
        let inputs = try ExpansionCase.all().map(\.input).joined()
        for name in ["@Model", "@Attribute", "@Relationship", "@Transient", "#Unique", "#Index", "@ModelActor"] {
            #expect(inputs.contains(name), "no expansion case uses \(name)")
        }
    }
}
