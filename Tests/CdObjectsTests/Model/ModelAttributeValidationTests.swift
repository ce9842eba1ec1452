import Foundation
import Testing
@testable import CdObjects

/// One case per Core Data validation code (the CoreDataErrors.h values `CdError` documents).
@Suite struct ModelAttributeValidationTests {
    private func code(_ attribute: AttributeDescription, _ value: CdValue) -> Int? {
        attribute.validate(value, entityName: "E")?.code
    }

    @Test func requiredValueMissingIs1570() {
        let name = AttributeDescription(name: "name", type: .string, isOptional: false)
        let error = name.validate(.null, entityName: "Person", objectID: "p1")
        #expect(
            error
                == .missingMandatoryProperty(
                    ValidationFailure(
                        entity: "Person", objectID: "p1", key: "name",
                        message: "a value is required")))
        #expect(error?.code == 1570)
        #expect(AttributeDescription(name: "name", type: .string).validate(.null) == nil)
        #expect(name.validate(.string("")) == nil)
    }

    @Test func wrongValueTypeIs1550() {
        #expect(code(AttributeDescription(name: "n", type: .integer32), .string("7")) == 1550)
        #expect(code(AttributeDescription(name: "d", type: .decimal), .double(1)) == 1550)
        #expect(code(AttributeDescription(name: "t", type: .transformable(transformerName: nil)), .data(Data())) == nil)
    }

    @Test func numbersOutOfBoundsAre1610And1620() {
        let age = AttributeDescription(
            name: "age", type: .integer16, validation: .init(minValue: .integer(0), maxValue: .integer(150)))
        #expect(code(age, .integer(151)) == 1610)  // NSValidationNumberTooLargeError
        #expect(code(age, .integer(-1)) == 1620)  // NSValidationNumberTooSmallError
        #expect(code(age, .integer(150)) == nil && code(age, .integer(0)) == nil)
        // The integer type's own range counts too.
        #expect(code(AttributeDescription(name: "n", type: .integer16), .integer(40_000)) == 1610)
        #expect(code(AttributeDescription(name: "n", type: .integer32), .integer(Int64(Int32.min) - 1)) == 1620)
        let ratio = AttributeDescription(
            name: "r", type: .double, validation: .init(minValue: .double(0), maxValue: .double(1)))
        #expect(
            code(ratio, .double(1.5)) == 1610 && code(ratio, .double(-0.1)) == 1620 && code(ratio, .double(0.5)) == nil)
        let price = AttributeDescription(name: "p", type: .decimal, validation: .init(minValue: .integer(1)))
        #expect(code(price, .decimal(Decimal(string: "0.99")!)) == 1620 && code(price, .decimal(1)) == nil)
    }

    @Test func datesOutOfBoundsAre1630And1640AndNonFiniteIs1650() {
        let start = Date(timeIntervalSinceReferenceDate: 0)
        let end = Date(timeIntervalSinceReferenceDate: 1000)
        let when = AttributeDescription(
            name: "when", type: .date, validation: .init(minValue: .date(start), maxValue: .date(end)))
        #expect(code(when, .date(Date(timeIntervalSinceReferenceDate: 1001))) == 1630)  // NSValidationDateTooLateError
        #expect(code(when, .date(Date(timeIntervalSinceReferenceDate: -1))) == 1640)  // NSValidationDateTooSoonError
        #expect(code(when, .date(Date(timeIntervalSinceReferenceDate: .nan))) == 1650)  // NSValidationInvalidDateError
        #expect(code(when, .date(Date(timeIntervalSinceReferenceDate: 500))) == nil)
    }

    @Test func stringRulesAre1660And1670And1680() {
        let code4 = AttributeDescription(
            name: "code", type: .string, validation: .init(minLength: 2, maxLength: 4, pattern: "[A-Z]+"))
        #expect(code(code4, .string("ABCDE")) == 1660)  // NSValidationStringTooLongError
        #expect(code(code4, .string("A")) == 1670)  // NSValidationStringTooShortError
        #expect(code(code4, .string("ab")) == 1680)  // NSValidationStringPatternMatchingError
        #expect(code(code4, .string("ABx")) == 1680)  // the pattern must match the whole string
        #expect(code(code4, .string("ABC")) == nil)
        // Length is NSString length (UTF-16 code units): one emoji counts 2.
        let short = AttributeDescription(name: "s", type: .string, validation: .init(maxLength: 1))
        #expect(code(short, .string("😀")) == 1660)
    }

    @Test func relationshipCountsAre1570And1580And1590() {
        let boss = RelationshipDescription(name: "boss", destination: "E", isOptional: false)
        #expect(boss.validateCount(0, entityName: "E")?.code == 1570)
        #expect(boss.validateCount(1) == nil)
        #expect(boss.validateCount(2)?.code == 1590)
        let team = RelationshipDescription.toMany("team", destination: "E", minCount: 2, maxCount: 3)
        #expect(team.validateCount(0) == nil)  // optional: empty is fine
        #expect(team.validateCount(1)?.code == 1580)  // NSValidationRelationshipLacksMinimumCountError
        #expect(team.validateCount(4)?.code == 1590)  // NSValidationRelationshipExceedsMaximumCountError
        #expect(team.validateCount(3) == nil)
        let required = RelationshipDescription.toMany("members", destination: "E", isOptional: false)
        #expect(required.validateCount(0)?.code == 1580)
    }

    @Test func denyDeleteIs1600() {
        let items = RelationshipDescription.toMany("items", destination: "Item", deleteRule: .deny)
        let error = items.validateDelete(relatedCount: 2, entityName: "Order", objectID: "o7")
        #expect(error?.code == 1600)
        #expect(error?.failure?.entity == "Order" && error?.failure?.objectID == "o7" && error?.failure?.key == "items")
        #expect(items.validateDelete(relatedCount: 0) == nil)
        #expect(
            RelationshipDescription.toMany("items", destination: "Item", deleteRule: .cascade).validateDelete(
                relatedCount: 2) == nil)
    }

    @Test func otherCodesAndObjectIDFilling() {
        let failure = ValidationFailure(entity: "Car", key: "numberPlate", message: "duplicate")
        #expect(CdError.constraintViolation(failure).code == 1551)
        #expect(CdError.validation(failure).code == 1550)
        #expect(CdError.multipleValidationErrors([.validation(failure)]).code == 1560)
        #expect(CdError.incompatibleModel(storeVersionHash: "a", modelVersionHash: "b", difference: nil).code == 134100)
        #expect(CdError.model(.duplicateEntity("A")).code == nil)
        let filled = CdError.multipleValidationErrors([.stringTooLong(failure)]).withObjectID("car-1")
        #expect(
            filled
                == .multipleValidationErrors([
                    .stringTooLong(
                        ValidationFailure(
                            entity: "Car", objectID: "car-1",
                            key: "numberPlate", message: "duplicate"))
                ]))
        #expect(CdError.stringTooLong(failure).description == "Car.numberPlate: duplicate (Core Data error 1660)")
    }
}
