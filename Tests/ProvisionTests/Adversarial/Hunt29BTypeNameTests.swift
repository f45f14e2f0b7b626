import Testing

@testable import Provision

// MARK: - Fixtures

/// A handler that runs on its caller's actor: Swift 6's spelling of "inherit the caller's isolation".
typealias Hunt29BIsolatedHandler = @Sendable (isolated (any Actor)?) async -> Void

/// A callback that takes ownership of a non-Sendable-safe value across isolation domains (SE-0430).
typealias Hunt29BSendingCallback = @Sendable (sending Hunt29BPool) -> Void

final class Hunt29BRouter: Sendable {
    let handler: Hunt29BIsolatedHandler
    init(handler: @escaping Hunt29BIsolatedHandler) {
        self.handler = handler
    }
}

final class Hunt29BMailbox: Sendable {
    let deliver: Hunt29BSendingCallback
    init(deliver: @escaping Hunt29BSendingCallback) {
        self.deliver = deliver
    }
}

// MARK: - Tests

/// README.md: "Errors that say what to do: one `ProvisionError` with a `code`, the key in Swift syntax,
/// the path". TypeName.swift: "Renders types the way Swift source spells them ... `String(describing:)`
/// prints an existential such as `any Store` as plain `Store`, which reads like a concrete type".
@Suite("Hunt 29B: Swift 6 isolation and ownership spellings in keys and errors")
struct Hunt29BTypeNameTests {
    @Test("an isolated existential parameter keeps its any: isolated (any Actor)?")
    func isolatedExistential() {
        // Found by hunt 29B, fixed: rendered "@Sendable (isolated Actor?) async -> ()". `TypeName.isProtocol`
        // refused `Swift.Actor`, which the runtime also finds when asked for a struct of that name.
        let optional = BindingKey(Hunt29BIsolatedHandler.self).description
        #expect(optional.contains("isolated (any Actor)?"), "\(optional)")
        let plain = BindingKey((@Sendable (isolated any Actor) async -> Void).self).description
        #expect(plain.contains("isolated any Actor"), "\(plain)")
    }

    @Test("a sending parameter is spelled as source spells it, with no __owned")
    func sendingParameter() {
        // Found by hunt 29B, fixed: rendered "@Sendable (sending __owned Hunt29BPool) -> ()", the runtime's
        // ownership marker; the rewriter spells `sending`, `consuming` and `borrowing` as source does.
        let name = BindingKey(Hunt29BSendingCallback.self).description
        #expect(name == "@Sendable (sending Hunt29BPool) -> ()", "\(name)")
        let existential = BindingKey((@Sendable (sending any Hunt29BDB) -> Void).self).description
        #expect(existential == "@Sendable (sending any Hunt29BDB) -> ()", "\(existential)")
    }

    @Test("the missing handler's error names its type in Swift syntax, with the path")
    func missingIsolatedHandlerError() {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                modules: [
                    ClosureModule { binder in
                        binder.bind(Hunt29BRouter.self).to(Hunt29BRouter.init(handler:))
                        binder.bind(Hunt29BMailbox.self).to(Hunt29BMailbox.init(deliver:))
                    }
                ],
                configuration: Injector.Configuration(validatesOnCreation: false)
            ).get(Hunt29BRouter.self)
        }
        #expect(error?.code == .notBound)
        #expect(error?.path == [BindingKey(Hunt29BRouter.self), BindingKey(Hunt29BIsolatedHandler.self)])
        // Found by hunt 29B, fixed: the path read "Hunt29BRouter -> (@Sendable (isolated Actor?) async -> ())".
        #expect(error?.pathDescription.contains("isolated (any Actor)?") == true, "\(error?.pathDescription ?? "")")
    }

    @Test("ownership the runtime keeps is never printed as __owned")
    func noUnderscoredOwnership() {
        #expect(BindingKey((@Sendable (consuming Hunt29BPool) -> Void).self).description.contains("(consuming "))
        let names = [
            BindingKey(Hunt29BSendingCallback.self).description,
            BindingKey((@Sendable (sending any Hunt29BDB) -> Void).self).description,
            BindingKey((@Sendable (consuming Hunt29BPool) -> Void).self).description,
        ]
        for name in names {
            // Found by hunt 29B, fixed: "__owned" (an underscored, pre-SE-0377 spelling) appeared in each.
            #expect(!name.contains("__owned"), "\(name)")
        }
    }
}
