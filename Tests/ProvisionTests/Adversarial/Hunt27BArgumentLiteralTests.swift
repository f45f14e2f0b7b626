import Provision
import Testing

// Hunt 27B: the resolution side as users type it: `get(arguments:)` with literals, whose type the
// parameter pack infers from the literal alone (`7` is an `Int`, `"a"` a `String`); `withArguments`
// closures of several arities, service providers, lifecycle hooks written as synchronous closures,
// and `to(binding:)`.

struct Hunt27BScaled: Sendable {
    let factor: Double
}

struct Hunt27BInitial: Sendable {
    let letter: Character
}

struct Hunt27BSlice: Sendable {
    let text: Substring
}

struct Hunt27BTagged: Sendable {
    let tags: String
}

struct Hunt27BTagProvider: ServiceProvider {
    func provide(_ resolver: Resolver, arguments: String) throws -> Hunt27BTagged {
        Hunt27BTagged(tags: arguments)
    }
}

struct Hunt27BPairProvider: ServiceProvider {
    func provide(_ resolver: Resolver, arguments: (String, Int)) throws -> Hunt27BTagged {
        Hunt27BTagged(tags: String(repeating: arguments.0, count: arguments.1))
    }
}

final class Hunt27BServer: Sendable {
    let events: Hunt27BEvents

    init(events: Hunt27BEvents) {
        self.events = events
    }

    func start() { events.append("start") }
    func stop() { events.append("stop") }
}

final class Hunt27BEvents: Sendable {
    private let storage = Locked<[String]>([])

    func append(_ event: String) { storage.withLock { $0.append(event) } }
    var all: [String] { storage.withLock { $0 } }
}

@Suite("Hunt27B: resolution with literal arguments, argument closures, hooks", .timeLimit(.minutes(1)))
struct Hunt27BArgumentLiteralTests {
    /// Found by hunt 27B, fixed by saying so: ArgumentBindingBuilder said arguments are "converted as a
    /// call would convert them", and a call converts the literal `7` to a `Double`. A request can't: the
    /// pack `get<T, each Argument>(_:named:arguments:)` has no declared type to give the literal, which
    /// takes its default type, `Int`. The doc now says a literal is not converted, and the mismatch says
    /// why, with the fix.
    @Test("get(arguments: 7) for a Double argument: argumentMismatch that explains the literal's type")
    func integerLiteralForDouble() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BScaled.self).withArguments(Double.self).to { _, factor in
                    Hunt27BScaled(factor: factor)
                }
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt27BScaled.self, arguments: 7) }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("7 is an Int") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("write 7 as Double") == true)
        #expect(try injector.get(Hunt27BScaled.self, arguments: 7.0).factor == 7)
    }

    /// The same for string literals where `Character` or `Substring` is declared (a call converts
    /// `"a"` to either; a request passes a `String`): the mismatch explains the literal's type, and a
    /// `Character` or `Substring` value builds.
    @Test("get(arguments: \"a\") for Character and Substring arguments: the literal is a String")
    func stringLiteralForCharacterAndSubstring() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BInitial.self).withArguments(Character.self).to { _, letter in
                    Hunt27BInitial(letter: letter)
                }
                binder.bind(Hunt27BSlice.self).withArguments(Substring.self).to { _, text in
                    Hunt27BSlice(text: text)
                }
            })
        for error in [
            #expect(throws: ProvisionError.self) { try injector.get(Hunt27BInitial.self, arguments: "a") },
            #expect(throws: ProvisionError.self) { try injector.get(Hunt27BSlice.self, arguments: "abc") },
        ] {
            #expect(error?.code == .argumentMismatch)
            #expect(error?.message.contains("\"a\" a String") == true, "\(error?.message ?? "")")
        }
        #expect(try injector.get(Hunt27BInitial.self, arguments: "a" as Character).letter == "a")
        #expect(try injector.get(Hunt27BSlice.self, arguments: Substring("abc")).text == "abc")
    }

    /// Whatever the literal rule, the error must say what happened: the declared and the given types
    /// both appear, and the hint names the declared types. Also `7 as Double` (the user's fix) builds.
    @Test("a literal of the wrong default type: argumentMismatch names Double and Int; 7 as Double builds")
    func literalMismatchMessage() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BScaled.self).withArguments(Double.self).to { _, factor in
                    Hunt27BScaled(factor: factor)
                }
            })
        let error = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt27BScaled.self, arguments: Int(7))
        }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("(Double)") == true)
        #expect(error?.message.contains("(Int)") == true)
        #expect(error?.hint.contains("(Double)") == true)
        #expect(try injector.get(Hunt27BScaled.self, arguments: 7 as Double).factor == 7)
        #expect(try injector.get(Hunt27BScaled.self, arguments: 7.0).factor == 7)
    }

    /// ArgumentConversion: "A call converts a value to an optional of its type"; a typed `nil`
    /// (`Int?.none`) passes where `Int?` is declared (a bare `nil` doesn't compile: "'nil' requires a
    /// contextual type"), and a plain `Int` converts to the declared `Int?`.
    @Test("optional arguments: a typed nil and a plain value")
    func optionalArguments() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(String.self).withArguments(Int?.self).to { _, count in
                    count.map { String($0) } ?? "none"
                }
            })
        #expect(try injector.get(String.self, arguments: Int?.none) == "none")
        #expect(try injector.get(String.self, arguments: 3) == "3")
    }

    /// `withArguments` closures with `$0`/`$1` and with named parameters, one, two and three
    /// arguments, and service providers of one (its `Arguments` the type itself) and two arguments
    /// (a tuple), as ServiceProvider's documentation shows.
    @Test("withArguments closures of several arities and service providers")
    func argumentClosureArities() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).withArguments(Int.self).to { $1 * 2 }
                binder.bind(Int.self).withArguments(Int.self, Int.self).to { _, first, second in first + second }
                binder.bind(Int.self).withArguments(String.self, Int.self, Bool.self)
                    .to { _, text, count, flag in flag ? text.count * count : 0 }
                binder.bind(Hunt27BTagged.self).withArguments(String.self).to(provider: Hunt27BTagProvider())
                binder.bind(Hunt27BTagged.self, named: "pair").withArguments(String.self, Int.self)
                    .to(provider: Hunt27BPairProvider())
            })
        #expect(try injector.get(Int.self, arguments: 21) == 42)
        #expect(try injector.get(Int.self, arguments: 40, 2) == 42)
        #expect(try injector.get(Int.self, arguments: "abc", 2, true) == 6)
        #expect(try injector.get(Hunt27BTagged.self, arguments: "t").tags == "t")
        #expect(try injector.get(Hunt27BTagged.self, named: "pair", arguments: "ab", 2).tags == "abab")
    }

    /// LifecycleBuilder: `onStart`/`onStop` take `async throws` closures; synchronous, non-throwing
    /// bodies (`{ $0.start() }`, `{ server in server.stop() }`) convert, after `.in(.singleton)` and
    /// after `asEagerSingleton()`. start() runs the start hook, shutdown() the stop hook.
    @Test("synchronous hook closures on .in(.singleton) run at start and shutdown")
    func synchronousHooks() async throws {
        let events = Hunt27BEvents()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEvents.self).toInstance(events)
                binder.bind(Hunt27BServer.self).to(Hunt27BServer.init).in(.singleton)
                    .onStart { $0.start() }
                    .onStop { server in server.stop() }
            })
        try await injector.start()
        #expect(events.all == ["start"])
        try await injector.shutdown()
        #expect(events.all == ["start", "stop"])
    }

    /// BindingBuilder.to(binding:): "The conversion is checked each time the value is built (a dynamic
    /// cast); a value that does not convert throws ``ProvisionError/Code/typeMismatch``". A delegation
    /// to a conforming type resolves; one to an unrelated type compiles and fails with `typeMismatch`
    /// naming the bound type.
    @Test("to(binding:) to a conforming type, and to an unrelated type: typeMismatch")
    func delegation() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEnglish.self).toInstance(Hunt27BEnglish())
                binder.bind((any Hunt27BGreeter).self).to(binding: Hunt27BEnglish.self).in(.singleton)
                binder.bind(Int.self).toInstance(3)
                binder.bind(String.self).to(binding: Int.self)
            })
        #expect(try injector.get((any Hunt27BGreeter).self).greeting == "hello")
        let error = #expect(throws: ProvisionError.self) { try injector.get(String.self) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.message.contains("String") == true)
    }
}
