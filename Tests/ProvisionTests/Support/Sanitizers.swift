import Foundation

/// Whether ThreadSanitizer's runtime is in this process (the test bundle was built with
/// `--sanitize=thread`).
///
/// Its shadow call stack holds 65,536 nested function frames per thread, whatever the thread's own
/// stack: a deeper recursion writes past it and crashes the process with a SEGV, without a report. A test
/// that recurses through tens of thousands of frames (a request through a chain of thousands of
/// bindings, each a few frames deep in a debug build) takes a shallower shape under it.
let threadSanitizerIsLoaded = runtimeSymbolIsLoaded("__tsan_init")

/// Whether ThreadSanitizer's or AddressSanitizer's runtime is in this process.
let sanitizerIsLoaded = threadSanitizerIsLoaded || runtimeSymbolIsLoaded("__asan_init")

/// Whether the process has loaded a symbol of this name.
private func runtimeSymbolIsLoaded(_ symbol: String) -> Bool {
    let program = dlopen(nil, RTLD_NOW)
    defer { if let program { dlclose(program) } }
    return dlsym(program, symbol) != nil
}
