#include "gelu_table.h"

#include <cmath>
#include <utility>

namespace turbofno {
namespace cpu {
namespace {

constexpr int kMaxN = 10;  // coefficients per interval, at most

// Phi(v) and g(a) = erfc(a / sqrt 2) e^{a^2/2} / 2 in double (erfc(a / sqrt 2) >= 1e-57 on [0, 16)).
double phi(double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); }
double g(double a) { return 0.5 * std::erfc(a / std::sqrt(2.0)) * std::exp(0.5 * a * a); }

// Solves V c = y for the n x n system (Gaussian elimination, partial pivoting); V is overwritten.
void solve(int n, double V[kMaxN][kMaxN], double y[kMaxN], double c[kMaxN]) {
    for (int col = 0; col < n; ++col) {
        int piv = col;
        for (int r = col + 1; r < n; ++r)
            if (std::fabs(V[r][col]) > std::fabs(V[piv][col])) piv = r;
        std::swap(V[col], V[piv]);
        std::swap(y[col], y[piv]);
        for (int r = col + 1; r < n; ++r) {
            const double f = V[r][col] / V[col][col];
            for (int j = col; j < n; ++j) V[r][j] -= f * V[col][j];
            y[r] -= f * y[col];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        double acc = y[r];
        for (int j = r + 1; j < n; ++j) acc -= V[r][j] * c[j];
        c[r] = acc / V[r][r];
    }
}

// coef[j][i] (row stride `intervals`): the degree-`degree` interpolant of f at the Chebyshev nodes
// of [lo + i w, lo + (i + 1) w), as a polynomial in u = x - (centre of the interval).
template <class F>
void fit(F f, double lo, double w, int intervals, int degree, float* coef) {
    const int n = degree + 1;
    const double pi = std::acos(-1.0), half = 0.5 * w;
    for (int i = 0; i < intervals; ++i) {
        const double centre = lo + (i + 0.5) * w;
        // Interpolate in s = u / half in [-1, 1] (well conditioned), then scale to powers of u.
        double V[kMaxN][kMaxN], y[kMaxN], c[kMaxN];
        for (int k = 0; k < n; ++k) {
            const double s = std::cos(pi * (k + 0.5) / n);
            double p = 1.0;
            for (int j = 0; j < n; ++j, p *= s) V[k][j] = p;
            y[k] = f(centre + s * half);
        }
        solve(n, V, y, c);
        double scale = 1.0;
        for (int j = 0; j < n; ++j, scale /= half) coef[j * intervals + i] = static_cast<float>(c[j] * scale);
    }
}

GeluTable build() {
    static_assert(kGeluBodyDegree < kMaxN && kGeluTailDegree < kMaxN && kGeluNegDegree < kMaxN, "kMaxN");
    GeluTable t{};
    fit(phi, -kGeluBody, 2.0 * kGeluBody / kGeluIntervals, kGeluIntervals, kGeluBodyDegree, &t.body[0][0]);
    fit(g, 0.0, kGeluTailWidth, kGeluIntervals, kGeluTailDegree, &t.tail[0][0]);
    fit([](double a) { return phi(-a); }, 0.0, kGeluBody / kGeluNegIntervals, kGeluNegIntervals, kGeluNegDegree,
        &t.neg[0][0]);
    return t;
}

}  // namespace

const GeluTable& geluTable() {
    static const GeluTable table = build();
    return table;
}

}  // namespace cpu
}  // namespace turbofno
