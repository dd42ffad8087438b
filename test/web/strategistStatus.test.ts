/**
 * What the strategist panel shows of a language model: a call out and since when, how long
 * the last answer took, and a timeout or failure as it happens, not one line all match.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/sim';
import { MatchPanels } from '../../src/web/matchPanels';
import { modelStatusLine } from '../../src/web/panels/strategist';
import { createStores } from '../../src/web/stores';
import { VirtualClock } from '../helpers/platform';
import { TestClient, createLlmMatch, delayed, hang } from '../llm/helpers';

const HZ = DEFAULT_CONFIG.tickHz;

describe('LlmStrategist.status and the panel line', () => {
  it('says a call is out, then how long the answer took', async () => {
    const client = new TestClient((_i, request, _signal, clock) => delayed(request, 300, clock));
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'lockstep' }, rateHz: 2, timeoutMs: 2000 });
    expect(modelStatusLine(strategist.status(), HZ)).toBe('Model: no call yet · 0 asked, 0 answered');
    // The first tick asks; before the answer arrives the call is out.
    const pending = match.advance();
    expect(strategist.status().askedAtTick).toBe(0);
    expect(modelStatusLine(strategist.status(), HZ)).toMatch(/^Model: waiting for the model \(asked at 0:00\.0\) · 1 asked, 0 answered$/);
    await pending;
    for (let i = 0; i < 5; i++) await match.advance();
    const status = strategist.status();
    expect(status.last?.ok).toBe(true);
    expect(modelStatusLine(status, HZ)).toMatch(/last answer took 300 ms · \d+ asked, 1 answered$/);
    match.close();
  });

  it('stops saying it waits for the model once the match has ended', async () => {
    const client = new TestClient((_i, _request, signal) => hang(signal));
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'lockstep' }, rateHz: 2, timeoutMs: 60_000 });
    const pending = match.advance();
    const stores = createStores();
    const panels = new MatchPanels(stores, new VirtualClock());
    const screen = { world: match.world, match, player: null, countdownMs: 0 };
    panels.publish(screen, true);
    expect(modelStatusLine(stores.strategist.getState().models[0]!, HZ)).toMatch(/^Model: waiting for the model/);
    // The match ends with the call still out (as a real-time llm team's last call often is).
    match.world.outcome = { kind: 'draw' };
    panels.publish(screen, true);
    const line = modelStatusLine(stores.strategist.getState().models[0]!, HZ);
    expect(line).not.toMatch(/waiting/);
    expect(line).toBe('Model: 1 asked, 0 answered');
    strategist.close();
    await Promise.resolve(pending).catch(() => undefined);
  });

  it('says when a call timed out, and counts it', async () => {
    const client = new TestClient((_i, _request, signal) => hang(signal));
    const { match, strategist } = await createLlmMatch({ client, timing: { kind: 'lockstep' }, rateHz: 2, timeoutMs: 500 });
    for (let i = 0; i < 3; i++) await match.advance();
    const status = strategist.status();
    expect(status.timeouts).toBe(1);
    expect(modelStatusLine(status, HZ)).toMatch(/last call timed out: no answer within 500 ms · \d+ asked, 0 answered, 1 timed out, 0 failed/);
    match.close();
  });

  it('says why an answer was refused', () => {
    const line = modelStatusLine(
      { askedAtTick: null, last: { team: 0, requestTick: 50, applyTick: 60, trigger: 'periodic', latencyMs: 80, cached: false, ok: false, failure: 'unparsable', reason: 'no skill numbers in "You"' }, requests: 3, answers: 2, timeouts: 0, otherFailures: 1 },
      HZ,
    );
    expect(line).toBe('Model: last call failed (unparsable): no skill numbers in "You" · 3 asked, 2 answered, 0 timed out, 1 failed');
  });
});
