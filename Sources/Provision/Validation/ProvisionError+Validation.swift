// The errors validation reports, in the same shape as every other ProvisionError: what is wrong, for
// which key, along which path, and how to fix it.
extension ProvisionError {
    /// A dependency nothing binds, explained by why: not bound at all, an empty multibinding, or a
    /// single value asked of a multibinding.
    static func unsatisfied(
        _ missing: BindingGraph.Missing,
        path: [BindingKey],
        neededBy: [BindingKey],
        in graph: BindingGraph
    ) -> ProvisionError {
        let key = missing.key
        let dependents = listing(neededBy)
        switch missing.reason {
        case .notBound:
            let plain = ProvisionError.notBound(key, path: path)
            return ProvisionError(
                code: .notBound,
                key: key,
                message: "no binding for \(key), needed by \(dependents)",
                hint: plain.hint,
                path: path
            )
        case .shutDown:
            return ProvisionError(
                code: .shutDown,
                key: key,
                message: "can't resolve \(key), needed by \(dependents): the injector or an ancestor was shut down",
                hint: ProvisionError.shutDown(key).hint,
                path: path
            )
        case .emptyMultibinding(let element):
            return emptyMultibinding(key, element: element, neededBy: neededBy, path: path)
        case .misdeclared(let error):
            return ProvisionError(
                code: error.code,
                key: key,
                message: "\(error.message), needed by \(dependents)",
                hint: error.hint,
                path: path
            )
        case .onlyMultibound(let collection):
            let count = graph.vertices[collection].shape.keys.count
            return onlyMultibound(key, elementCount: count, neededBy: neededBy, path: path)
        }
    }

    /// A list of `element` (`key`, an array type) that nothing is multibound for, needed by `neededBy`
    /// (none: a request for the list itself). Reported by validation and by a request alike.
    static func emptyMultibinding(
        _ key: BindingKey,
        element: any Any.Type,
        neededBy: [BindingKey],
        path: [BindingKey]
    ) -> ProvisionError {
        let elementType = TypeName.describe(element)
        let named = key.name.map { ", named: \"\($0)\"" } ?? ""
        let needs = needsPhrase(neededBy)
        return ProvisionError(
            code: .emptyMultibinding,
            key: key,
            message: "nothing is multibound for \(elementType)\(key.name.map { " named \"\($0)\"" } ?? ""), "
                + "but \(needs) [\(elementType)]",
            hint: "add an element with binder.multibind(\(TypeName.metatypeExpression(element))\(named)).to(...); "
                + "if an empty list is intended, bind it: binder.bind([\(elementType)].self\(named)).toInstance([])",
            path: path
        )
    }

    /// One value of `key`, needed by `neededBy` (none: a request for it), where `key` only has
    /// `elementCount` multibinding elements. Reported by validation and by a request alike.
    static func onlyMultibound(
        _ key: BindingKey,
        elementCount count: Int,
        neededBy: [BindingKey],
        path: [BindingKey]
    ) -> ProvisionError {
        let elementType = TypeName.describe(key.type)
        let named = key.name.map { ", named: \"\($0)\"" } ?? ""
        let needs = needsPhrase(neededBy)
        return ProvisionError(
            code: .ambiguousMultibinding,
            key: key,
            message: "\(needs) one \(key), but it only has \(count) multibinding element\(count == 1 ? "" : "s")",
            hint: "inject [\(elementType)] to get every element, or bind one: "
                + "binder.bind(\(TypeName.metatypeExpression(key.type))\(named)).to(...)",
            path: path
        )
    }

    /// A binding that would keep a shorter-lived binding's instance past its lifetime.
    static func captiveDependency(
        holder: BindingKey,
        holderLifetime: Lifetime,
        captive: BindingKey,
        captiveLifetime: Lifetime,
        path: [BindingKey],
        captiveIsSeed: Bool = false
    ) -> ProvisionError {
        if captiveIsSeed {
            // A seed exists only inside a scope: a longer-lived holder is built where there is none.
            return ProvisionError(
                code: .captiveDependency,
                key: captive,
                message: "\(holder) (\(holderLifetime)) depends on \(captive), which each scope is opened with "
                    + "(toSeed()): \(holder) is built outside any scope, where there is no \(captive)",
                hint: "make \(holder) scoped, or resolve \(captive) through the request's scope where it is used "
                    + "(scope.get(\(TypeName.metatypeExpression(captive.type)))) and pass it to \(holder)",
                path: path
            )
        }
        return ProvisionError(
            code: .captiveDependency,
            key: captive,
            message: "\(holder) (\(holderLifetime)) depends on \(captive) (\(captiveLifetime)), which lives shorter: "
                + "it would keep one \(captive) for its whole life",
            hint: "give \(holder) a lifetime no longer than \(captiveLifetime), or resolve \(captive) where it "
                + "is used (through the request's scope: scope.get(\(TypeName.metatypeExpression(captive.type)))) "
                + "and pass it to \(holder); a singleton's Provider belongs to no scope",
            path: path
        )
    }

    /// Every problem validation found, as one error.
    static func validationFailed(_ report: ValidationReport) -> ProvisionError {
        let count = report.problems.count
        var message = "\(count) problem\(count == 1 ? "" : "s") in a graph of \(report.bindingCount) bindings"
        if !report.uncheckedBindings.isEmpty {
            message += " (not statically checked: \(listing(report.uncheckedBindings)))"
        }
        let error = ProvisionError(
            code: .validationFailed,
            key: nil,
            message: message,
            hint: "fix each problem listed; all of them were found without building anything"
        )
        error.storage.underlying = report.problems
        return error
    }

    /// `A`, `A and B`, `A, B, C and 2 more`.
    /// "A needs", "A and B need", or "the request needs" when nothing else needs it.
    static func needsPhrase(_ neededBy: [BindingKey]) -> String {
        if neededBy.isEmpty { return "the request needs" }
        return "\(listing(neededBy)) \(neededBy.count == 1 ? "needs" : "need")"
    }

    static func listing(_ keys: [BindingKey], limit: Int = 3) -> String {
        let names = keys.prefix(limit).map(\.description)
        let rest = keys.count - names.count
        if rest > 0 { return names.joined(separator: ", ") + " and \(rest) more" }
        guard names.count > 1, let last = names.last else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and \(last)"
    }
}
