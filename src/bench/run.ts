/**
 * `npm run bench`: the table of sections (each a title and the figures it gathers), run in
 * order, every figure printed beside its target and the ratio to it. The command line
 * (src/cli/bench.ts) parses --seconds and --only and builds the platform.
 */
import type { NodePlatform } from '../teams/nodePlatform';
import { createPlatform, usingPlatform } from '../teams';
import { type BenchRow, benchDetMath, benchMatches, benchPlanner, benchStep, benchVerify } from './match';
import { benchTraining } from './training';
import { benchTournament } from './tournament';
import { benchInference } from './inference';
import { type PrintLine, benchBridge, benchBrowserFrame, benchExam, benchLlm, benchLocalModel } from './sections';

export const SECTIONS = ['sim', 'matches', 'planner', 'inference', 'tournament', 'queue', 'llm', 'local-llm', 'exam', 'llm-proxy', 'study-server', 'training', 'bridge', 'browser'] as const;
export type BenchSection = (typeof SECTIONS)[number];

export interface BenchOptions {
  /** How long each figure is measured. */
  readonly seconds: number;
  /** The sections to run, in the table's order; all when absent. */
  readonly only?: readonly string[];
  /** Where the shipped models are read from (training). */
  readonly modelDir: string;
  /** The redis-server the queue section starts, or null where there is none. */
  readonly redisServer: string | null;
}

/** One figure on one line: value, unit, and where it has a target, the ratio to it. */
export function formatRow(row: BenchRow): string {
  const value = row.value >= 1000 ? Math.round(row.value).toLocaleString('en-US') : row.value.toFixed(3);
  let target = '';
  if (row.target !== undefined) {
    const ratio = row.lowerIsBetter ? row.target / row.value : row.value / row.target;
    const goal = row.target >= 1000 ? row.target.toLocaleString('en-US') : String(row.target);
    target = `target ${row.lowerIsBetter ? '<=' : '>='} ${goal}  ratio ${ratio.toFixed(2)}x ${ratio >= 1 ? 'ok' : 'BELOW TARGET'}`;
  }
  return `${row.name.padEnd(44)} ${value.padStart(14)} ${row.unit.padEnd(14)} ${target}`;
}

/** Runs the sections asked for on `platform`, printing a header, each section's title and its figures. */
export async function runBench(options: BenchOptions, platform: NodePlatform, print: PrintLine): Promise<void> {
  const { seconds, only } = options;
  const all: [BenchSection, string, () => BenchRow[] | Promise<BenchRow[]>][] = [
    ['sim', 'simulation (engine-independent math beside the engine\'s own)', () => [...benchStep(seconds), ...benchDetMath(seconds)]],
    // The scripted teams play on a bare platform (no models, no language model), one for the section.
    ['matches', 'matches (one core, no rendering)', () => usingPlatform(createPlatform(), async (bare) => [
      ...(await benchMatches(bare, 'bt-scripted', 'heuristic', seconds)),
      ...(await benchMatches(bare, 'heuristic', 'heuristic', seconds)),
      ...(await benchMatches(platform, 'bt', 'flat', seconds)),
      ...(await benchVerify(bare, 'bt-scripted', 'heuristic', seconds)),
      ...(await benchVerify(platform, 'bt', 'flat', seconds)),
    ])],
    ['planner', 'the planner (rollouts in copies of the world, one core)', () => benchPlanner(platform, seconds)],
    ['inference', 'policy inference (onnxruntime-node beside the network that plays)', () => benchInference(seconds)],
    ['tournament', 'tournaments (worker threads)', () => benchTournament(seconds, platform)],
    ['queue', 'tournaments over Redis (2 worker processes) beside the local pool (2 threads)', async () => (await import('./tournament')).benchQueue(seconds, platform, options.redisServer)],
    ['llm', 'LLM strategist (no network: prompt, decisions, own time)', () => benchLlm(seconds)],
    ['local-llm', 'local language model (node-llama-cpp, CPU)', () => benchLocalModel(seconds, platform.spec.llm, print)],
    ['exam', 'strategist exam on the local model (npm run llm:exam)', () => benchExam(seconds, platform.spec.llm, print)],
    ['bridge', 'the Python package\'s bridge (python/hillmind) beside Node', () => benchBridge(seconds, print)],
    ['llm-proxy', "the LLM proxy's decision cache (rule client), the page's decisions through the proxy on the local model, alone and under a flood of other clients, and how many participants playing llm at once it serves", async () => (await import('./llmProxy')).benchLlmProxy(seconds, platform.spec.llm, platform.models)],
    ['study-server', 'the server: requests per second by kind of request, and the study server under a hostile participant (episodes checked on a worker thread)', async () => (await import('./studyServer')).benchStudyServer(platform, seconds)],
    ['training', 'training (PPO with the shipped navigate config, 1 worker and the shipped 2)', () => benchTraining(seconds, options.modelDir)],
    ['browser', 'browser (headless chromium, bt-scripted vs heuristic at 1x)', () => benchBrowserFrame(seconds, print)],
  ];
  const sections = all.filter(([key]) => !only || only.includes(key));
  print(`Hillmind benchmarks (node ${process.version}, ${seconds} s per figure)`);
  for (const [, title, run] of sections) {
    print(`\n## ${title}`);
    for (const row of await run()) print(formatRow(row));
  }
}
