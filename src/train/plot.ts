/** A learning curve as a small standalone SVG that any browser opens. */

export interface CurvePoint {
  readonly steps: number;
  readonly meanReturn: number | null;
}

const fmt = (v: number) => (Math.abs(v) >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : Math.abs(v) >= 1e3 ? `${(v / 1e3).toFixed(0)}k` : v.toFixed(2));

export function learningCurveSvg(title: string, points: readonly CurvePoint[]): string {
  const data = points.filter((p): p is { steps: number; meanReturn: number } => p.meanReturn !== null);
  const W = 640;
  const H = 360;
  const m = { l: 64, r: 20, t: 40, b: 48 };
  const xs = data.map((p) => p.steps);
  const ys = data.map((p) => p.meanReturn);
  const xMax = Math.max(1, ...xs);
  let yMin = Math.min(0, ...ys);
  let yMax = Math.max(...ys, yMin + 1e-6);
  const pad = (yMax - yMin) * 0.05;
  yMin -= pad;
  yMax += pad;
  const x = (v: number) => m.l + (v / xMax) * (W - m.l - m.r);
  const y = (v: number) => H - m.b - ((v - yMin) / (yMax - yMin)) * (H - m.t - m.b);
  const path = data.map((p, i) => `${i ? 'L' : 'M'}${x(p.steps).toFixed(1)},${y(p.meanReturn).toFixed(1)}`).join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const xTicks = ticks.map((f) => `<text x="${x(f * xMax)}" y="${H - m.b + 18}" text-anchor="middle">${fmt(f * xMax)}</text>`).join('');
  const yTicks = ticks
    .map((f) => {
      const v = yMin + f * (yMax - yMin);
      return `<line x1="${m.l}" x2="${W - m.r}" y1="${y(v)}" y2="${y(v)}" stroke="#333"/><text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12" fill="#ddd">
<rect width="${W}" height="${H}" fill="#15171c"/>
<text x="${W / 2}" y="24" text-anchor="middle" font-size="15">${title}</text>
${yTicks}${xTicks}
<text x="${W / 2}" y="${H - 10}" text-anchor="middle">agent steps</text>
<text x="16" y="${H / 2}" text-anchor="middle" transform="rotate(-90 16 ${H / 2})">mean episodic return</text>
<path d="${path}" fill="none" stroke="#4fa3ff" stroke-width="2"/>
</svg>
`;
}
