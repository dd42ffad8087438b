import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runMatch } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import {
  SCRIPTED_SKILLS,
  SKILL_IDS,
  checkPolicyFits,
  loadOnnxPolicy,
  parseModelCard,
} from '../../src/skills';
import { HEURISTIC_POLICY } from '../../src/teams/heuristic';
import { TEST_PLATFORM } from '../helpers/platform';
import { threePerTeam } from '../helpers/world';

const THREE = threePerTeam();

describe('which team sizes a policy plays', () => {
  it('scripted policies fit any team size', () => {
    for (const id of SKILL_IDS) expect(() => checkPolicyFits(SCRIPTED_SKILLS[id], THREE)).not.toThrow();
    expect(() => checkPolicyFits(HEURISTIC_POLICY, THREE)).not.toThrow();
  });

  it('the shipped models were trained 2v2: they fit the default config and refuse 3v3, naming the model and both sizes', async () => {
    const flat = await TEST_PLATFORM.models.load('flat');
    expect(flat.agentsPerTeam).toBe(2);
    expect(() => checkPolicyFits(flat, DEFAULT_CONFIG)).not.toThrow();
    expect(() => checkPolicyFits(flat, THREE)).toThrow("model 'flat' was trained for 2 agents per team and cannot play a match with 3 per team (3v3)");
  });

  it('a card trained at another size fits that size only', () => {
    const card = JSON.parse(readFileSync('models/combat.json', 'utf8')) as { training: Record<string, unknown> };
    card.training.agentsPerTeam = 3;
    const policy = loadOnnxPolicy(
      new Uint8Array(readFileSync('models/combat.onnx')),
      parseModelCard(JSON.stringify(card), 'combat.json'),
      'combat.onnx',
    );
    expect(() => checkPolicyFits(policy, THREE)).not.toThrow();
    expect(() => checkPolicyFits(policy, DEFAULT_CONFIG)).toThrow("model 'combat' was trained for 3 agents per team and cannot play a match with 2 per team");
  });

  it('a flat team refuses a 3v3 match with that message', async () => {
    await expect(runMatch({ blue: 'flat', red: 'heuristic', seed: 1, config: THREE }, { platform: TEST_PLATFORM })).rejects.toThrow(
      "model 'flat' was trained for 2 agents per team and cannot play a match with 3 per team",
    );
  });

  it('a bt team (trained skills) refuses a 3v3 match, whichever side it plays', async () => {
    await expect(runMatch({ blue: 'bt-scripted', red: 'bt', seed: 1, config: THREE }, { platform: TEST_PLATFORM })).rejects.toThrow(
      /^model '(navigate|combat|secure|retreat)' was trained for 2 agents per team and cannot play a match with 3 per team/,
    );
  });
});
