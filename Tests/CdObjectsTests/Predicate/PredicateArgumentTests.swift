// Conversion of Swift argument values into AST constants, and argument-count errors.

import Foundation
import Testing
@testable import CdObjects

@Suite("Predicate arguments")
struct PredicateArgumentTests {
    /// The right-hand constant of `x == %@` with `value`.
    private func constant(_ value: Any) throws -> CdPredicateExpression {
        guard case let .comparison(c) = try CdPredicate(format: "x == %@", value) else {
            Issue.record("not a comparison")
            return .constant(.null)
        }
        return c.right
    }

    @Test func integersOfEveryWidthBecomeInteger() throws {
        let values: [Any] = [Int(-7), Int8(-7), Int16(-7), Int32(-7), Int64(-7)]
        for v in values { #expect(try constant(v) == .constant(.integer(-7)), "\(type(of: v))") }
        let unsigned: [Any] = [UInt(7), UInt8(7), UInt16(7), UInt32(7), UInt64(7)]
        for v in unsigned { #expect(try constant(v) == .constant(.integer(7)), "\(type(of: v))") }
        #expect(try constant(UInt64.max) == .constant(.double(Double(UInt64.max))))
    }

    @Test func otherScalarsKeepTheirType() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        let uuid = UUID()
        let url = URL(string: "https://example.com/a?b=c")!
        #expect(try constant(1.5) == .constant(.double(1.5)))
        #expect(try constant(Float(0.25)) == .constant(.double(0.25)))
        #expect(try constant(Decimal(string: "1.10")!) == .constant(.decimal(Decimal(string: "1.10")!)))
        #expect(try constant("text") == .constant(.string("text")))
        #expect(try constant(Substring("sub")) == .constant(.string("sub")))
        #expect(try constant(true) == .constant(.bool(true)))
        #expect(try constant(date) == .constant(.date(date)))
        #expect(try constant(Data([1, 2])) == .constant(.data(Data([1, 2]))))
        #expect(try constant(uuid) == .constant(.uuid(uuid)))
        #expect(try constant(url) == .constant(.uri(url)))
        #expect(try constant(CdValue.integer(3)) == .constant(.integer(3)))
    }

    @Test func nilOptionalsAndNSNullBecomeNil() throws {
        let none: String? = nil
        let nested: Int?? = .some(nil)
        #expect(try constant(none as Any) == .constant(.null))
        #expect(try constant(nested as Any) == .constant(.null))
        #expect(try constant(NSNull()) == .constant(.null))
        let some: Int? = 4
        #expect(try constant(some as Any) == .constant(.integer(4)))
    }

    @Test func arraysAndSetsBecomeAggregates() throws {
        #expect(try constant([1, 2]) == .aggregate([.constant(.integer(1)), .constant(.integer(2))]))
        #expect(try constant(["a", nil] as [String?]) == .aggregate([.constant(.string("a")), .constant(.null)]))
        // Sets are sorted so that the AST does not depend on hash order.
        let fromSet = try constant(Set(["b", "c", "a"]))
        #expect(fromSet == .aggregate([.constant(.string("a")), .constant(.string("b")), .constant(.string("c"))]))
    }

    @Test func objectReferencesKeepTheirIdentity() throws {
        struct Ref: PredicateObjectReference { var predicateIdentity: AnyHashable { "obj-1" } }
        #expect(try constant(Ref()) == .object(PredicateObjectID("obj-1")))
        #expect(try constant([Ref()]) == .aggregate([.object(PredicateObjectID("obj-1"))]))
    }

    @Test func unsupportedTypeNamesIndexAndType() throws {
        struct Gadget {}
        let error = try #require(throws: CdPredicateError.self) {
            try CdPredicate(format: "a == %@ AND b == %@", 1, Gadget())
        }
        #expect(error.kind == .unsupportedArgument)
        #expect(error.message.contains("argument 1") && error.message.contains("Gadget"), "\(error)")
    }

    @Test func specifiersCheckTheirArgument() throws {
        #expect(try CdPredicate(format: "a == %d", true) == CdPredicate(format: "a == 1"))
        #expect(try CdPredicate(format: "a == %f", 2) == CdPredicate(format: "a == 2.0"))
        let k = try #require(throws: CdPredicateError.self) { try CdPredicate(format: "%K == 1", 5) }
        #expect(k.kind == .unsupportedArgument && k.message.contains("%K"))
        let d = try #require(throws: CdPredicateError.self) { try CdPredicate(format: "a == %d", 1.5) }
        #expect(d.kind == .unsupportedArgument && d.message.contains("%d"))
    }

    @Test func keyArgumentsBecomeKeyPaths() throws {
        #expect(try CdPredicate(format: "%K == 1", "department.name") == CdPredicate(format: "department.name == 1"))
        #expect(
            try CdPredicate(format: "%K == 1", "employees.@sum.salary")
                == CdPredicate(format: "employees.@sum.salary == 1"))
        // A reserved word is a plain key when it comes from %K.
        #expect(
            try CdPredicate(format: "%K == 1", "in")
                == .comparison(.init(.keyPath(.evaluatedObject, ["in"]), .equal, .constant(.integer(1)))))
    }

    @Test func argumentCountIsChecked() throws {
        let missing = try #require(throws: CdPredicateError.self) { try CdPredicate(format: "a == %@ OR b == %@", 1) }
        #expect(missing.kind == .missingArgument && missing.offset == 16)
        let extra = try #require(throws: CdPredicateError.self) { try CdPredicate(format: "a == %@", 1, 2) }
        #expect(extra.kind == .extraArgument)
        #expect(extra.message.contains("2 arguments"))
    }
}
