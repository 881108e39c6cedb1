#include "gelu_table.h"

#include <cmath>
#include <utility>

namespace turbofno {
namespace cpu {
namespace {

constexpr int kN = kGeluDegree + 1;  // nodes = coefficients per interval

// g(a) = erfc(a / sqrt 2) e^{a^2/2} / 2 in double (erfc(a / sqrt 2) >= 1e-57 on [0, 16): no underflow).
double g(double a) { return 0.5 * std::erfc(a / std::sqrt(2.0)) * std::exp(0.5 * a * a); }

// Solves V c = y for the kN x kN system (Gaussian elimination, partial pivoting); V is overwritten.
void solve(double V[kN][kN], double y[kN], double c[kN]) {
    for (int col = 0; col < kN; ++col) {
        int piv = col;
        for (int r = col + 1; r < kN; ++r)
            if (std::fabs(V[r][col]) > std::fabs(V[piv][col])) piv = r;
        std::swap(V[col], V[piv]);
        std::swap(y[col], y[piv]);
        for (int r = col + 1; r < kN; ++r) {
            const double f = V[r][col] / V[col][col];
            for (int j = col; j < kN; ++j) V[r][j] -= f * V[col][j];
            y[r] -= f * y[col];
        }
    }
    for (int r = kN - 1; r >= 0; --r) {
        double acc = y[r];
        for (int j = r + 1; j < kN; ++j) acc -= V[r][j] * c[j];
        c[r] = acc / V[r][r];
    }
}

GeluTable build() {
    GeluTable t{};
    const double pi = std::acos(-1.0), half = 0.5 * kGeluWidth;
    for (int i = 0; i < kGeluIntervals; ++i) {
        const double centre = (i + 0.5) * kGeluWidth;
        // Interpolate in s = u / half in [-1, 1] (well conditioned), then scale to powers of u.
        double V[kN][kN], y[kN], c[kN];
        for (int n = 0; n < kN; ++n) {
            const double s = std::cos(pi * (n + 0.5) / kN);
            double p = 1.0;
            for (int j = 0; j < kN; ++j, p *= s) V[n][j] = p;
            y[n] = g(centre + s * half);
        }
        solve(V, y, c);
        double scale = 1.0;
        for (int j = 0; j < kN; ++j, scale /= half) t.coef[j][i] = static_cast<float>(c[j] * scale);
    }
    return t;
}

}  // namespace

const GeluTable& geluTable() {
    static const GeluTable table = build();
    return table;
}

}  // namespace cpu
}  // namespace turbofno
