/// Renders types the way Swift source spells them, for error messages and diagrams.
///
/// `String(describing:)` prints an existential such as `any Store` as plain `Store`, which reads like a
/// concrete type in an error message, and spells out `Optional<Dog>`, `Array<Dog>` and
/// `Dictionary<String, Dog>` where source writes `Dog?`, `[Dog]` and `[String: Dog]`. The runtime's
/// metadata kind tells an existential apart: it is the first word of every type's metadata, and its
/// values are part of Swift's stable ABI; the sugared types are recognised through their metatypes.
enum TypeName {
    /// Metadata kinds from the Swift ABI (`MetadataKind` in the runtime's `MetadataValues.h`).
    private static let existentialKind: UInt = 0x303
    private static let metatypeKind: UInt = 0x304
    private static let existentialMetatypeKind: UInt = 0x306
    private static let extendedExistentialKind: UInt = 0x307

    static func describe(_ type: any Any.Type) -> String {
        if let optional = type as? any OptionalType.Type {
            let wrapped = describe(optional.wrappedType)
            return needsParentheses(wrapped) ? "(\(wrapped))?" : "\(wrapped)?"
        }
        // `[any Plugin]`, where the runtime prints `Array<Plugin>`.
        if let array = type as? any ArrayType.Type {
            return "[\(describe(array.elementType))]"
        }
        if let dictionary = type as? any DictionaryType.Type {
            return "[\(describe(dictionary.keyType)): \(describe(dictionary.valueType))]"
        }
        switch metadataKind(of: type) {
        case extendedExistentialKind where extendedExistentialMetatypeName(of: type) != nil:
            return extendedExistentialMetatypeName(of: type) ?? ""
        case metatypeKind:
            // Spelled from its instance type: the runtime can't print the metatype of a protocol with
            // primary associated types, `(any Store<User>).Type`, (see `TypeName+ExtendedExistential`).
            let instance = describe(
                unsafeBitCast(
                    unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UnsafeRawPointer.self),
                    to: Any.Type.self))
            return needsParentheses(instance) || instance.contains(" & ") ? "(\(instance)).Type" : "\(instance).Type"
        case existentialKind, extendedExistentialKind:
            let name = qualifiedName(of: type)
            // `Any` and `AnyObject` are spelled without `any` in practice.
            if name == "Any" || name == "AnyObject" || name.hasPrefix("any ") { return name }
            return "any \(name)"
        case existentialMetatypeKind:
            // Spelled from its instance type (the word after its kind), never reflected whole: the
            // reflected `Any.Type` would lose `Any` as if it were a module's name (found by hunt 25B:
            // "any Type"), and reflecting the metatype of a protocol with primary associated types
            // (`any Store<User>.Type`) crashes the Swift 6.3 runtime (found by hunt 28B).
            let instance = describe(
                unsafeBitCast(
                    unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 8, as: UnsafeRawPointer.self),
                    to: Any.Type.self))
            if instance == "Any" || instance == "AnyObject" { return "\(instance).Type" }
            let protocols = instance.hasPrefix("any ") ? instance.dropFirst(4) : Substring(instance)
            return protocols.contains("&") ? "any (\(protocols)).Type" : "any \(protocols).Type"
        default:
            return qualifiedName(of: type)
        }
    }

    /// The type as a metatype expression in source: `Car.self`, `(any Store).self`, `Car?.self`.
    /// The type's name as it is written outside its module: with the types it is nested in
    /// (`Payments.Config`, where `String(describing:)` prints `Config` for both `Payments.Config` and
    /// `Storage.Config`), and without module names (`Box<Int>`, not `Shop.Box<Swift.Int>`).
    ///
    /// A type private to a file, or local to a function, prints an unspellable context in its place
    /// (`(Config in _4C7A...)`, `(unknown context at $...)`): such names keep the short form.
    static func qualifiedName(of type: any Any.Type) -> String {
        let reflected = String(reflecting: type)
        guard reflected.contains("."), !reflected.contains("(unknown context at "), !reflected.contains(" in _") else {
            // Rewritten too, for the parameters' ownership (`sending`, not `sending __owned`).
            var rewriter = Rewriter(String(describing: type))
            return rewriter.rewrite()
        }
        // A type inside another (a generic argument, a tuple's or function's, a metatype's): the runtime
        // spells `Repository<any Store>` as `Repository<Store>` and `Lazy<[Int?]>` as
        // `Lazy<Array<Optional<Int>>>`. (Found by hunt 17.)
        var rewriter = Rewriter(reflected)
        return withoutModules(rewriter.rewrite())
    }

    /// Rewrites the runtime's spelling of a type (with modules) the way source spells it: `any` before
    /// every protocol, `X?`, `[X]` and `[K: V]` for the standard library's optionals, arrays and
    /// dictionaries, and `(any P).Type` for a protocol's metatype (`P.Protocol` to the runtime).
    private struct Rewriter {
        private let text: [Character]
        private var position = 0

        init(_ text: String) {
            self.text = Array(text)
        }

        mutating func rewrite() -> String {
            var output = ""
            while position < text.count {
                output += element()
            }
            return output
        }

        /// One piece: a name with its generic arguments and member suffixes, or one other character.
        private mutating func element() -> String {
            let character = text[position]
            if character == "-", position + 1 < text.count, text[position + 1] == ">" {
                position += 2
                return "->"
            }
            guard isNameStart(character) else {
                position += 1
                return String(character)
            }
            let start = position
            while position < text.count, isNameCharacter(text[position]) { position += 1 }
            var name = String(text[start..<position])
            if position < text.count, text[position] == "<" {
                let generic = sugared(name, arguments()) + suffix()
                return composed(generic, at: start)
            }
            // `Store.Protocol`, `Store.Type`: the metatype's suffix, read with the name.
            var member = ""
            while true {
                if name.hasSuffix(".Type") {
                    member = ".Type" + member
                    name.removeLast(5)
                } else if name.hasSuffix(".Protocol") {
                    member = ".Protocol" + member
                    name.removeLast(9)
                } else {
                    break
                }
            }
            // `Store.Protocol`: the metatype of the existential, `(any Store).Type` in source.
            if member.hasPrefix(".Protocol"), TypeName.isProtocol(named: name) {
                return "(any \(name)).Type" + member.dropFirst(".Protocol".count)
            }
            if name == "__owned" || name == "__shared" { return ownership(name, at: start) }
            if keywords.contains(name) { return name }
            if TypeName.isProtocol(named: name), !followsAnyOrComposition(start) {
                name = "any " + name
                return name + member
            }
            return composed(name + member, at: start)
        }

        /// A parameter's ownership as source spells it: the runtime prints a `consuming` parameter as
        /// `__owned`, a `borrowing` one (of an initializer) as `__shared`, and a `sending` one as
        /// `sending __owned`, where `sending` says it all. (Found by hunt 29B.)
        private mutating func ownership(_ keyword: String, at start: Int) -> String {
            guard keyword == "__owned" else { return "borrowing" }
            let before = start >= 8 ? String(text[(start - 8)..<start]) : ""
            guard before == "sending " else { return "consuming" }
            // The space after `__owned` goes with it.
            if position < text.count, text[position] == " " { position += 1 }
            return ""
        }

        /// A generic argument list, from its `<` to its `>`: each argument rewritten. Commas inside
        /// parentheses (a tuple's, a function's) and braces (a parameter pack's, `Pack{Int, String}`)
        /// separate nothing here; a nested type's own arguments are read by `element`.
        private mutating func arguments() -> [String] {
            // The opening "<".
            position += 1
            var arguments: [String] = []
            var current = ""
            var depth = 0
            while position < text.count, depth > 0 || text[position] != ">" {
                switch text[position] {
                case "," where depth == 0:
                    arguments.append(current.trimmingSpaces())
                    current = ""
                    position += 1
                case "(", "{":
                    depth += 1
                    current += element()
                case ")", "}":
                    depth -= 1
                    current += element()
                default:
                    current += element()
                }
            }
            // The closing ">".
            position += 1
            arguments.append(current.trimmingSpaces())
            return arguments
        }

        /// What follows a type's generic arguments: `.Type`, `.Protocol`, or nested names, each with its
        /// own generic arguments (`Outer<Int>.Inner<String>`). (Found by hunt 28B: `Inner`'s arguments
        /// were read as the enclosing type's, so `Box<Outer<Int>.Inner<String>?>` was spelled
        /// `Box<Outer<Int>.Inner<String?>>`.)
        private mutating func suffix() -> String {
            var result = ""
            while position < text.count, text[position] == "." {
                let start = position
                position += 1
                while position < text.count, isNameCharacter(text[position]), text[position] != "." {
                    position += 1
                }
                result += String(text[start..<position])
                if position < text.count, text[position] == "<" {
                    result += "<\(arguments().joined(separator: ", "))>"
                }
            }
            return result
        }

        /// `name`, with `any` before it when it is a composition's first member that is not a protocol
        /// (`any Base & Audited`, a class constraint first), which the runtime spells without `any`.
        /// (Found by hunt 28B: `Box<any Base & Audited>` was spelled `Box<Base & Audited>`.)
        private func composed(_ name: String, at start: Int) -> String {
            let next = position + 3 <= text.count ? String(text[position..<position + 3]) : ""
            guard next == " & ", !followsAnyOrComposition(start) else { return name }
            return "any " + name
        }

        /// Whether the name at `start` already has `any` before it, or is a later member of a
        /// composition (`any P & Q` takes one `any`).
        private func followsAnyOrComposition(_ start: Int) -> Bool {
            let before = String(text[max(0, start - 4)..<start])
            return before == "any " || before.hasSuffix("& ")
        }

        private func sugared(_ name: String, _ arguments: [String]) -> String {
            switch (name, arguments.count) {
            case ("Swift.Optional", 1):
                let wrapped = arguments[0]
                return TypeName.needsParentheses(wrapped) || wrapped.contains(" & ") ? "(\(wrapped))?" : "\(wrapped)?"
            case ("Swift.Array", 1):
                return "[\(arguments[0])]"
            case ("Swift.Dictionary", 2):
                return "[\(arguments[0]): \(arguments[1])]"
            default:
                if arguments.allSatisfy({ $0.hasPrefix("Self.") && $0.contains(" == ") }) {
                    // A protocol's primary associated types, which the runtime spells as constraints
                    // (`any Store<Self.Store.Element == User>`). (Found by hunt 28B.)
                    let values = arguments.map { TypeName.constrainedValue(of: $0) }
                    return "\(name)<\(values.joined(separator: ", "))>"
                }
                // A parameter pack's elements, which the runtime wraps (`Pack{Int, String}`), are the
                // type's arguments in source. (Found by hunt 28B.)
                let unpacked = arguments.map { argument in
                    argument.hasPrefix("Pack{") && argument.hasSuffix("}")
                        ? String(argument.dropFirst(5).dropLast()) : argument
                }
                return "\(name)<\(unpacked.joined(separator: ", "))>"
            }
        }

        private let keywords: Set<String> = ["any", "some", "throws", "async", "inout", "sending", "isolated"]

        private func isNameStart(_ character: Character) -> Bool {
            character.isLetter || character == "_" || character == "$"
        }

        private func isNameCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_" || character == "$" || character == "."
        }
    }

    /// Whether `qualified` (`Module.Name`, as the runtime prints it) names a protocol: looked up by its
    /// mangled name as a protocol, and not found as a struct, class or enum (the standard library's
    /// lookup finds `Swift.Int` as either). Cached: only error messages and reports ask, a few names each.
    static func isProtocol(named qualified: String) -> Bool {
        if let known = protocolNames.withLock({ $0[qualified] }) { return known }
        let parts = qualified.split(separator: ".")
        var answer = false
        // `Module.Name`, or a protocol nested in types (`Module.Billing.Gateway`), whose mangled name
        // spells each enclosing type's kind: each is tried. (Found by hunt 28B: nested protocols lost
        // their `any`.) Three levels of nesting at most, 9 lookups.
        if (2...4).contains(parts.count) {
            let mangled = parts.map { "\($0.utf8.count)\($0)" }
            var contexts = [mangled[0]]
            for enclosing in mangled.dropFirst().dropLast() {
                contexts = contexts.flatMap { context in ["V", "C", "O"].map { context + enclosing + $0 } }
            }
            let last = mangled[mangled.count - 1]
            answer = contexts.contains { context in
                let prefix = context + last
                guard let type = _typeByName(prefix + "P") else { return false }
                // A lookup by another kind finds no other type (the runtime answers some of them, such
                // as `5Swift5ActorV`, with the protocol itself: found by hunt 29B, where
                // `isolated (any Actor)?` lost its `any`).
                return [existentialKind, extendedExistentialKind].contains(metadataKind(of: type))
                    && ["V", "C", "O"].allSatisfy { kind in _typeByName(prefix + kind).map { $0 == type } ?? true }
            }
        }
        protocolNames.withLock { $0[qualified] = answer }
        return answer
    }

    private static let protocolNames = Locked<[String: Bool]>([:])

    /// The type after ` == ` in a same-type constraint (`Self.Store.Element == User`); the whole text
    /// without one.
    fileprivate static func constrainedValue(of constraint: String) -> String {
        let characters = Array(constraint)
        for index in characters.indices.dropLast(3)
        where characters[index] == " " && characters[index + 1] == "=" && characters[index + 2] == "="
            && characters[index + 3] == " "
        {
            return String(characters[(index + 4)...])
        }
        return constraint
    }

    /// `reflected` with the first component of each dotted name removed: the runtime spells every
    /// nominal type, generic arguments included, from its module (`Swift.Array<Shop.Item>.Type`).
    static func withoutModules(_ reflected: String) -> String {
        var result = ""
        result.reserveCapacity(reflected.utf8.count)
        func append(_ word: Substring) {
            // A word that starts with a dot follows a parenthesized type (`((Int) -> ()).Type`). The
            // runtime spells `Any`'s metatype without a module (`Any.Type`, `Any.Protocol`), so its
            // first part is no module. (Found by hunt 26B: `Box<Any.Type>` was spelled `Box<Type>`.)
            guard !word.hasPrefix("."), !word.hasPrefix("Any."), let dot = word.firstIndex(of: ".") else {
                result += word
                return
            }
            result += word[word.index(after: dot)...]
        }
        var start = reflected.startIndex
        for index in reflected.indices {
            let character = reflected[index]
            if character.isLetter || character.isNumber || character == "_" || character == "." || character == "$" {
                continue
            }
            append(reflected[start..<index])
            result.append(character)
            start = reflected.index(after: index)
        }
        append(reflected[start...])
        return result
    }

    static func metatypeExpression(_ type: any Any.Type) -> String {
        let name = describe(type)
        return needsParentheses(name) ? "(\(name)).self" : "\(name).self"
    }

    /// Whether a type's name must be parenthesized before a postfix `?` or `.self`: an existential
    /// (`any Store`) or a function type (`() -> Int`).
    fileprivate static func needsParentheses(_ name: String) -> Bool {
        name.hasPrefix("any ") || name.hasPrefix("some ") || name.contains("->")
    }

    /// Whether a type's name is a function type's: an arrow outside any brackets (`(Int) -> String`,
    /// `@Sendable () async throws -> Int`, not `Box<() -> Int>` or `(() -> Int)?`).
    static func isFunction(_ name: String) -> Bool {
        var depth = 0
        var previous: Character = " "
        for character in name {
            switch character {
            case "(", "<", "[": depth += 1
            case ")", "]": depth -= 1
            case ">" where previous != "-": depth -= 1
            case ">" where depth == 0: return true
            default: break
            }
            previous = character
        }
        return false
    }

    /// The kind of `type`'s metadata (0 for a class); shared with `ArgumentConversion`.
    static func metadataKind(of type: any Any.Type) -> UInt {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        // Class metadata starts with an isa pointer (any value above the last kind) instead of a kind.
        return kind > 0x7FF ? 0 : kind
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var result = Substring(self)
        while result.first == " " { result.removeFirst() }
        while result.last == " " { result.removeLast() }
        return String(result)
    }
}
