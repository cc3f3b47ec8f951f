// The runtime benchmark; filled in with the runtime (issue 2).
print("handlerkit-bench: no benchmarks yet")
