// Retargeted batches (issue 15): tip-in's channel form with every cell's translation.y
// retargeted once at t = 0.3 s (cells start over [0, 0.8] s, the frame is at 0.5 s, so
// most retargets are mid-flight), by each policy, beside tip-in itself (the ratio
// reference) in the same run. Same inputs as KernelScenarios.
//
// | variant          | what runs                                                         |
// |------------------|-------------------------------------------------------------------|
// | tipIn            | Kernel.evaluate of tip-in, SIMD8, one thread (ratio reference)    |
// | tipIn-additive   | tip-in's one channel (opacity) retargeted once, additive           |
// | tipInChannels    | the channel form, not retargeted                                  |
// | additive         | + one additive layer (ease-in-ease-out, 0.4 s) on translation.y   |
// | carry            | translation.y replaced by a velocity-carrying spring (zeta 0.6)   |
// | fromCurrentState | translation.y replaced by ease-in-ease-out from the current value |
// | ...-velocities   | the same frame also writing every channel's velocity (11 rows)   |
// Variants are prefixed by the recipe (tipInChannels, moveUpFade).

import CellMotion
import CellMotionKernel

enum RetargetScenarios {
  static let retargetTime = 0.3

  static func all(sizes: [Int]?) -> [Scenario] {
    var result: [Scenario] = []
    for n in sizes ?? [KernelScenarios.comparisonSize] {
      result.append(scenario(n, "tipIn", recipe: Recipe.tipIn, policy: nil))
      result.append(scenario(n, "tipIn-velocities", recipe: Recipe.tipIn, policy: nil, velocities: true))
      // Tip-in itself animates one channel, its opacity (the tilt is its matrix): that one
      // retargeted additively (to 0.5).
      result.append(scenario(n, "tipIn-additive", recipe: Recipe.tipIn, policy: policies[0].1, channel: .opacity, to: 0.5))
      for recipe in [Recipe.tipInChannels, Recipe.moveUpFade] {
        result.append(scenario(n, recipe.name, recipe: recipe, policy: nil))
        result.append(scenario(n, "\(recipe.name)-velocities", recipe: recipe, policy: nil, velocities: true))
        for (name, policy) in policies {
          result.append(scenario(n, "\(recipe.name)-\(name)", recipe: recipe, policy: policy))
        }
        result.append(
          scenario(n, "\(recipe.name)-additive-velocities", recipe: recipe, policy: policies[0].1, velocities: true))
        // The same with each cell retargeted at its own instant: no block shares the
        // layer's begin time, so every cell solves the layer's curve (with one instant, a
        // block computes it once: `Kernel.isUniform`).
        result.append(
          scenario(
            n, "\(recipe.name)-additive-velocities-staggered", recipe: recipe, policy: policies[0].1, velocities: true,
            staggered: true))
      }
    }
    return result
  }

  static let policies: [(String, RetargetPolicy)] = [
    ("additive", .additive(curve: .bezier(.easeInEaseOut), duration: 0.4)),
    ("carry", .carryVelocity(spring: try! Spring(stiffness: 200, damping: 0.6 * 2 * 200.0.squareRoot()))),
    ("fromCurrentState", .fromCurrentState(curve: .bezier(.easeInEaseOut), duration: 0.4)),
  ]

  static func scenario(
    _ n: Int, _ variant: String, recipe: Recipe, policy: RetargetPolicy?, velocities: Bool = false,
    channel: Channel = .translationY, to target: Double = -30, staggered: Bool = false
  ) -> Scenario {
    let (flops, bytes) = KernelScenarios.work(recipe.name)
    return Scenario(
      group: "retarget", variant: variant, cells: n, bytesWrittenPerCell: bytes + (velocities ? 44 : 0),
      flopsPerCell: flops, isRatioReference: variant == "tipIn",
      note: (policy.map {
        "\(recipe.name), every cell's \(channel.rawValue) retargeted once"
          + (staggered ? " (cell i at \(retargetTime) s + i x 10 us)" : " (all at \(retargetTime) s)") + ": \($0)"
      }
        ?? "Kernel.evaluate of \(recipe.name), SIMD8<Float>, 1 thread")
        + (velocities ? "; with every channel's velocity (FrameOutput includeVelocities)" : "")
    ) {
      var (batch, _) = try KernelScenarios.makeInputs(recipe, n)
      if let policy {
        for i in 0..<n {
          let at = retargetTime + (staggered ? Double(i) * 1e-5 : 0)
          try batch.retarget(cell: i, channel: channel, to: target, at: at, policy: policy)
        }
      }
      let box = KernelScenarios.OutputBox(try FrameOutput(capacity: n, includeVelocities: velocities))
      try Kernel.evaluate(batch, at: KernelScenarios.time, into: &box.output)
      return { [batch] in
        try! Kernel.evaluate(batch, at: KernelScenarios.time, into: &box.output)
        blackHole(box.output.matrices.last)
      }
    }
  }
}
