import { describe, expect, it } from 'vitest';
import { createWorld, idleAction, step } from '../../src/sim';
import { PLAYER_ONE, PLAYER_TWO, bindingIntent, emptyIntent, intentToAction, padIntent, turnTowards } from '../../src/web/controls';
import { PAD, PX_PER_M, canvasSize, displayToWorld, toPx } from '../../src/web/layout';

function moveOnce(angle: number, dx: number, dy: number) {
  const world = createWorld(5);
  const agent = world.agents[0]!;
  agent.angle = angle;
  const x0 = agent.x;
  const y0 = agent.y;
  const actions = world.agents.map(() => idleAction());
  const intent = { ...emptyIntent(), dx, dy };
  for (let i = 0; i < 10; i++) {
    intentToAction(world, 0, intent, actions[0]!);
    step(world, actions);
  }
  return { dx: agent.x - x0, dy: agent.y - y0 };
}

describe('human controls', () => {
  it('move in the screen direction whatever the agent faces', () => {
    for (const angle of [0, 1, Math.PI / 2, -2.5, Math.PI]) {
      const right = moveOnce(angle, 1, 0);
      expect(right.dx).toBeCloseTo(1, 5); // 5 m/s for 0.2 s
      expect(Math.abs(right.dy)).toBeLessThan(1e-9);
      const up = moveOnce(angle, 0, -1);
      expect(up.dy).toBeCloseTo(-1, 5);
      expect(Math.abs(up.dx)).toBeLessThan(1e-9);
    }
  });

  it('never exceed top speed on diagonals', () => {
    const d = moveOnce(0.3, 1, 1);
    expect(Math.hypot(d.dx, d.dy)).toBeCloseTo(1, 5);
  });

  it('turn towards an aim point without overshooting', () => {
    expect(turnTowards(0, 0.04, 4, 0.02)).toBeCloseTo(0.5);
    expect(turnTowards(0, 2, 4, 0.02)).toBe(1);
    expect(turnTowards(0, -2, 4, 0.02)).toBe(-1);
    expect(turnTowards(3, -3, 4, 0.02)).toBe(1); // the short way round through PI
    const world = createWorld(5);
    const actions = world.agents.map(() => idleAction());
    const a = world.agents[0]!;
    const intent = { ...emptyIntent(), aimX: a.x, aimY: a.y + 5 };
    for (let i = 0; i < 40; i++) {
      intentToAction(world, 0, intent, actions[0]!);
      step(world, actions);
    }
    expect(a.angle).toBeCloseTo(Math.PI / 2, 6);
  });

  it('read keys per player and a gamepad', () => {
    const keys = new Set(['KeyD', 'KeyW', 'ArrowLeft', 'Space', 'KeyL']);
    const one = bindingIntent(keys, PLAYER_ONE, emptyIntent());
    expect([one.dx, one.dy, one.turn, one.fire, one.dash]).toEqual([1, -1, -1, true, false]);
    const two = bindingIntent(keys, PLAYER_TWO, emptyIntent());
    expect([two.dx, two.dy, two.fire]).toEqual([1, 0, false]);
    const pad = padIntent({ axes: [0.1, 0.9, 0, -1], pressed: [false, false, false, false, true, false, false, true] }, emptyIntent());
    expect(pad.dy).toBeCloseTo(0.9);
    expect(pad.dx).toBe(0.1);
    expect(pad.aimAngle).toBeCloseTo(-Math.PI / 2);
    expect(pad.fire && pad.dash).toBe(true);
    const still = padIntent({ axes: [0.1, 0.1, 0.1, 0.1], pressed: [] }, emptyIntent());
    expect([still.dx, still.dy, still.aimAngle]).toEqual([0, 0, null]);
  });

  it('map the displayed canvas back to world metres', () => {
    const size = canvasSize(createWorld(1).config);
    expect(size.width).toBe(32 * PX_PER_M + 2 * PAD);
    const p = displayToWorld(toPx(10) / 2, toPx(4) / 2, size.width / 2, size.height / 2, size);
    expect(p.x).toBeCloseTo(10);
    expect(p.y).toBeCloseTo(4);
  });
});
