/**
 * Plane geometry for a top-down arena of axis-aligned walls and circular agents.
 * Pure functions over numbers; no allocation, since they run many times per tick.
 */
import type { Wall } from './config';
import * as det from './detMath';

/** Distance from a point to a wall's rectangle (0 inside it). */
export function distanceToWall(x: number, y: number, w: Wall): number {
  const dx = Math.max(w.minX - x, 0, x - w.maxX);
  const dy = Math.max(w.minY - y, 0, y - w.maxY);
  return Math.sqrt(dx * dx + dy * dy);
}

/**
 * Distance along a ray (origin, unit direction) to a wall, by the slab method;
 * Infinity when it misses. A ray starting inside the wall hits at 0.
 */
export function rayToWall(ox: number, oy: number, dx: number, dy: number, w: Wall): number {
  let tMin = 0;
  let tMax = Infinity;
  if (dx !== 0) {
    const t1 = (w.minX - ox) / dx;
    const t2 = (w.maxX - ox) / dx;
    tMin = Math.max(tMin, Math.min(t1, t2));
    tMax = Math.min(tMax, Math.max(t1, t2));
  } else if (ox < w.minX || ox > w.maxX) {
    return Infinity;
  }
  if (dy !== 0) {
    const t1 = (w.minY - oy) / dy;
    const t2 = (w.maxY - oy) / dy;
    tMin = Math.max(tMin, Math.min(t1, t2));
    tMax = Math.min(tMax, Math.max(t1, t2));
  } else if (oy < w.minY || oy > w.maxY) {
    return Infinity;
  }
  return tMin <= tMax ? tMin : Infinity;
}

/** Distance along a ray (unit direction) to the arena's boundary from inside it. */
export function rayToBounds(ox: number, oy: number, dx: number, dy: number, width: number, height: number): number {
  const tx = dx > 0 ? (width - ox) / dx : dx < 0 ? -ox / dx : Infinity;
  const ty = dy > 0 ? (height - oy) / dy : dy < 0 ? -oy / dy : Infinity;
  return Math.max(0, Math.min(tx, ty));
}

/** Distance along a ray (unit direction) to a circle's edge; Infinity when it misses or lies behind. */
export function rayToCircle(ox: number, oy: number, dx: number, dy: number, cx: number, cy: number, r: number): number {
  const fx = cx - ox;
  const fy = cy - oy;
  const along = fx * dx + fy * dy;
  const perp2 = fx * fx + fy * fy - along * along;
  const r2 = r * r;
  if (perp2 > r2) return Infinity;
  const t = along - Math.sqrt(r2 - perp2);
  if (t >= 0) return t;
  // Origin inside the circle: it is hit at once.
  return along + Math.sqrt(r2 - perp2) >= 0 ? 0 : Infinity;
}

/**
 * Nearest wall or boundary along a ray (unit direction), capped at maxT. The slab test is
 * inlined with the inverse direction computed once: this is the observation's hot loop.
 */
export function castRay(
  walls: readonly Wall[],
  width: number,
  height: number,
  ox: number,
  oy: number,
  dx: number,
  dy: number,
  maxT: number,
): number {
  let t = Math.min(maxT, rayToBounds(ox, oy, dx, dy, width, height));
  const ix = 1 / dx; // ±Infinity for axis-parallel rays, which the min/max below handle
  const iy = 1 / dy;
  for (let i = 0; i < walls.length; i++) {
    const w = walls[i]!;
    const x1 = (w.minX - ox) * ix;
    const x2 = (w.maxX - ox) * ix;
    const y1 = (w.minY - oy) * iy;
    const y2 = (w.maxY - oy) * iy;
    const near = Math.max(0, Math.min(x1, x2), Math.min(y1, y2));
    const far = Math.min(Math.max(x1, x2), Math.max(y1, y2));
    // NaN (0 * Infinity on a slab's edge) fails both comparisons: counted as a miss.
    if (near <= far && near < t) t = near;
  }
  return t;
}

/** True when no wall crosses the segment from a to b. */
export function lineOfSight(walls: readonly Wall[], ax: number, ay: number, bx: number, by: number): boolean {
  const len = det.hypot(bx - ax, by - ay);
  if (len === 0) return true;
  const dx = (bx - ax) / len;
  const dy = (by - ay) / len;
  for (let i = 0; i < walls.length; i++) {
    if (rayToWall(ax, ay, dx, dy, walls[i]!) < len) return false;
  }
  return true;
}

/** Wrap an angle into (-PI, PI]. */
export function wrapAngle(a: number): number {
  let r = a % (2 * Math.PI);
  if (r > Math.PI) r -= 2 * Math.PI;
  else if (r <= -Math.PI) r += 2 * Math.PI;
  return r;
}
