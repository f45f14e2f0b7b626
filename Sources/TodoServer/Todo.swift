import Foundation
import Hummingbird

/// One to-do item, as stored in the `todos` table and sent as JSON.
struct Todo: ResponseCodable, Sendable, Equatable {
    /// The item's identifier, made by the server when the item is created.
    var id: UUID
    /// What to do.
    var title: String
    /// Whether it is done.
    var done: Bool
}

/// The body of `POST /todos`.
struct NewTodo: Decodable, Sendable {
    /// What to do; at most 200 characters.
    var title: String
}

/// The body of `PATCH /todos/:id`.
struct TodoChange: Decodable, Sendable {
    /// Whether the item is done.
    var done: Bool
}
