// _GLMBaseline: a peer baseline for the benchmark. The tip-in card recipe per cell, written
// the way a C++ engineer would with GLM (C++, -O3). C API so Swift imports it without C++
// interoperability.
#ifndef CM_GLM_BASELINE_H
#define CM_GLM_BASELINE_H

#ifdef __cplusplus
extern "C" {
#endif

/// Evaluates the tip-in card for n cells at one time.
///
/// Per cell i: local = clamp((time - startTime[i]) / 0.4, 0, 1) (seconds; before the start
/// the start state holds, after the end the identity); p = easeInEaseOut (cubic Bezier
/// 0.42, 0, 0.58, 1) at local; q = 1 - p; angle = -15 degrees * q about z; offset =
/// (-20, -20) * q points. Row-vector (Core Animation) matrix:
///   Translate(-w/2, -h/2) * Translate(offset) * Rotate(angle) * Translate(w/2, h/2)
/// (CATransform3DTranslate(CATransform3DRotate(identity, angle, 0, 0, 1), ox, oy, 0) about
/// the centre of a width x height bounds), written as 16 floats in CATransform3D field order
/// m11 m12 ... m44 (= glm::mat4 memory of the column-vector matrix) at outMatrix16 + 16 i;
/// opacity 0.8 + 0.2 p at outOpacity[i].
///
/// startTime in seconds; width and height in points; outMatrix16 holds 16 n floats.
void cm_glm_tipin(int n, const float *startTime, const float *width, const float *height,
                  float time, float *outMatrix16, float *outOpacity);

#ifdef __cplusplus
}
#endif

#endif
