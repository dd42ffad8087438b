/**
 * npm run evaluate -- [--episodes 200] [--write]
 *
 * Each trained skill against its scripted reference on its own scenario, and the win
 * rates of flat vs heuristic and bt vs bt-scripted. --write stores the figures in the
 * model cards (models/<name>.json).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SKILL_IDS, parseModelCard } from '../skills';
import { modelDirFrom } from '../skills/nodeModels';
import { nodePlatform } from '../teams/nodePlatform';
import { type SkillComparison, type WinRate, compareSkill, winRate } from '../train/evaluate';
import { EPISODES_RANGE, integerOption, parseCommandLine, runCli } from './args';

const USAGE = 'usage: npm run evaluate -- [--episodes 200] [--write]';

function describeWinRate(w: WinRate): string {
  const pct = (n: number) => `${((100 * n) / w.episodes).toFixed(1)}%`;
  return `${w.first} vs ${w.second}: ${pct(w.firstWins)} / ${pct(w.secondWins)} / draws ${pct(w.draws)} (${w.episodes} episodes)`;
}

runCli(async () => {
  const { values } = parseCommandLine({ episodes: { type: 'string' }, write: { type: 'boolean' } }, USAGE);
  const episodes = integerOption('episodes', values.episodes, 200, EPISODES_RANGE);
  const platform = nodePlatform({ env: process.env });
  const modelDir = modelDirFrom(process.env);
  const comparisons: SkillComparison[] = [];
  for (const skill of SKILL_IDS) {
    const c = await compareSkill(skill, await platform.models.load(skill), episodes);
    comparisons.push(c);
    const better = c.rl.lowerIsBetter ? c.rl.value <= c.scripted.value : c.rl.value >= c.scripted.value;
    console.log(`${skill.padEnd(8)} ${c.rl.measure.padEnd(48)} RL ${c.rl.value.toFixed(3).padStart(7)}  scripted ${c.scripted.value.toFixed(3).padStart(7)}  ${better ? 'RL better' : 'scripted better'}`);
  }
  const rates = [await winRate(platform, 'flat', 'heuristic', episodes), await winRate(platform, 'bt', 'bt-scripted', episodes)];
  for (const r of rates) console.log(describeWinRate(r));

  if (values.write) {
    const write = (name: string, evaluation: Record<string, unknown>) => {
      const path = join(modelDir, `${name}.json`);
      const card = parseModelCard(readFileSync(path, 'utf8'), path);
      writeFileSync(path, `${JSON.stringify({ ...card, evaluation: { ...evaluation, command: `npm run evaluate -- --episodes ${episodes} --write` } }, null, 2)}\n`);
    };
    for (const c of comparisons) write(c.skill, { scenario: c.rl.measure, rl: c.rl.value, scripted: c.scripted.value, episodes, bt_vs_bt_scripted: rates[1] });
    write('flat', { flat_vs_heuristic: rates[0], episodes });
    console.log(`evaluation written into the cards in ${modelDir}/`);
  }
});
