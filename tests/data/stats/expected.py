#!/usr/bin/python3
"""Expected figures of tests/unit/test_stats.c and test_compare.c's edge cases.

Run with Debian's Python (/usr/bin/python3 tests/data/stats/expected.py):
every figure is computed exactly with fractions.Fraction from the doubles
the C test feeds, then rounded once to a double (statistics.mean and
statistics.stdev round correctly too, and are checked to agree). The t
quantiles are closed forms for df 1 and 2 and come from scipy beyond; Welch's p for df = 2 has a
closed form, computed with decimal to 40 digits.
"""
from decimal import Decimal, getcontext
from fractions import Fraction
import math
from math import isqrt
import statistics

getcontext().prec = 40

SAMPLES = {
    "huge_and_ten": [1e170, 10.0],
    "opposite_1e308": [1e308, -1e308],
    "tiny_1e-300": [1e-300, 2e-300, 3e-300, 4e-300],
    "huge_and_tiny": [1e300, 1e-300, 3e300, -1e-300, 2e300],
    "ordinary": [0.4, 0.5, 0.6],
}

# (a, b) pairs of Welch's test; with equal stds and two values each, df = 2.
WELCH = {
    "huge_equal_spread": ([1e308, 5e307], [-5e307, -1e308]),
    "means_past_max": ([1.5e308, 1e308], [-1e308, -1.5e308]),
    "tiny": ([3e-300, 1e-300], [-1e-300, -3e-300]),
}


def sqrt_frac(q):
    """sqrt of a Fraction, correctly rounded to a double (as Python's statistics does)."""
    # Enough bits: scale to an integer with 2 * 60 bits past the point of the result.
    shift = 2 * (120 - (q.numerator.bit_length() - q.denominator.bit_length()) // 2)
    num = q.numerator << shift if shift > 0 else q.numerator
    den = q.denominator if shift > 0 else q.denominator << -shift
    r = isqrt(num // den)
    return float(Fraction(r, 1 << (shift // 2)) if shift > 0 else Fraction(r << (-shift // 2)))


def summary(xs):
    fx = [Fraction(x) for x in xs]
    n = len(fx)
    mean = sum(fx) / n
    var = sum((x - mean) ** 2 for x in fx) / (n - 1)
    assert float(mean) == statistics.mean(xs)
    assert sqrt_frac(var) == statistics.stdev(xs)
    return mean, var


def t975(df):
    # Closed forms for df 1 (Cauchy) and 2; scipy's ppf is off by 2e-11 at df 1.
    if df == 1:
        return Fraction(math.tan(math.pi * 0.475))
    if df == 2:
        return Fraction(float((Decimal("0.95") / (Decimal(2) * Decimal("0.975") * Decimal("0.025")).sqrt())))
    try:
        from scipy.stats import t
        return Fraction(float(t.ppf(0.975, df)))
    except ImportError:
        return Fraction(0)


def main():
    for name, xs in SAMPLES.items():
        mean, var = summary(xs)
        n = len(xs)
        std = sqrt_frac(var)
        # ci95 = t * std / sqrt(n), with the exact std: sqrt(var / n) * t.
        half = t975(n - 1) * Fraction(sqrt_frac(var / n))
        ci = float(half) if half < Fraction(1.7976931348623157e308) else float("inf")
        print(f"{name}: mean {float(mean)!r} std {std!r} t {float(t975(n - 1))!r} ci95 {ci!r}")
    for name, (a, b) in WELCH.items():
        ma, va = summary(a)
        mb, vb = summary(b)
        se2 = va / len(a) + vb / len(b)
        df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
        t2 = (ma - mb) ** 2 / se2
        t = Decimal(t2.numerator).sqrt() / Decimal(t2.denominator).sqrt()
        p = None
        if df == 2:
            # Two-sided p of Student's t with 2 degrees of freedom: 1 - |t| / sqrt(2 + t^2).
            p = 1 - t / (2 + t * t).sqrt()
        print(f"welch {name}: t {float(t)!r} df {float(df)!r} p {float(p) if p is not None else None!r}")


if __name__ == "__main__":
    main()
