import { describe, expect, it } from 'vitest';
import { RuleChatClient } from '../../src/llm';
import { parseReplay, runMatch, verifyReplay } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import { PERSONAS, STUDY_TREE, formatTeamSpec, llmStrategistOf, parseTeamSpec, resolveTeam, teamAvailability, teamName, treeParameters } from '../../src/teams';
import { TEST_PLATFORM, llmPlatform } from '../helpers/platform';
import { describeWithLocalModel } from '../helpers/localModel';
import { tempDirs } from '../helpers/tempDirs';

const freshDir = tempDirs('variant');

describe('team variants', () => {
  it('parse id:key=value pairs and name themselves canonically (keys in alphabetical order)', () => {
    expect(parseTeamSpec('llm:rate=0:format=json')).toEqual({ id: 'llm', settings: { rate: '0', format: 'json' } });
    expect(formatTeamSpec(parseTeamSpec('llm:rate=0:format=json'))).toBe('llm:format=json:rate=0');
    expect(teamName('bt')).toBe('bt');
    expect(teamName('bt-scripted:reaction=0.5:persona=cautious')).toBe('bt-scripted:persona=cautious:reaction=0.5');
  });

  it('refuse malformed text, unknown ids, unknown keys and bad values, naming them', () => {
    expect(() => parseTeamSpec('bt:persona')).toThrow(/'persona' in team 'bt:persona' is not a setting: expected key=value/);
    expect(() => parseTeamSpec('bt:persona=a:persona=b')).toThrow(/sets 'persona' twice/);
    expect(() => resolveTeam('nope:persona=cautious')).toThrow(/unknown team id 'nope'/);
    expect(() => resolveTeam('bt:speed=3')).toThrow("team 'bt' has no setting 'speed': its settings are persona, retreat, zone, engage, priority, securers, reaction, noise");
    expect(() => resolveTeam('heuristic:persona=cautious')).toThrow("team 'heuristic' takes no settings, got 'persona'");
    expect(() => resolveTeam('bt:persona=bold')).toThrow(/team 'bt' has an invalid setting: persona: must be one of aggressive, cautious/);
    expect(() => resolveTeam('llm:rate=fast')).toThrow(/team 'llm' has an invalid setting: rate: must be a number of decisions per second \(0: events only\) from 0 to 50/);
    expect(() => resolveTeam('bt:noise=0x1')).toThrow(/noise: must be a share from 0 to 1/);
    expect(() => resolveTeam('llm:events=explosions')).toThrow(/events: must be all, none or a \+ list/);
    expect(() => resolveTeam('random:period=0')).toThrow(/period: must be a number of seconds from 0.02 to 60/);
  });

  it("give the tree a persona's parameters, with explicit keys on top; the bare id is the study's tree", () => {
    expect(treeParameters({}, DEFAULT_CONFIG)).toEqual(STUDY_TREE);
    const cautious = PERSONAS.find((p) => p.name === 'cautious')!;
    expect(treeParameters({ persona: 'cautious' }, DEFAULT_CONFIG)).toEqual(cautious.tree);
    expect(treeParameters({ persona: 'cautious', reaction: 0.5, securers: 0 }, DEFAULT_CONFIG)).toEqual({ ...cautious.tree, reactionTicks: 25, securers: 0 });
  });

  it('play under their canonical name, which the replay records, and the replay verifies', async () => {
    const match = await runMatch({ blue: 'bt-scripted:reaction=0.3:persona=erratic', red: 'random:period=1', seed: 4 }, { platform: TEST_PLATFORM });
    const summary = match.summary();
    expect(summary.blue).toBe('bt-scripted:persona=erratic:reaction=0.3');
    expect(summary.red).toBe('random:period=1');
    const replay = parseReplay(JSON.stringify(match.replay()));
    expect(replay.teams).toEqual({ blue: 'bt-scripted:persona=erratic:reaction=0.3', red: 'random:period=1' });
    expect(verifyReplay(replay).ok).toBe(true);
    // The same variant written in another key order is the same entrant and the same match.
    const again = await runMatch({ blue: 'bt-scripted:persona=erratic:reaction=0.3', red: 'random:period=1', seed: 4 }, { platform: TEST_PLATFORM, record: false });
    expect(again.summary().hash).toBe(summary.hash);
  });

  it('llm variants set the format, rate, events, temperature, persona and skills over the settings', async () => {
    const platform = llmPlatform(new RuleChatClient(), { timing: { kind: 'lockstep' }, skills: 'scripted' });
    const match = await runMatch(
      { blue: 'llm:format=json:rate=1:events=elimination+respawn:temperature=0.5:persona=cautious', red: 'heuristic', seed: 2, config: { ...DEFAULT_CONFIG, episodeSeconds: 6 } },
      { platform },
    );
    const strategist = llmStrategistOf(match.controllers[0])!;
    expect(strategist.format).toBe('json');
    expect(strategist.ratePeriodTicks).toBe(50);
    expect([...strategist.events].sort()).toEqual(['elimination', 'respawn']);
    expect(strategist.temperature).toBe(0.5);
    expect(match.summary().blue).toBe('llm:events=elimination+respawn:format=json:persona=cautious:rate=1:temperature=0.5');
    // The persona's style reaches the model in the system prompt.
    const client = new RuleChatClient();
    const seen: string[] = [];
    const spy = { model: 'rules', complete: (r: Parameters<RuleChatClient['complete']>[0]) => (seen.push(r.messages[0]!.content), client.complete(r)) };
    const styled = llmPlatform(spy, { timing: { kind: 'lockstep' }, skills: 'scripted' });
    await runMatch({ blue: 'llm:persona=cautious', red: 'heuristic', seed: 2, config: { ...DEFAULT_CONFIG, episodeSeconds: 2 } }, { platform: styled });
    expect(seen[0]).toContain(`Play style: ${PERSONAS.find((p) => p.name === 'cautious')!.prompt}`);
  });

  it("llm:skills=scripted needs no trained models, whatever the settings say", async () => {
    const platform = llmPlatform(new RuleChatClient(), { skills: 'rl' }, null, { models: (await import('../../src/teams')).createPlatform().models });
    expect(await teamAvailability('llm', platform)).toMatchObject({ ok: false });
    expect(await teamAvailability('llm:skills=scripted', platform)).toMatchObject({ ok: true, needs: { models: [] } });
  });
});

describe('personas', () => {
  it('are at least six, each with a description, a prompt fragment and tree parameters', () => {
    expect(PERSONAS.length).toBeGreaterThanOrEqual(6);
    expect(new Set(PERSONAS.map((p) => p.name)).size).toBe(PERSONAS.length);
    for (const p of PERSONAS) {
      expect(p.description.length).toBeGreaterThan(10);
      expect(p.prompt.length).toBeGreaterThan(10);
      expect(p.tree).not.toEqual(STUDY_TREE);
    }
  });

  it('play measurably differently: cautious retreats more than aggressive, the camper secures more than the flanker', async () => {
    const shares = async (team: string) => {
      const seconds = { navigate: 0, combat: 0, secure: 0, retreat: 0 };
      for (let seed = 1; seed <= 6; seed++) {
        const summary = (await runMatch({ blue: team, red: 'heuristic', seed }, { platform: TEST_PLATFORM, record: false })).summary();
        for (const a of summary.agents.filter((x) => x.team === 'blue')) for (const [k, v] of Object.entries(a.skillSeconds)) seconds[k as keyof typeof seconds] += v ?? 0;
      }
      const total = Object.values(seconds).reduce((s, v) => s + v, 0);
      return Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, v / total])) as typeof seconds;
    };
    const persona = (p: string) => shares(`bt-scripted:persona=${p}`);
    const [aggressive, cautious, camper, flanker] = await Promise.all([
      persona('aggressive'),
      persona('cautious'),
      persona('zone-camper'),
      persona('flanker'),
    ]);
    expect(aggressive.retreat).toBe(0);
    expect(cautious.retreat).toBeGreaterThan(0.02);
    expect(flanker.secure).toBe(0);
    expect(camper.secure).toBeGreaterThan(0.2);
  });
});

describe('llm:model=', () => {
  it('reaches another model the same way: a server model by name; the page cannot switch', async () => {
    const { nodeLlmAccess } = await import('../../src/llm/node');
    const { parseLlmSpec } = await import('../../src/llm');
    const { createPlatform, createTeam, teamAvailability: available } = await import('../../src/teams');
    const seen: string[] = [];
    const access = nodeLlmAccess({
      spec: parseLlmSpec({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'default-model', LLM_SKILLS: 'scripted' }),
      createClient: (settings) => {
        seen.push(settings.model);
        return new RuleChatClient(settings.model);
      },
    });
    const platform = createPlatform({ llm: access });
    const ctx = { team: 0 as const, seed: 1, config: DEFAULT_CONFIG, platform };
    expect(llmStrategistOf(await createTeam('llm:model=other-model', ctx))!.model).toBe('other-model');
    expect(llmStrategistOf(await createTeam('llm', ctx))!.model).toBe('default-model');
    expect(seen).toEqual(['other-model', 'default-model']);
    // A local model that is not pulled is reported by the probe, naming it.
    const local = createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_DIR: '/nonexistent', LLM_SKILLS: 'scripted' }) }) });
    const probe = await available('llm:model=smollm2-135m', local);
    expect(probe.ok).toBe(false);
    expect(probe.ok ? '' : probe.reason).toMatch(/smollm2-135m is not pulled yet/);
    // A platform whose model cannot be switched (the page's proxy) says so.
    const fixed = llmPlatform(new RuleChatClient(), { skills: 'scripted' });
    await expect(createTeam('llm:model=other', { ...ctx, platform: fixed })).rejects.toThrow(/model=other: this language model cannot be switched here/);
  });
});

/** A platform on the local engine's settings from `env`, whose engine is a rule client recording what each load was asked. */
async function recordingPlatform(env: Record<string, string>) {
  const { nodeLlmAccess } = await import('../../src/llm/node');
  const { parseLlmSpec } = await import('../../src/llm');
  const { createPlatform } = await import('../../src/teams');
  const opened: { adapter: string | null; format: string }[] = [];
  const access = nodeLlmAccess({
    spec: parseLlmSpec(env),
    openLocal: async (settings) => {
      opened.push({ adapter: settings.adapter, format: settings.format });
      return new RuleChatClient(settings.model);
    },
  });
  return { platform: createPlatform({ llm: access }), opened };
}

describe('llm:adapter=none', () => {
  it('runs the local model without its adapter, asked in the default format; a server refuses it by name', async () => {
    const { nodeLlmAccess } = await import('../../src/llm/node');
    const { parseLlmSpec, connectionOwner } = await import('../../src/llm');
    const { createPlatform, createTeam, teamAvailability: available } = await import('../../src/teams');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = freshDir();
    const gguf = join(dir, 'model.gguf');
    const adapter = join(dir, 'adapter.gguf');
    writeFileSync(gguf, 'not a model');
    writeFileSync(adapter, 'not an adapter');
    const { platform, opened } = await recordingPlatform({ HILLMIND_LLM_GGUF: gguf, LLM_ADAPTER: adapter, LLM_SKILLS: 'scripted' });
    const ctx = { team: 0 as const, seed: 1, config: DEFAULT_CONFIG, platform };
    await createTeam('llm', ctx);
    await createTeam('llm:adapter=none', ctx);
    // A named adapter is kept in any format; the model alone is one connection whatever it is asked in.
    expect(connectionOwner(platform.llm.withModel!({ format: 'json' }))).toBe(platform.llm);
    expect(connectionOwner(platform.llm.withModel!({ adapter: 'none', format: 'json' }))).toBe(platform.llm.withModel!({ adapter: 'none' }));
    expect(opened).toEqual([
      { adapter, format: 'compact' },
      { adapter: null, format: 'compact' },
    ]);
    // A named adapter belongs to a pulled model, not to a GGUF file of one's own.
    const named = await available('llm:adapter=rules', platform);
    expect(named.ok ? '' : named.reason).toMatch(/adapter=rules names an adapter shipped for a pulled model, but HILLMIND_LLM_GGUF runs .*model\.gguf: set LLM_ADAPTER=/);
    await platform.close();
    const server = createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'm', LLM_SKILLS: 'scripted' }) }) });
    // A choice that opens the same model is the same access: any format of a server's model, its own name.
    const llm = server.llm;
    expect(llm.withModel!({ model: 'm' })).toBe(llm);
    expect([llm.withModel!({ format: 'json' }), llm.withModel!({ model: 'm', format: 'json' })].every((a) => connectionOwner(a) === llm)).toBe(true);
    expect(llm.withModel!({ model: 'other' })).not.toBe(llm);
    expect(connectionOwner(llm.withModel!({ model: 'other', format: 'json' }))).toBe(llm.withModel!({ model: 'other' }));
    const probe = await available('llm:adapter=none', server);
    expect(probe.ok ? '' : probe.reason).toMatch(/adapter=none names a LoRA adapter of the local model.*a server's model has no adapter here/);
    expect(() => resolveTeam('llm:adapter=Yes!')).toThrow(/adapter: must be none .* or the name of an adapter shipped beside/);
  });
});

describe('two formats of one model', () => {
  it('each variant answers in its own format, whichever opened the model first, over one connection', async () => {
    const { parseLlmSpec, connectionOwner: owner } = await import('../../src/llm');
    const { nodeLlmAccess } = await import('../../src/llm/node');
    const { createPlatform } = await import('../../src/teams');
    const { checkTeams } = await import('../../src/tournament/preflight');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const gguf = join(freshDir(), 'model.gguf');
    writeFileSync(gguf, 'not a model');
    // Both orders: the format a variant leaves unnamed is the model's default (compact), never the first opener's.
    for (const order of [['json', undefined], [undefined, 'json']] as const) {
      let probes = 0;
      const client = new RuleChatClient('m');
      const complete = client.complete.bind(client);
      client.complete = (...args: Parameters<typeof complete>) => (probes++, complete(...args));
      let loads = 0;
      const access = nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_GGUF: gguf, LLM_SKILLS: 'scripted' }), openLocal: async () => (loads++, client) });
      const platform = createPlatform({ llm: access });
      const asked = order.map((format) => access.withModel!({ adapter: 'none', ...(format ? { format } : {}) }));
      const formats = await Promise.all(asked.map(async (a) => (await a.connect()).settings.format));
      expect(formats).toEqual(order.map((format) => format ?? 'compact'));
      expect(owner(asked[0]!)).toBe(owner(asked[1]!));
      expect(loads).toBe(1);
      // The tournament's preflight probes the model once, not once a format.
      await checkTeams(order.map((format) => `llm:adapter=none${format ? `:format=${format}` : ''}`), platform);
      expect(probes).toBe(1);
      await platform.close();
    }
  });
});

describeWithLocalModel('llm:adapter=<name> on the local model')('llm:adapter=<name> on the local model', () => {
  it('runs an adapter shipped beside the default one, asked in the format it was taught, and refuses a name the model lacks', async () => {
    const { createTeam, teamAvailability: available } = await import('../../src/teams');
    const { platform, opened } = await recordingPlatform({ LLM_SKILLS: 'scripted' });
    const ctx = { team: 0 as const, seed: 1, config: DEFAULT_CONFIG, platform };
    await createTeam('llm', ctx);
    await createTeam('llm:adapter=rules', ctx);
    await createTeam('llm:adapter=rules:format=terse', ctx);
    expect(opened).toEqual([
      { adapter: expect.stringMatching(/strategist-gemma3-270m\.gguf$/), format: 'terse' },
      { adapter: 'models/strategist-gemma3-270m-rules.gguf', format: 'terse' },
    ]);
    const probe = await available('llm:adapter=teacher', platform);
    expect(probe.ok ? '' : probe.reason).toMatch(/adapter=teacher: the local model gemma3-270m ships no adapter of that name; llm:adapter= takes one of: none, rules/);
    // An adapter answers only in the format it was taught.
    const json = await available('llm:adapter=rules:format=json', platform);
    expect(json.ok ? '' : json.reason).toMatch(/adapter=rules was taught the terse format, and is asked json/);
    await platform.close();
  });
});

describeWithLocalModel('llm:format= on the local model')('llm:format= on the local model', () => {
  it("asks the model alone in a format its shipped adapter was not taught, and shares the model's own access otherwise", async () => {
    const { createTeam } = await import('../../src/teams');
    const { platform, opened } = await recordingPlatform({ LLM_SKILLS: 'scripted' });
    const access = platform.llm;
    const ctx = { team: 0 as const, seed: 1, config: DEFAULT_CONFIG, platform };
    await createTeam('llm', ctx);
    await createTeam('llm:format=terse', ctx);
    await createTeam('llm:format=json', ctx);
    // The shipped adapter answers terse, the format it was taught; json is the model's alone.
    expect(opened).toEqual([
      { adapter: expect.stringMatching(/strategist-gemma3-270m\.gguf$/), format: 'terse' },
      { adapter: null, format: 'json' },
    ]);
    expect(access.withModel!({ format: 'terse' })).toBe(access);
    await platform.close();
  });
});

