// libm access without Foundation.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

@inline(__always) func _exp(_ x: Double) -> Double { exp(x) }
@inline(__always) func _expm1(_ x: Double) -> Double { expm1(x) }
@inline(__always) func _log(_ x: Double) -> Double { log(x) }
@inline(__always) func _log1p(_ x: Double) -> Double { log1p(x) }
