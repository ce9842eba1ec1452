// The one error type of the object store (`CdObjects`): validation failures with Core Data's
// codes, model errors, an incompatible model, and engine failures passed up from `CdStore`.
//
// Codes are Core Data's `NSCocoaErrorDomain` values from CoreDataErrors.h (each case below names
// its constant; for instance NSValidationNumberTooLargeError = 1610,
// NSValidationNumberTooSmallError = 1620, NSValidationDateTooLateError = 1630,
// NSValidationDateTooSoonError = 1640). docs/MODEL.md lists them with what produces each.

import CdStore

/// Where a validation failure happened: which entity, which object, which key, and why.
///
/// `objectID` is a plain description so that the record layer can fill it in with whatever
/// identifies the object (an object ID URI, a primary key); the model layer leaves it `nil`.
public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
    /// The entity whose object failed validation.
    public var entity: String
    /// A description of the object, when the caller knows it.
    public var objectID: String?
    /// The attribute or relationship name; for uniqueness, the constraint's properties joined by ",".
    public var key: String
    /// A sentence for humans.
    public var message: String
    /// The call that met the failure (`Cd.commit()`, the implicit commit of a transaction), when
    /// the layer that throws it knows; nil in the object store, which knows no caller.
    public var call: String?

    /// A failure of `key` on an object of `entity`, met by `call`.
    public init(entity: String, objectID: String? = nil, key: String, message: String, call: String? = nil) {
        self.entity = entity
        self.objectID = objectID
        self.key = key
        self.message = message
        self.call = call
    }

    /// `Note (Note/3).title: a value is required, in Cd.commit()`.
    public var description: String {
        let object = objectID.map { " (\($0))" } ?? ""
        let at = call.map { ", in \($0)" } ?? ""
        return "\(entity)\(object).\(key): \(message)\(at)"
    }
}

/// A failure of the object store.
///
/// Validation cases carry a ``ValidationFailure`` and have Core Data's code in ``code``:
///
/// ```swift
/// if let error = attribute.validate(.null, entityName: "Employee"), error.code == 1570 {
///     print(error)  // Employee.name: a value is required (Core Data error 1570)
/// }
/// ```
public enum CdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1550 NSManagedObjectValidationError: generic validation failure (wrong value type, a
    /// custom validation returned false).
    case validation(ValidationFailure)
    /// 1551 NSManagedObjectConstraintValidationError: a uniqueness constraint was violated.
    case constraintViolation(ValidationFailure)
    /// 1560 NSValidationMultipleErrorsError: several validation errors at once.
    case multipleValidationErrors([CdError])
    /// 1570 NSValidationMissingMandatoryPropertyError: a required attribute or relationship is nil.
    case missingMandatoryProperty(ValidationFailure)
    /// 1580 NSValidationRelationshipLacksMinimumCountError.
    case relationshipLacksMinimumCount(ValidationFailure)
    /// 1590 NSValidationRelationshipExceedsMaximumCountError.
    case relationshipExceedsMaximumCount(ValidationFailure)
    /// 1600 NSValidationRelationshipDeniedDeleteError: a Deny delete rule blocked a delete.
    case relationshipDeniedDelete(ValidationFailure)
    /// 1610 NSValidationNumberTooLargeError.
    case numberTooLarge(ValidationFailure)
    /// 1620 NSValidationNumberTooSmallError.
    case numberTooSmall(ValidationFailure)
    /// 1630 NSValidationDateTooLateError.
    case dateTooLate(ValidationFailure)
    /// 1640 NSValidationDateTooSoonError.
    case dateTooSoon(ValidationFailure)
    /// 1650 NSValidationInvalidDateError: the date is not a finite point in time.
    case invalidDate(ValidationFailure)
    /// 1660 NSValidationStringTooLongError.
    case stringTooLong(ValidationFailure)
    /// 1670 NSValidationStringTooShortError.
    case stringTooShort(ValidationFailure)
    /// 1680 NSValidationStringPatternMatchingError.
    case stringPatternMismatch(ValidationFailure)
    /// The entity model is invalid (Core Data raises an exception here; no error code).
    case model(ModelError)
    /// 134100 NSPersistentStoreIncompatibleVersionHashError: the store was written with a model
    /// of another stored shape. `difference` names the first difference in words.
    case incompatibleModel(storeVersionHash: String, modelVersionHash: String, difference: String?)
    /// The storage engine failed underneath (I/O, corruption, locking).
    case store(StoreError)
    /// The store's object layout (`cd.meta` key `format`) is newer than this build reads.
    case unsupportedObjectFormat(path: String, found: UInt32, supported: UInt32)
    /// 133020 NSManagedObjectMergeError: under ``MergePolicy/error``, objects that another
    /// transaction changed or deleted after this one read them; nothing was written.
    case mergeConflict([MergeConflict])
    /// 134301 NSPersistentHistoryTokenExpiredError: the history after `token` is no longer
    /// whole (transactions after it were deleted, or the token is of another store or of the
    /// store before a migration started its history anew); read the objects again instead.
    case persistentHistoryTokenExpired(token: CdHistoryToken, reason: String)

    /// Core Data's `NSCocoaErrorDomain` code for this failure, or `nil` when Core Data has none
    /// (model errors are exceptions there).
    public var code: Int? {
        switch self {
        case .validation: return 1550
        case .constraintViolation: return 1551
        case .multipleValidationErrors: return 1560
        case .missingMandatoryProperty: return 1570
        case .relationshipLacksMinimumCount: return 1580
        case .relationshipExceedsMaximumCount: return 1590
        case .relationshipDeniedDelete: return 1600
        case .numberTooLarge: return 1610
        case .numberTooSmall: return 1620
        case .dateTooLate: return 1630
        case .dateTooSoon: return 1640
        case .invalidDate: return 1650
        case .stringTooLong: return 1660
        case .stringTooShort: return 1670
        case .stringPatternMismatch: return 1680
        case .incompatibleModel: return 134100
        case .store: return 134060  // NSCoreDataError: generic store failure
        case .unsupportedObjectFormat: return 134020  // NSPersistentStoreIncompatibleSchemaError
        case .mergeConflict: return 133020
        case .persistentHistoryTokenExpired: return 134301
        case .model: return nil
        }
    }

    /// The validation details, for the cases that have them.
    public var failure: ValidationFailure? {
        switch self {
        case let .validation(f), let .constraintViolation(f), let .missingMandatoryProperty(f),
            let .relationshipLacksMinimumCount(f), let .relationshipExceedsMaximumCount(f),
            let .relationshipDeniedDelete(f), let .numberTooLarge(f), let .numberTooSmall(f),
            let .dateTooLate(f), let .dateTooSoon(f), let .invalidDate(f), let .stringTooLong(f),
            let .stringTooShort(f), let .stringPatternMismatch(f):
            return f
        case .unsupportedObjectFormat, .mergeConflict, .persistentHistoryTokenExpired: return nil
        case .multipleValidationErrors, .model, .incompatibleModel, .store:
            return nil
        }
    }

    /// The same error with the object identifier filled in (the record layer knows it, the
    /// model layer does not). Errors without a ``ValidationFailure`` are returned unchanged.
    public func withObjectID(_ objectID: String) -> CdError {
        mappingFailures { f in
            var f = f
            f.objectID = objectID
            return f
        }
    }

    /// The same error saying which call met it (``ValidationFailure/call``); errors without a
    /// ``ValidationFailure`` are returned unchanged, and a call already named is kept.
    ///
    /// ```swift
    /// catch let error as CdError { throw error.during("Cd.commit()") }
    /// ```
    public func during(_ call: String) -> CdError {
        mappingFailures { f in
            var f = f
            if f.call == nil { f.call = call }
            return f
        }
    }

    /// The same error with `change` applied to its ``ValidationFailure`` (to each, for several).
    private func mappingFailures(_ change: (ValidationFailure) -> ValidationFailure) -> CdError {
        switch self {
        case let .validation(f): return .validation(change(f))
        case let .constraintViolation(f): return .constraintViolation(change(f))
        case let .missingMandatoryProperty(f): return .missingMandatoryProperty(change(f))
        case let .relationshipLacksMinimumCount(f): return .relationshipLacksMinimumCount(change(f))
        case let .relationshipExceedsMaximumCount(f): return .relationshipExceedsMaximumCount(change(f))
        case let .relationshipDeniedDelete(f): return .relationshipDeniedDelete(change(f))
        case let .numberTooLarge(f): return .numberTooLarge(change(f))
        case let .numberTooSmall(f): return .numberTooSmall(change(f))
        case let .dateTooLate(f): return .dateTooLate(change(f))
        case let .dateTooSoon(f): return .dateTooSoon(change(f))
        case let .invalidDate(f): return .invalidDate(change(f))
        case let .stringTooLong(f): return .stringTooLong(change(f))
        case let .stringTooShort(f): return .stringTooShort(change(f))
        case let .stringPatternMismatch(f): return .stringPatternMismatch(change(f))
        case let .multipleValidationErrors(list):
            return .multipleValidationErrors(list.map { $0.mappingFailures(change) })
        case .model, .incompatibleModel, .store, .unsupportedObjectFormat, .mergeConflict,
            .persistentHistoryTokenExpired:
            return self
        }
    }

    /// What failed, naming the entity, the object, the key and (when known) the call, with Core
    /// Data's code: `Note (Note/3).title: a value is required, in Cd.commit() (Core Data error 1570)`.
    public var description: String {
        let suffix = code.map { " (Core Data error \($0))" } ?? ""
        switch self {
        case let .multipleValidationErrors(list):
            return "\(list.count) validation errors: " + list.map(\.description).joined(separator: "; ") + suffix
        case let .model(error):
            return "invalid model: \(error)"
        case let .incompatibleModel(storeHash, modelHash, difference):
            let why = difference.map { ": \($0)" } ?? ""
            return
                "the model (version hash \(modelHash)) is incompatible with the store's (\(storeHash))\(why)\(suffix)"
        case let .store(error):
            return "store failure: \(error)\(suffix)"
        case let .unsupportedObjectFormat(path, found, supported):
            return "store \(path) has object format \(found); this build reads object format \(supported)\(suffix)"
        case let .mergeConflict(conflicts):
            return "merge conflict (error merge policy) on \(conflicts.count) object(s): "
                + conflicts.map(\.description).joined(separator: "; ") + suffix
        case let .persistentHistoryTokenExpired(token, reason):
            return "history token \(token) has expired: \(reason)\(suffix)"
        default:
            return (failure?.description ?? "") + suffix
        }
    }
}
