// Tip-in card with GLM, per cell, as a C++ engine would write it: a double-precision
// cubic Bezier solved per cell (Newton, then bisection), glm::translate / glm::rotate
// building the column-vector matrix.
//
// Convention bridge: GLM multiplies column vectors (p' = M p) and stores mat4
// column-major. Core Animation multiplies row vectors (p' = p M). The column-vector
// matrix is the transpose of the row-vector one and the products reverse, so
//   CA: Translate(-a) * Translate(o) * Rotate(angle) * Translate(a)
//   GLM: translate(a) * rotate(angle) * translate(o) * translate(-a)
// and GLM's column-major memory of the latter is the CA field order of the former.
// glm::rotate(+angle about +z) is the transpose of CATransform3DMakeRotation(angle, 0, 0, 1)
// (m11 = cos, m12 = sin, m21 = -sin, m22 = cos), so the angle keeps its sign.
#include "glm_baseline.h"

#include <cmath>
#include <cstring>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace {

// Solver constants (values of this code, in the style of engine Bezier solvers).
constexpr int kNewtonSteps = 8;          // Newton usually converges in 3-4 steps here
constexpr double kEpsilon = 1e-6;        // |x(s) - x|: far below a frame at 0.4 s
constexpr double kMinSlope = 1e-6;       // x'(s) this flat: Newton would jump, bisect
constexpr int kBisectionSteps = 64;      // enough to reach kEpsilon from [0, 1]

// Cubic Bezier timing curve from (0, 0) to (1, 1) with control points (x1, y1) and
// (x2, y2), in polynomial form: x(s) = ((ax s + bx) s + cx) s, the same for y.
class TimingBezier {
 public:
  TimingBezier(double x1, double y1, double x2, double y2)
      : cx_(3.0 * x1), bx_(3.0 * (x2 - x1) - 3.0 * x1), ax_(1.0 - 3.0 * x2 + 3.0 * x1),
        cy_(3.0 * y1), by_(3.0 * (y2 - y1) - 3.0 * y1), ay_(1.0 - 3.0 * y2 + 3.0 * y1) {}

  // y at the parameter where x(s) = x, for x in [0, 1].
  double solve(double x) const { return sampleY(solveX(x)); }

 private:
  double sampleX(double s) const { return ((ax_ * s + bx_) * s + cx_) * s; }
  double sampleY(double s) const { return ((ay_ * s + by_) * s + cy_) * s; }
  double slopeX(double s) const { return (3.0 * ax_ * s + 2.0 * bx_) * s + cx_; }

  double solveX(double x) const {
    double s = x;
    for (int i = 0; i < kNewtonSteps; ++i) {
      const double error = sampleX(s) - x;
      if (std::fabs(error) < kEpsilon) return s;
      const double slope = slopeX(s);
      if (std::fabs(slope) < kMinSlope) break;
      s -= error / slope;
    }
    // Bisection fallback: x(s) is increasing on [0, 1] for timing curves.
    double lo = 0.0, hi = 1.0;
    s = x;
    for (int i = 0; i < kBisectionSteps; ++i) {
      const double value = sampleX(s);
      if (std::fabs(value - x) < kEpsilon) break;
      if (value < x) lo = s; else hi = s;
      s = 0.5 * (lo + hi);
    }
    return s;
  }

  double cx_, bx_, ax_, cy_, by_, ay_;
};

constexpr float kDuration = 0.4f;            // seconds
constexpr float kStartAngleDegrees = -15.0f;  // about z
constexpr float kStartOffset = -20.0f;        // points, both x and y
constexpr float kStartOpacity = 0.8f;

}  // namespace

extern "C" void cm_glm_tipin(int n, const float *startTime, const float *width,
                             const float *height, float time, float *outMatrix16,
                             float *outOpacity) {
  static const TimingBezier easeInEaseOut(0.42, 0.0, 0.58, 1.0);
  for (int i = 0; i < n; ++i) {
    const float local = glm::clamp((time - startTime[i]) / kDuration, 0.0f, 1.0f);
    const float p = static_cast<float>(easeInEaseOut.solve(local));
    const float q = 1.0f - p;

    const glm::vec3 anchor(0.5f * width[i], 0.5f * height[i], 0.0f);
    const glm::vec3 offset(kStartOffset * q, kStartOffset * q, 0.0f);
    const float angle = glm::radians(kStartAngleDegrees) * q;

    glm::mat4 m = glm::translate(glm::mat4(1.0f), anchor);
    m = glm::rotate(m, angle, glm::vec3(0.0f, 0.0f, 1.0f));
    m = glm::translate(m, offset);
    m = glm::translate(m, -anchor);

    std::memcpy(outMatrix16 + 16 * static_cast<long>(i), glm::value_ptr(m), 16 * sizeof(float));
    outOpacity[i] = kStartOpacity + (1.0f - kStartOpacity) * p;
  }
}
