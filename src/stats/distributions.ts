/**
 * Normal and chi-square distribution functions.
 */
import { regularizedGammaP, regularizedGammaQ } from './gamma';

/**
 * Complementary error function erfc(z) = 1 − erf(z).
 * Method: erfc(z) = Q(1/2, z²) for z >= 0 (regularized upper incomplete gamma),
 * and erfc(−z) = 2 − erfc(z). Accurate to near double precision, including
 * small upper-tail values.
 */
export function erfc(z: number): number {
  if (Number.isNaN(z)) throw new Error('erfc: argument is NaN');
  if (z >= 0) return regularizedGammaQ(0.5, z * z);
  return 1 + regularizedGammaP(0.5, z * z);
}

/** Error function erf(z) = 1 − erfc(z) (sign-symmetric). */
export function erf(z: number): number {
  if (Number.isNaN(z)) throw new Error('erf: argument is NaN');
  const p = regularizedGammaP(0.5, z * z);
  return z >= 0 ? p : -p;
}

/** Standard normal CDF Φ(x) = erfc(−x/√2) / 2. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** Standard normal upper tail 1 − Φ(x), computed without cancellation. */
export function normalSurvival(x: number): number {
  return 0.5 * erfc(x / Math.SQRT2);
}

// Coefficients of Acklam's rational approximation to Φ⁻¹ (relative error < 1.15e-9),
// fixed-length tuples so every index below is known to exist.
const A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
  -3.066479806614716e1, 2.506628277459239,
] as const;
const B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
  -1.328068155288572e1,
] as const;
const C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
  4.374664141464968, 2.938163982698783,
] as const;
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416] as const;
const P_LOW = 0.02425;

/**
 * Acklam's rational approximation to the standard normal quantile, without
 * refinement (relative error below 1.15e-9). Exposed for testing; use
 * {@link normalInverseCdf} for full precision.
 */
export function acklamInverseCdf(p: number): number {
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
      ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1)
    );
  }
  if (p > 1 - P_LOW) {
    const q = Math.sqrt(-2 * Math.log1p(-p));
    return -(
      (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
      ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1)
    );
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) /
    (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1)
  );
}

/**
 * Standard normal quantile Φ⁻¹(p) for 0 < p < 1 (±Infinity at 0 and 1).
 * Method: Acklam's rational approximation followed by one Halley step against
 * the accurate {@link normalCdf}, giving close to double precision.
 */
export function normalInverseCdf(p: number): number {
  if (!(p >= 0 && p <= 1)) {
    throw new Error(`normalInverseCdf needs a probability in [0, 1], got ${String(p)}`);
  }
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const x = acklamInverseCdf(p);
  // Halley refinement. Work in the smaller tail so the residual keeps precision.
  const e = x < 0 ? normalCdf(x) - p : 1 - p - normalSurvival(x);
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

/**
 * Two-sided p-value for a standard-normal test statistic: P(|Z| >= |z|) = erfc(|z|/√2).
 */
export function twoSidedPValue(z: number): number {
  if (Number.isNaN(z)) throw new Error('twoSidedPValue: z is NaN');
  return erfc(Math.abs(z) / Math.SQRT2);
}

/**
 * Critical value z such that a two-sided normal interval at `confidence`
 * covers that probability, e.g. 1.959964 for 0.95.
 */
export function zCritical(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) {
    throw new Error(`confidence must lie strictly between 0 and 1, got ${String(confidence)}`);
  }
  return normalInverseCdf(1 - (1 - confidence) / 2);
}

function checkChiSquareArgs(x: number, df: number): void {
  if (!(df > 0) || !Number.isFinite(df)) {
    throw new Error(`chi-square degrees of freedom must be a finite number > 0, got ${String(df)}`);
  }
  if (!(x >= 0)) {
    throw new Error(`chi-square statistic must be >= 0, got ${String(x)}`);
  }
}

/**
 * Chi-square survival function P(X >= x) for X ~ χ²(df): Q(df/2, x/2), the
 * regularized upper incomplete gamma function (Numerical Recipes §6.2).
 */
export function chiSquareSurvival(x: number, df: number): number {
  checkChiSquareArgs(x, df);
  return regularizedGammaQ(df / 2, x / 2);
}

/** Chi-square CDF P(X <= x) for X ~ χ²(df): P(df/2, x/2). */
export function chiSquareCdf(x: number, df: number): number {
  checkChiSquareArgs(x, df);
  return regularizedGammaP(df / 2, x / 2);
}
