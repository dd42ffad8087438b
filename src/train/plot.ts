/**
 * A learning curve as the report module draws every plot (src/report/plot.ts): a
 * Vega-Lite line of mean episodic return over agent steps, rendered to a standalone SVG
 * that any browser opens, with the reports' axes, ticks and light theme.
 */
import { type Plot, renderPlot } from '../report/plot';

export interface CurvePoint {
  readonly steps: number;
  readonly meanReturn: number | null;
}

/** The curve as a plot: points without a return (no episode finished yet) are left out, not drawn as 0. */
export function learningCurvePlot(title: string, points: readonly CurvePoint[]): Plot {
  return {
    name: 'learning_curve',
    columns: ['agent_steps', 'mean_return'],
    rows: points.filter((p) => p.meanReturn !== null).map((p) => [p.steps, p.meanReturn]),
    view: {
      title,
      width: 560,
      height: 280,
      mark: { type: 'line', strokeWidth: 2, color: '#1f77b4' },
      encoding: {
        // SI prefixes without trailing zeros (0, 200k, 1.5M), as step counts are read; the axis's
        // own "~s" would give every tick one prefix ("0M").
        x: { field: 'agent_steps', type: 'quantitative', title: 'agent steps', scale: { zero: true, nice: false }, axis: { labelExpr: "format(datum.value, '~s')" } },
        y: { field: 'mean_return', type: 'quantitative', title: 'mean episodic return', scale: { zero: false } },
      },
    },
  };
}

export function learningCurveSvg(title: string, points: readonly CurvePoint[]): Promise<string> {
  return renderPlot(learningCurvePlot(title, points));
}
