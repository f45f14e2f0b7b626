/// The identity of a built instance, when it is an object: how lifecycle actions and disposal records
/// tell one instance bound under two keys (a singleton and a delegation to it, a closure returning
/// another singleton) from two instances, so that it is started, stopped and disposed once. A value of
/// a value type has no identity to share between keys.
enum InstanceIdentity {
    /// The identity of `value` (a dynamic check of its type: `T` may be a protocol or `Any`).
    static func of(_ value: Any) -> ObjectIdentifier? {
        type(of: value) is AnyObject.Type ? ObjectIdentifier(value as AnyObject) : nil
    }
}
