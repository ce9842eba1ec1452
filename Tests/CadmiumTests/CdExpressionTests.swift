// `CdExpression`: the arithmetic of batch updates — integer and double results, nil operands,
// the conversion to the attribute's type, and typed errors for malformed text, relationship
// key paths, division by zero and overflow.

import CdObjects
import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct BatchExpressions {
        @Test func expressionsComputeAndReportErrors() throws {
            let id = ObjectID(entity: "Employee", primaryKey: 1)
            let row: [String: PropertyValue] = ["salary": .attribute(.integer(100)), "rate": .attribute(.double(0.5))]
            #expect(try CdExpression("salary * 1.1 + 1").evaluate(row, object: id) == .double(100 * 1.1 + 1))
            #expect(try CdExpression("-(salary - 40) / 3").evaluate(row, object: id) == .integer(-20))
            #expect(try CdExpression("salary / 3").evaluate(row, object: id) == .double(100.0 / 3))
            #expect(try CdExpression("salary * rate").evaluate(row, object: id) == .double(50))
            #expect(try CdExpression("missing + 1").evaluate(row, object: id) == .null)
            #expect(BatchValue.converted(.double(109.6), to: .integer64) == .integer(110))
            #expect(CdExpression("salary * (2").parseError?.offset == 11)
            #expect(CdExpression("department.budget").parseError != nil)
            #expect(throws: CdExpressionError.self) { try CdExpression("salary / 0").evaluate(row, object: id) }
            #expect(throws: CdExpressionError.self) {
                try CdExpression("salary * 9223372036854775807").evaluate(row, object: id)
            }
        }

        /// Text from the user (a tool's argument, a setting) never exhausts the stack: deep
        /// parentheses, long runs of minus signs and long chains of operators are typed errors,
        /// and an expression just inside the limit still computes.
        @Test func deepOrLongExpressionsAreRefusedNotCrashes() throws {
            let id = ObjectID(entity: "Employee", primaryKey: 1)
            let row: [String: PropertyValue] = ["salary": .attribute(.integer(100))]
            let deep = 100_000
            let parens = CdExpression(String(repeating: "(", count: deep) + "1" + String(repeating: ")", count: deep))
            #expect(parens.parseError?.message.contains("levels deep") == true)
            #expect(CdExpression(String(repeating: "-", count: deep) + "1").parseError != nil)
            let chain = CdExpression(Array(repeating: "salary", count: deep).joined(separator: " + "))
            #expect(chain.parseError?.message.contains("levels deep") == true)
            #expect(chain.attributes.isEmpty)
            let fits = CdExpression(Array(repeating: "salary", count: 150).joined(separator: " + "))
            #expect(fits.parseError == nil)
            #expect(try fits.evaluate(row, object: id) == .integer(15_000))
        }
    }
}
