/**
 * Training's learning curve is drawn as every report's plot is (src/report/plot.ts): an
 * SVG a browser opens, with titled axes, readable step ticks and the reports' light theme.
 */
import { describe, expect, it } from 'vitest';
import { PLOT_THEMES } from '../../src/report/plot';
import { learningCurvePlot, learningCurveSvg } from '../../src/train/plot';

const points = [
  { steps: 0, meanReturn: null },
  { steps: 100_000, meanReturn: -2.5 },
  { steps: 200_000, meanReturn: 1.25 },
  { steps: 300_000, meanReturn: 3.5 },
];

describe('the learning curve', () => {
  it('plots mean return over agent steps, leaving out updates before any episode finished', () => {
    const plot = learningCurvePlot('navigate: learning curve', points);
    expect(plot.columns).toEqual(['agent_steps', 'mean_return']);
    expect(plot.rows).toEqual([
      [100_000, -2.5],
      [200_000, 1.25],
      [300_000, 3.5],
    ]);
  });

  it('renders a standalone SVG with its title, both axis titles, SI step ticks and one line', async () => {
    const svg = await learningCurveSvg('navigate: <learning> curve', points);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(svg).toContain('navigate: &lt;learning&gt; curve');
    expect(svg).toContain('agent steps');
    expect(svg).toContain('mean episodic return');
    expect(svg).toMatch(/>200k</);
    expect(svg).toContain(`fill="${(PLOT_THEMES.light as { background: string }).background}"`);
    expect(svg.match(/class="mark-line/g)).toHaveLength(1);
  });

  it('renders a curve with no finished episode as empty axes, not an error', async () => {
    const svg = await learningCurveSvg('flat: learning curve', [{ steps: 64, meanReturn: null }]);
    expect(svg).toContain('flat: learning curve');
    expect(svg).toContain('agent steps');
  });
});
