// CoreValue's test scenarios, from Fixtures/values/scenarios.json, each run with the model derived
// from the structs and with the same model read from Fixtures/values/ValuesModel.xcdatamodel.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct ValueFixtureTests {
        static let scenarios: [ValueScenario] = (try? ValueScenario.all()) ?? []

        @Test func scenariosAreLoaded() throws {
            #expect(try ValueScenario.all().count >= 15)
        }

        @Test func derivedModelIsTheModelFile() throws {
            let derived = try ValueModelSource.derived.model().objectModel
            let file = try ValueModelSource.file.model().objectModel
            #expect(derived.firstStoredShapeDifference(from: file) == nil)
            #expect(derived.versionHash == file.versionHash)
            for entity in file.entities {
                for attribute in entity.attributes {
                    #expect(derived.attribute(attribute.name, of: entity.name)?.type == attribute.type)
                }
            }
        }

        @Test(arguments: scenarios, ValueModelSource.allCases)
        func scenario(_ scenario: ValueScenario, _ source: ValueModelSource) async throws {
            try source.open()
            var runner = ValueScenarioRunner()
            for (index, step) in scenario.steps.enumerated() {
                do {
                    try await runner.run(step, #_sourceLocation)
                } catch {
                    Issue.record("step \(index) (\(step.op) \(step.type ?? step.ref ?? "")): \(error)")
                    return
                }
            }
        }
    }
}
