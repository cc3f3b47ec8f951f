#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock: the only way to reach it is `withLock`. `package`: the events module
/// guards its subscriber lists with it too.
///
/// The state and its `pthread_mutex_t` live in one allocation (the mutex in a `ManagedBuffer`'s
/// elements, whose address is stable), which makes a handler much cheaper to create and destroy
/// than with a separate `NSLock` object. `withLock` is inlinable so that generic callers in other
/// modules (events sent from a client) are specialized rather than called through metadata.
@usableFromInline
package struct Locked<State>: @unchecked Sendable {
    @usableFromInline
    final class Storage: ManagedBuffer<State, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    @usableFromInline let storage: Storage

    package init(_ state: State) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in state }
        // `create` on a subclass returns an instance of that subclass.
        storage = unsafeDowncast(buffer, to: Storage.self)
        _ = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    }

    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { (state, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}
