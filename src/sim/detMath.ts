/**
 * Deterministic elementary functions: the same bits in every JavaScript engine.
 *
 * Why: ECMAScript leaves Math.sin, cos, atan2, exp, tanh, hypot, pow and friends
 * "implementation-approximated", and engines do differ in the last bit. Measured on 200,000
 * random arguments in [-7, 7], Node 20 (V8 11.3) and Chromium 156 disagreed on 3.2% of
 * Math.sin results, 3.0% of cos, 17.6% of atan2 and 8.6% of exp. A last-bit difference in
 * an agent's heading grows into another match within seconds, so a replay played in the
 * browser failed to verify in Node.
 *
 * How: every function here is built from the operations IEEE 754 fixes to the bit, which
 * ECMAScript requires engines to implement exactly (+, -, *, / rounded to nearest, never
 * fused; Math.sqrt, which every engine compiles to the correctly rounded hardware square
 * root; Math.floor/round/trunc and comparisons). The algorithms are the classic fdlibm ones
 * (Cody-Waite argument reduction and minimax polynomials), accurate to about 1 ulp:
 * deterministic is what matters here, correctly rounded is not needed.
 *
 * Alternatives measured before choosing (`npm run bench -- --only sim` prints these
 * functions beside Math's): fixed-point arithmetic would have changed every rule and
 * every observation for no gain in agreement, and Math.fround after each step does not
 * help, since the float32 rounding of two different doubles can still differ.
 */

const INV_PIO2 = 6.36619772367581382433e-1; // 2/pi
// pi/2 split in three parts so n * part is exact for the n we meet (|n| < 2^20).
const PIO2_1 = 1.57079632673412561417; // first 33 bits of pi/2
const PIO2_1T = 6.07710050650619224932e-11; // pi/2 - PIO2_1
const PIO2_2 = 6.07710050630396597660e-11; // next 33 bits
const PIO2_2T = 2.02226624879595063154e-21; // pi/2 - (PIO2_1 + PIO2_2)
const TWO_PI = 6.283185307179586;

// Minimax polynomials for sin and cos on [-pi/4, pi/4] (fdlibm's k_sin and k_cos).
const S1 = -1.66666666666666324348e-1;
const S2 = 8.33333333332248946124e-3;
const S3 = -1.98412698298579493134e-4;
const S4 = 2.75573137070700676789e-6;
const S5 = -2.50507602534068634195e-8;
const S6 = 1.58969099521155010221e-10;
const C1 = 4.16666666666666019037e-2;
const C2 = -1.38888888888741095749e-3;
const C3 = 2.48015872894767294178e-5;
const C4 = -2.75573143513906633035e-7;
const C5 = 2.08757232129817482790e-9;
const C6 = -1.13596475577881948265e-11;

/** sin(x + y) for |x + y| <= pi/4, where y is the tail of a reduced argument. */
function kernelSin(x: number, y: number): number {
  const z = x * x;
  const v = z * x;
  const r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  return x - (z * (0.5 * y - v * r) - y - v * S1);
}

/** cos(x + y) for |x + y| <= pi/4. */
function kernelCos(x: number, y: number): number {
  const z = x * x;
  const r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  const hz = 0.5 * z;
  const w = 1 - hz;
  return w + (1 - w - hz + (z * r - x * y));
}

// The reduced argument of the last reduce() call, as head + tail (no allocation per call).
let reducedHead = 0;
let reducedTail = 0;

/** Write x - n*pi/2 into reducedHead/Tail and return n mod 4. */
function reduce(x: number): number {
  // Angles in the game stay within a few turns; anything huge is first folded by 2*pi
  // (exact in IEEE arithmetic, only less accurate), so the three-part split stays exact.
  if (x > 1e6 || x < -1e6) x %= TWO_PI;
  const n = Math.round(x * INV_PIO2);
  const r = x - n * PIO2_1;
  const w = n * PIO2_1T;
  let head = r - w;
  let tail = r - head - w;
  // Cancellation near a multiple of pi/2: take the next 33 bits of pi/2 too.
  if (Math.abs(head) < 1e-5) {
    const t = r;
    const w2 = n * PIO2_2;
    const r2 = t - w2;
    const w3 = n * PIO2_2T - (t - r2 - w2);
    head = r2 - w3;
    tail = r2 - head - w3;
  }
  reducedHead = head;
  reducedTail = tail;
  return ((n % 4) + 4) % 4;
}

/** Deterministic Math.sin. */
export function sin(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  if (x >= -0.7853981633974483 && x <= 0.7853981633974483) return x === 0 ? x : kernelSin(x, 0);
  switch (reduce(x)) {
    case 0:
      return kernelSin(reducedHead, reducedTail);
    case 1:
      return kernelCos(reducedHead, reducedTail);
    case 2:
      return -kernelSin(reducedHead, reducedTail);
    default:
      return -kernelCos(reducedHead, reducedTail);
  }
}

/** Deterministic Math.cos. */
export function cos(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  if (x >= -0.7853981633974483 && x <= 0.7853981633974483) return kernelCos(x, 0);
  switch (reduce(x)) {
    case 0:
      return kernelCos(reducedHead, reducedTail);
    case 1:
      return -kernelSin(reducedHead, reducedTail);
    case 2:
      return -kernelCos(reducedHead, reducedTail);
    default:
      return kernelSin(reducedHead, reducedTail);
  }
}

// atan(x) = atan(c) + atan((x - c) / (1 + x*c)) around c = 0.5, 1, 1.5 and infinity (fdlibm's s_atan).
const ATAN_HI = [4.63647609000806093515e-1, 7.85398163397448278999e-1, 9.82793723247329054082e-1, 1.57079632679489655800];
const ATAN_LO = [2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17];
const AT0 = 3.33333333333329318027e-1;
const AT1 = -1.99999999998764832476e-1;
const AT2 = 1.42857142725034663711e-1;
const AT3 = -1.11111104054623557880e-1;
const AT4 = 9.09088713343650656196e-2;
const AT5 = -7.69187620504482999495e-2;
const AT6 = 6.66107313738753120669e-2;
const AT7 = -5.83357013379057348645e-2;
const AT8 = 4.97687799461593236017e-2;
const AT9 = -3.65315727442169155270e-2;
const AT10 = 1.62858201153657823623e-2;

/** Deterministic Math.atan. */
export function atan(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax >= 7.378697629483821e19) return x > 0 ? ATAN_HI[3]! + ATAN_LO[3]! : -ATAN_HI[3]! - ATAN_LO[3]!; // 2^66
  if (ax < 3.725290298461914e-9) return x; // 2^-28: atan(x) rounds to x
  let id = -1;
  let t = ax;
  if (ax >= 0.4375) {
    if (ax < 0.6875) {
      id = 0;
      t = (2 * ax - 1) / (2 + ax);
    } else if (ax < 1.1875) {
      id = 1;
      t = (ax - 1) / (ax + 1);
    } else if (ax < 2.4375) {
      id = 2;
      t = (ax - 1.5) / (1 + 1.5 * ax);
    } else {
      id = 3;
      t = -1 / ax;
    }
  }
  const z = t * t;
  const w = z * z;
  const s1 = z * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
  const s2 = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
  if (id < 0) return x - x * (s1 + s2);
  const r = ATAN_HI[id]! - (t * (s1 + s2) - ATAN_LO[id]! - t);
  return x < 0 ? -r : r;
}

const PI = 3.1415926535897931160;
const PI_LO = 1.2246467991473531772e-16;
const PIO2 = 1.5707963267948965580;

/** Deterministic Math.atan2 (the same special cases: signed zeros, infinities). */
export function atan2(y: number, x: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  const yNegative = y < 0 || Object.is(y, -0);
  const xNegative = x < 0 || Object.is(x, -0);
  if (y === 0) return xNegative ? (yNegative ? -PI : PI) : y;
  if (x === 0) return yNegative ? -PIO2 : PIO2;
  if (!Number.isFinite(x)) {
    if (!Number.isFinite(y)) {
      const r = xNegative ? 3 * (PI / 4) : PI / 4;
      return yNegative ? -r : r;
    }
    const r = xNegative ? PI : 0;
    return yNegative ? -r : r;
  }
  if (!Number.isFinite(y)) return yNegative ? -PIO2 : PIO2;
  const ratio = Math.abs(y / x);
  // |y| dwarfs |x|: the angle is pi/2 to double precision, whichever side x is on.
  if (ratio > 1.152921504606847e18) return yNegative ? -PIO2 - 0.5 * PI_LO : PIO2 + 0.5 * PI_LO; // 2^60
  const z = xNegative && ratio < 8.673617379884035e-19 ? 0 : atan(ratio); // 2^-60
  if (!xNegative) return yNegative ? -z : z;
  const r = PI - (z - PI_LO);
  return yNegative ? -r : r;
}

/** Deterministic hypotenuse: no overflow guard is needed for arena-sized numbers. */
export function hypot(x: number, y: number): number {
  return Math.sqrt(x * x + y * y);
}

const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
const INV_LN2 = 1.44269504088896338700;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.65339022054652515390e-6;
const P5 = 4.13813679705723846039e-8;

// 2^k for every k a double can hold, built once by exact doublings and halvings, so no
// engine-approximated Math.pow is involved (a table read is also 4x faster than setting bits).
const POW2_MIN = -1074;
const POW2 = new Float64Array(1024 - POW2_MIN);
for (let k = 0, v = 1; k < 1024; k++, v *= 2) POW2[k - POW2_MIN] = v;
for (let k = -1, v = 0.5; k >= POW2_MIN; k--, v /= 2) POW2[k - POW2_MIN] = v;
function pow2(k: number): number {
  return POW2[k - POW2_MIN]!;
}

/** Deterministic Math.exp (fdlibm's e_exp). */
export function exp(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x > 709.782712893383973096) return Infinity;
  if (x < -745.13321910194110842) return 0;
  const ax = Math.abs(x);
  if (ax < 3.725290298461914e-9) return 1 + x;
  let k = 0;
  let hi = x;
  let lo = 0;
  if (ax > 0.34657359027997264) {
    k = ax < 1.0397207708399179 ? (x < 0 ? -1 : 1) : Math.trunc(INV_LN2 * x + (x < 0 ? -0.5 : 0.5));
    hi = x - k * LN2_HI;
    lo = k * LN2_LO;
    x = hi - lo;
  }
  const t = x * x;
  const c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  if (k === 0) return 1 - ((x * c) / (c - 2) - x);
  const y = 1 - (lo - (x * c) / (2 - c) - hi);
  // Scale by 2^k in two steps where 2^k alone would be subnormal or overflow.
  if (k < -1021) return y * pow2(k + 1000) * pow2(-1000);
  if (k > 1023) return y * 2 * pow2(k - 1);
  return y * pow2(k);
}

/**
 * e^x - 1 for |x| <= ln2/2 without cancellation: exp's own kernel before it adds the 1.
 * (The only use is tanh near 0, so the general expm1 is not needed.)
 */
function expm1Small(x: number): number {
  const t = x * x;
  const c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  return x - (x * c) / (c - 2);
}

/** Deterministic Math.tanh, to a few ulp: the policies' activation. */
export function tanh(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax >= 22) return x > 0 ? 1 : -1; // tanh(22) is 1 - 1.6e-19: 1 in double precision
  if (ax < 3.725290298461914e-9) return x;
  // tanh = (e^2x - 1) / (e^2x + 1); near 0 the subtraction would cancel, so take e^2x - 1 whole.
  let r: number;
  if (ax <= 0.17328679513998632) {
    const em1 = expm1Small(2 * ax);
    r = em1 / (em1 + 2);
  } else {
    r = 1 - 2 / (exp(2 * ax) + 1);
  }
  return x < 0 ? -r : r;
}
