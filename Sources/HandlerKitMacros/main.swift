// The `@handler` compiler plugin. The compiler starts this executable and talks to it over standard
// input and output; everything it does lives in the PluginProtocol library.
import PluginProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

exit(PluginLoop.runOnStandardStreams())
