import Hummingbird

/// A request context that can hand a request its ``TodoService`` and ``UnitOfWork``: resolved from
/// the request's scope in the Provision wiring, made by hand in the other.
protocol TodoContext: RequestContext {
    /// The request's service.
    func todoService() throws -> TodoService
    /// The request's unit of work.
    func unitOfWork() throws -> UnitOfWork
}
