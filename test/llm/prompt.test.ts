import { describe, expect, it } from 'vitest';
import { buildRequest, estimateTokens, systemPrompt, userPrompt } from '../../src/llm';
import { DEFAULT_CONFIG, type TeamSituation, createWorld, teamSituation } from '../../src/sim';

const situation: TeamSituation = {
  team: 0,
  teamName: 'blue',
  agents: [
    { agent: 0, alive: true, health: 'HIGH', zone: 'NEAR', inZone: true, enemyVisible: true, enemy: 'MID', pickupPresent: true, pickup: 'FAR' },
    { agent: 1, alive: true, health: 'LOW', zone: 'MID', inZone: false, enemyVisible: false, enemy: null, pickupPresent: true, pickup: 'NEAR' },
  ],
  allyDistance: 'MID',
  time: 'LIMITED',
  secondsLeft: 24.5,
  progressPercent: 38,
  enemyProgressPercent: 12,
  zoneStatus: 'blue',
};

describe('strategist prompts', () => {
  it('the system prompt states the rules, the skills, the coordination rule and the compact format', () => {
    expect(systemPrompt('compact')).toMatchSnapshot();
  });

  it('the JSON system prompt asks for skills and a one-line rationale', () => {
    expect(systemPrompt('json')).toMatchSnapshot();
  });

  it('the user prompt gives per-agent and per-team state in words', () => {
    expect(userPrompt(situation, ['secure', 'combat'])).toMatchSnapshot();
  });

  it('an eliminated agent and a contested zone read plainly', () => {
    const s: TeamSituation = {
      ...situation,
      agents: [situation.agents[0]!, { ...situation.agents[1]!, alive: false }],
      allyDistance: null,
      zoneStatus: 'contested',
    };
    expect(userPrompt(s, ['secure', 'navigate'])).toMatchSnapshot();
  });

  it('the system prompt is static: the same string whatever the state, so servers can cache it', () => {
    const world = createWorld(5);
    const a = buildRequest(teamSituation(world, 0), ['navigate', 'navigate'], { format: 'compact', temperature: 0.1 });
    world.tick = 2000;
    world.progress[0] = 200;
    const b = buildRequest(teamSituation(world, 1), ['secure', 'combat'], { format: 'compact', temperature: 0.1 });
    expect(a.messages[0]).toEqual(b.messages[0]);
    expect(a.messages[0]!.role).toBe('system');
    expect(a.messages[1]!.content).not.toEqual(b.messages[1]!.content);
    expect(systemPrompt('compact', 2, DEFAULT_CONFIG)).toBe(systemPrompt('compact'));
  });

  it('the user prompt holds bands, not raw numbers that change every tick', () => {
    const world = createWorld(5);
    world.tick = 100;
    const first = userPrompt(teamSituation(world, 0), ['navigate', 'navigate']);
    world.tick = 101;
    expect(userPrompt(teamSituation(world, 0), ['navigate', 'navigate'])).toBe(first);
  });

  it('requests carry temperature 0.1, a short answer bound, and a json_schema only for JSON answers', () => {
    const compact = buildRequest(situation, ['secure', 'combat'], { format: 'compact', temperature: 0.1 });
    expect(compact).toMatchObject({ temperature: 0.1, maxTokens: 16 });
    expect(compact.responseFormat).toBeUndefined();
    const json = buildRequest(situation, ['secure', 'combat'], { format: 'json', temperature: 0.1 });
    expect(json.responseFormat?.type).toBe('json_schema');
    const schema = json.responseFormat!.json_schema.schema as { properties: { skills: { minItems: number; maxItems: number; items: { enum: string[] } } } };
    expect(schema.properties.skills).toMatchObject({ minItems: 2, maxItems: 2, items: { enum: ['navigate', 'combat', 'secure', 'retreat'] } });
    expect(buildRequest(situation, ['secure', 'combat'], { format: 'compact', temperature: 0.1, maxTokens: 0 }).maxTokens).toBeUndefined();
  });

  it('stays small: the per-state part is a fraction of the static part', () => {
    const staticTokens = estimateTokens(systemPrompt('compact'));
    const stateTokens = estimateTokens(userPrompt(situation, ['secure', 'combat']));
    expect(staticTokens).toBeLessThan(600);
    expect(stateTokens).toBeLessThan(120);
  });

  it('a team of three reads as three agents and its closest pair', () => {
    const three: TeamSituation = { ...situation, agents: [...situation.agents, { ...situation.agents[1]!, agent: 2 }], allyDistance: 'NEAR' };
    const lines = userPrompt(three, ['secure', 'combat', 'retreat']).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^Agent 3: .*skill Retreat\.$/);
    expect(lines[3]).toMatch(/^Team: closest agents apart NEAR;/);
    expect(userPrompt({ ...three, allyDistance: null }, ['secure', 'combat', 'retreat'])).toContain('closest agents apart n/a (fewer than two alive)');
    expect(systemPrompt('compact', 3)).toContain('one agent secures the zone while the others defend its perimeter');
    expect(systemPrompt('compact', 2)).toContain('one agent secures the zone while the other defends its perimeter');
  });
});
