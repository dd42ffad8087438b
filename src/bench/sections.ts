/**
 * The sections of `npm run bench` with no file of their own (llm, local-llm, exam, bridge,
 * browser): each gathers its figures from the layers and the other bench files, loading
 * them only when its section runs. A section that cannot run here says why through `print`.
 */
import type { LlmSpec } from '../llm';
import { createPlatform } from '../teams';
import type { BenchRow } from './match';

/** Prints one line of the bench's output. */
export type PrintLine = (line: string) => void;

/** The page at 1x in headless chromium: simulation plus controllers per display frame. */
export async function benchBrowserFrame(seconds: number, print: PrintLine): Promise<BenchRow[]> {
  const { benchBrowser, chromiumAvailable, CHROMIUM_PATH } = await import('./harness');
  if (!chromiumAvailable()) {
    print(`(skipped: no chromium at ${CHROMIUM_PATH}; apt-get install chromium or set CHROMIUM_PATH)`);
    return [];
  }
  const f = await benchBrowser(Math.max(3, seconds));
  const span = f.spanMs / 1000;
  return [
    { name: 'page frame at 1x, sim + controllers, median', value: f.medianMs, unit: 'ms/frame', target: 2, lowerIsBetter: true },
    { name: 'page frame at 1x, sim + controllers, p95', value: f.p95Ms, unit: 'ms/frame', target: 2, lowerIsBetter: true },
    { name: `page display frames (${f.renderer} renderer)`, value: span > 0 ? f.frames / span : 0, unit: 'frames/s' },
    { name: 'page ticks at 1x', value: span > 0 ? f.ticks / span : 0, unit: 'ticks/s' },
  ];
}

/**
 * The LLM strategist without a model or network (an instant rule-reading client, lockstep):
 * decisions per episode at 2 Hz and with events, prompt tokens, its own time per decision.
 */
export async function benchLlm(seconds: number): Promise<BenchRow[]> {
  const { RuleChatClient, fixedLlmAccess, strategistSettingsOf } = await import('../llm');
  const { benchDecisionCost, promptTokenRows } = await import('./strategist');
  const { runMatch } = await import('../match');
  const { llmStrategistOf } = await import('../teams');
  const rules = new RuleChatClient();
  const prompts: string[] = [];
  const client = {
    model: 'rules',
    complete: (request: Parameters<typeof rules.complete>[0]) => {
      prompts.push(request.messages[request.messages.length - 1]!.content);
      return rules.complete(request);
    },
  };
  const perEpisode = async (events: boolean) => {
    const settings = strategistSettingsOf({ timing: { kind: 'lockstep' }, skills: 'scripted', ...(events ? {} : { events: [] }) });
    const platform = createPlatform({ llm: fixedLlmAccess({ client, provider: 'rules', settings, cache: null }) });
    let requests = 0;
    let eventTriggered = 0;
    let minutes = 0;
    let episodes = 0;
    const start = performance.now();
    while (episodes < 3 || (performance.now() - start < (seconds * 1000) / 2 && episodes < 200)) {
      const match = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: episodes }, { platform, record: false });
      const stats = llmStrategistOf(match.controllers[0])!.stats();
      requests += stats.requests;
      eventTriggered += stats.requests - stats.triggers.periodic;
      minutes += match.world.tick / match.world.config.tickHz / 60;
      episodes++;
    }
    await platform.close();
    return { perEpisode: requests / episodes, perMinute: requests / minutes, eventShare: eventTriggered / Math.max(1, requests), episodes };
  };
  const fixed = await perEpisode(false);
  const withEvents = await perEpisode(true);
  return [
    { name: `llm decisions per episode, 2 Hz (${fixed.episodes} ep. vs bt-scripted)`, value: fixed.perEpisode, unit: 'decisions' },
    { name: 'llm decisions per minute of play, 2 Hz', value: fixed.perMinute, unit: 'decisions/min' },
    { name: `llm decisions per episode, 2 Hz + events (${withEvents.episodes} ep.)`, value: withEvents.perEpisode, unit: 'decisions' },
    { name: 'llm decisions per minute of play, 2 Hz + events', value: withEvents.perMinute, unit: 'decisions/min' },
    { name: 'llm decisions asked by events alone', value: withEvents.eventShare * 100, unit: '%' },
    ...promptTokenRows(prompts),
    ...benchDecisionCost(seconds),
  ];
}

/**
 * The embedded local model (npm run llm:pull): the engine's figures, then decisions per
 * second with 1, 2 and 4 matches at once on the one engine (lockstep, llm vs bt-scripted).
 */
export async function benchLocalModel(seconds: number, spec: LlmSpec, print: PrintLine): Promise<BenchRow[]> {
  const { fixedLlmAccess, llmSettingsOf, localLlmSpec, strategistSettingsOf } = await import('../llm');
  const { localAvailability } = await import('../llm/node');
  const { adapterRows, benchLocalEngine, residentRow, vocabularyRows } = await import('./localLlm');
  const { Match } = await import('../match');
  const { DEFAULT_CONFIG } = await import('../sim');
  const { llmStrategistOf } = await import('../teams');
  // The local model's settings, whatever server the environment names.
  const result = llmSettingsOf(localLlmSpec(spec));
  if (!result.ok || result.settings.source !== 'local') {
    print(`(skipped: ${result.ok ? 'no local model' : result.error})`);
    return [];
  }
  const settings = { ...result.settings, sequences: Math.max(4, result.settings.sequences) };
  const available = localAvailability(settings);
  if (!available.ok) {
    print(`(skipped: ${available.reason})`);
    return [];
  }
  const { rows, client } = await benchLocalEngine(settings, seconds);
  rows.push(residentRow('after single decisions'));
  const strategist = strategistSettingsOf({ timing: { kind: 'lockstep' }, skills: 'scripted' });
  const platform = createPlatform({ llm: fixedLlmAccess({ client, provider: 'local', settings: strategist, cache: null }) });
  const config = { ...DEFAULT_CONFIG, episodeSeconds: 20 };
  for (const matches of [1, 2, 4]) {
    const wallMs = Math.max(10, seconds * 3) * 1000;
    const deadline = performance.now() + wallMs;
    let calls = 0;
    let seed = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: matches }, async () => {
        while (performance.now() < deadline) {
          const match = await Match.create({ blue: 'llm', red: 'bt-scripted', seed: seed++, config }, { platform, record: false });
          while (!match.done && performance.now() < deadline) {
            const pending = match.advance();
            if (pending) await pending;
          }
          match.close();
          calls += llmStrategistOf(match.controllers[0])!.stats().answers;
        }
      }),
    );
    rows.push({ name: `local decisions/s, ${matches} match${matches > 1 ? 'es' : ''} at once (lockstep)`, value: calls / ((performance.now() - start) / 1000), unit: 'decisions/s' });
  }
  rows.push(residentRow('after 4 matches at once'));
  // Last: these load other engines beside this one (the whole vocabulary, then each other shipped adapter), which the memory rows above must not count.
  rows.push(...(await vocabularyRows(settings, client, (seconds * 1000) / 4)));
  rows.push(...(await adapterRows(settings, client, (seconds * 1000) / 4)));
  await platform.close();
  await client.engine.dispose();
  return rows;
}

/**
 * The strategist exam's summary (npm run llm:exam) on the local model: the first situations
 * of the shipped set, for the model alone and with its adapter (npm run llm:tune) side by
 * side, beside the targets a strategist that reads the game should reach.
 */
export async function benchExam(seconds: number, spec: LlmSpec, print: PrintLine): Promise<BenchRow[]> {
  const { readFileSync } = await import('node:fs');
  const { EXAM_SET_PATH, SYSTEM_CLOCK, llmSettingsOf, localLlmSpec, parseExamSet, scoreExam, takeExam, withEngine } = await import('../llm');
  const { localAvailability, nodeLlmAccess } = await import('../llm/node');
  const local = localLlmSpec(spec);
  const result = llmSettingsOf(local);
  if (!result.ok || result.settings.source !== 'local' || !localAvailability(result.settings).ok) {
    print('(skipped: the local model is not pulled: npm run llm:pull)');
    return [];
  }
  const full = parseExamSet(readFileSync(EXAM_SET_PATH, 'utf8'), EXAM_SET_PATH);
  const set = { ...full, items: full.items.slice(0, Math.min(full.items.length, Math.max(40, seconds * 10))) };
  const n = `${set.items.length} situations`;
  const runs = result.settings.adapter === null ? [{ name: 'model alone', adapter: null }] : [{ name: 'model alone', adapter: null }, { name: 'with its adapter', adapter: result.settings.adapter }];
  const rows: BenchRow[] = [];
  for (const run of runs) {
    const access = nodeLlmAccess({ spec: withEngine(local, { adapter: run.adapter, threads: 1, sequences: 1 }) });
    const connection = await access.connect();
    const answers = await takeExam(set, connection.client, { format: connection.settings.format, temperature: connection.settings.temperature, clock: SYSTEM_CLOCK }).finally(() => access.close());
    const s = scoreExam(set, answers);
    // Each asked in its own format (the adapter in the one it was taught): a decision's time follows the prompt's tokens.
    const name = `${run.name}, ${connection.settings.format}`;
    rows.push(
      { name: `${name}: exam kappa with the rules (${n})`, value: s.kappa ?? 0, unit: '', target: 0.6 },
      { name: `${name}: exam kappa, held out (current skill differs)`, value: s.heldOut.kappa ?? 0, unit: '', target: 0.5 },
      // What the rules bound: an adapter taught by them agrees with the planner about as often as the tree does.
      ...(s.planner ? [{ name: `${name}: exam kappa with the planner`, value: s.planner.kappa ?? 0, unit: '' }] : []),
      { name: `${name}: exam most common answer (${s.mostCommon.answer})`, value: 100 * s.mostCommon.share, unit: '%', target: 40, lowerIsBetter: true },
      { name: `${name}: exam choices of combat`, value: 100 * (s.skillShares.combat ?? 0), unit: '%', target: 20 },
      { name: `${name}: decision latency p50, 1 thread`, value: s.latencyMs!.p50, unit: 'ms' },
      { name: `${name}: decision latency p95, 1 thread`, value: s.latencyMs!.p95, unit: 'ms', target: 150, lowerIsBetter: true },
    );
  }
  return rows;
}

/**
 * The Python package's bridge (python/hillmind): agent-steps per second through it, 64
 * environments at the control level in self-play, beside the same environments stepped
 * inside Node (what the wire and Python cost). Needs the package's environment (.venv).
 */
export async function benchBridge(seconds: number, print: PrintLine): Promise<BenchRow[]> {
  const { existsSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const { BridgeEnvs } = await import('../train/bridgeEnv');
  const envs = 64;
  const platform = createPlatform();
  const node = new BridgeEnvs(platform, { level: 'control', envs, opponent: null, reward: 'match' }, { obs: 1, action: 1 });
  await node.reset(Array.from({ length: envs }, (_, i) => i));
  const actions = Float64Array.from({ length: envs * 4 * 5 }, (_, i) => Math.cos(i * 0.7));
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    const r = await node.step(actions);
    if (r.ends.length) await node.reset(r.ends.map((e) => 1000 + calls + e.env), r.ends.map((e) => e.env));
    calls++;
  }
  node.close();
  await platform.close();
  const inNode = (calls * envs * 4) / ((performance.now() - start) / 1000);
  const rows: BenchRow[] = [{ name: `control level in Node, ${envs} envs`, value: inNode, unit: 'agent-steps/s' }];
  const python = '.venv/bin/python';
  if (!existsSync(python)) {
    print('(the bridge figure needs the Python package: python3 -m venv .venv && .venv/bin/pip install -e python)');
    return rows;
  }
  const run = spawnSync(python, ['-m', 'hillmind.bench', '--envs', String(envs), '--seconds', String(seconds), '--json'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`python -m hillmind.bench failed: ${run.stderr}`);
  const viaBridge = (JSON.parse(run.stdout) as { agent_steps_per_s: number }).agent_steps_per_s;
  rows.push({ name: `control level through the bridge, ${envs} envs`, value: viaBridge, unit: 'agent-steps/s', target: 100_000 });
  rows.push({ name: 'bridge / in Node', value: viaBridge / inNode, unit: 'x' });
  return rows;
}
