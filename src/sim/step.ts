/**
 * step(): the rules of King of the Hill, one 50 Hz tick at a time. It mutates the world in
 * place (no allocation on quiet ticks) and pushes what happened onto `events`.
 *
 * step() is the only thing that changes a world once its episode is under way. Two other
 * writers exist, and neither can change what a match does:
 * - observe() fills world.observationCache, a derived copy of observations keyed by tick
 *   (the state hash ignores it). It holds what observe() would compute again, because the
 *   state it was computed from changes only in step(), which advances the tick.
 * - Training scenarios (src/train/scenarios.ts, setup()) place agents and set their health on
 *   a fresh world at tick 0, before anything observes it, so no cached observation is stale.
 *   Matches and replays never call them: a seed and the actions still reproduce a match.
 * Anything else that moves agents by hand (tests, benchmarks) must do so before the tick's
 * first observe() or reset the cache's ticks to -1.
 *
 * Order within a tick: timers and respawns, movement and collisions, simultaneous fire,
 * pickups, zone occupancy and progress, then the win or draw check.
 */
import { type Action, clampUnit } from './actions';
import type { SimEvent } from './events';
import { castRay, distanceToWall, rayToCircle, wrapAngle } from './geometry';
import { type Agent, type Team, type World, type ZoneStatus, spawnPose, worldRandom } from './world';
import * as det from './detMath';

/** Shot targets chosen this tick, applied after everyone has fired (-2: no shot, -1: a miss). */
const pendingTarget = new Int32Array(64);

export function step(world: World, actions: readonly Action[], events: SimEvent[] = []): SimEvent[] {
  if (world.outcome) throw new Error(`the episode is over (tick ${world.tick}); create a new world`);
  if (actions.length !== world.agents.length) {
    throw new Error(`step() needs one action per agent: expected ${world.agents.length}, got ${actions.length}`);
  }
  world.tick++;
  updateTimers(world, events);
  for (const agent of world.agents) {
    if (agent.alive) moveAgent(world, agent, actions[agent.id]!, events);
  }
  separateAgents(world);
  fireWeapons(world, actions, events);
  collectPickups(world, events);
  updateZone(world, events);
  checkEnd(world, events);
  return events;
}

function updateTimers(world: World, events: SimEvent[]): void {
  const { tick } = world;
  for (let i = 0; i < world.pickups.length; i++) {
    const pickup = world.pickups[i]!;
    if (pickup.respawnTimer > 0 && --pickup.respawnTimer === 0) {
      events.push({ type: 'pickupReturn', tick, pickup: i });
    }
  }
  for (const agent of world.agents) {
    if (!agent.alive) {
      if (--agent.respawnTimer <= 0) respawn(world, agent, events);
      continue;
    }
    if (agent.fireCooldown > 0) agent.fireCooldown--;
    if (agent.dashCooldown > 0) agent.dashCooldown--;
  }
}

function respawn(world: World, agent: Agent, events: SimEvent[]): void {
  const pose = spawnPose(world.config, agent.team, agent.slot);
  agent.x = pose.x;
  agent.y = pose.y;
  agent.angle = pose.angle;
  agent.alive = true;
  agent.health = world.config.agent.maxHealth;
  agent.respawnTimer = 0;
  agent.fireCooldown = 0;
  agent.dashTimer = 0;
  agent.dashCooldown = 0;
  agent.speedFraction = 0;
  events.push({ type: 'respawn', tick: world.tick, agent: agent.id });
}

function moveAgent(world: World, agent: Agent, action: Action, events: SimEvent[]): void {
  const { config, timings } = world;
  const { speed, turnRate } = config.agent;
  agent.angle = wrapAngle(agent.angle + clampUnit(action.turn) * turnRate * timings.dt);
  const cos = det.cos(agent.angle);
  const sin = det.sin(agent.angle);

  // Intended direction in the world frame: forward (cos, sin), left (-sin, cos).
  let move = clampUnit(action.move);
  let strafe = clampUnit(action.strafe);
  const length = Math.sqrt(move * move + strafe * strafe);
  if (length > 1) {
    move /= length;
    strafe /= length;
  }
  let vx = speed * (move * cos - strafe * sin);
  let vy = speed * (move * sin + strafe * cos);

  if (action.dash > 0.5 && agent.dashCooldown === 0 && agent.dashTimer === 0) {
    const vLen = Math.sqrt(vx * vx + vy * vy);
    agent.dashDirX = vLen > 0 ? vx / vLen : cos;
    agent.dashDirY = vLen > 0 ? vy / vLen : sin;
    agent.dashTimer = timings.dashDuration;
    agent.dashCooldown = timings.dashCooldown;
    events.push({ type: 'dash', tick: world.tick, agent: agent.id });
  }
  if (agent.dashTimer > 0) {
    agent.dashTimer--;
    vx = agent.dashDirX * speed * config.dash.speedMultiplier;
    vy = agent.dashDirY * speed * config.dash.speedMultiplier;
  }
  agent.speedFraction = Math.sqrt(vx * vx + vy * vy) / speed;
  agent.x += vx * timings.dt;
  agent.y += vy * timings.dt;
  resolveWalls(world, agent);
}

/** Push an agent out of walls and back inside the arena. */
function resolveWalls(world: World, agent: Agent): void {
  const { walls, width, height } = world.config.arena;
  const r = world.config.agent.radius;
  for (let i = 0; i < walls.length; i++) {
    const w = walls[i]!;
    const d = distanceToWall(agent.x, agent.y, w);
    if (d >= r) continue;
    if (d > 0) {
      const cx = Math.min(Math.max(agent.x, w.minX), w.maxX);
      const cy = Math.min(Math.max(agent.y, w.minY), w.maxY);
      agent.x = cx + ((agent.x - cx) / d) * r;
      agent.y = cy + ((agent.y - cy) / d) * r;
    } else {
      // Centre inside the wall (only after a large push): leave by the shortest side.
      const left = agent.x - w.minX;
      const right = w.maxX - agent.x;
      const down = agent.y - w.minY;
      const up = w.maxY - agent.y;
      const least = Math.min(left, right, down, up);
      if (least === left) agent.x = w.minX - r;
      else if (least === right) agent.x = w.maxX + r;
      else if (least === down) agent.y = w.minY - r;
      else agent.y = w.maxY + r;
    }
  }
  agent.x = Math.min(Math.max(agent.x, r), width - r);
  agent.y = Math.min(Math.max(agent.y, r), height - r);
}

/**
 * Agents are solid: overlapping pairs are pushed apart equally. When a wall takes back one
 * agent's share (it is pinned), the other agent is pushed the rest of the way.
 */
function separateAgents(world: World): void {
  const { agents } = world;
  const minDist = 2 * world.config.agent.radius;
  for (let i = 0; i < agents.length; i++) {
    const a = agents[i]!;
    if (!a.alive) continue;
    for (let j = i + 1; j < agents.length; j++) {
      const b = agents[j]!;
      if (!b.alive) continue;
      const d = det.hypot(b.x - a.x, b.y - a.y);
      if (d >= minDist) continue;
      const dx = d === 0 ? 1 : (b.x - a.x) / d;
      const dy = d === 0 ? 0 : (b.y - a.y) / d;
      const push = (minDist - d) / 2;
      a.x -= dx * push;
      a.y -= dy * push;
      b.x += dx * push;
      b.y += dy * push;
      resolveWalls(world, a);
      resolveWalls(world, b);
      pushApart(world, a, b, minDist) || pushApart(world, b, a, minDist);
    }
  }
}

/** Move `free` straight away from `fixed` until they touch; true when that left no overlap. */
function pushApart(world: World, fixed: Agent, free: Agent, minDist: number): boolean {
  const d = det.hypot(free.x - fixed.x, free.y - fixed.y);
  if (d >= minDist) return true;
  const dx = d === 0 ? 1 : (free.x - fixed.x) / d;
  const dy = d === 0 ? 0 : (free.y - fixed.y) / d;
  free.x = fixed.x + dx * minDist;
  free.y = fixed.y + dy * minDist;
  resolveWalls(world, free);
  return det.hypot(free.x - fixed.x, free.y - fixed.y) >= minDist - 1e-9;
}

/**
 * Everyone who fires this tick fires at the positions after movement; hits are applied
 * afterwards, so two agents can eliminate each other on the same tick and agent order
 * gives no team an edge.
 */
function fireWeapons(world: World, actions: readonly Action[], events: SimEvent[]): void {
  const { agents, config, timings, tick } = world;
  const { range, spreadStill, spreadMoving } = config.weapon;
  const { walls, width, height } = config.arena;
  for (const shooter of agents) {
    pendingTarget[shooter.id] = -2;
    if (!shooter.alive || shooter.fireCooldown > 0 || !(actions[shooter.id]!.fire > 0.5)) continue;
    shooter.fireCooldown = timings.fireCooldown;
    shooter.stats.shots++;
    const spread = spreadStill + spreadMoving * shooter.speedFraction;
    const angle = shooter.angle + (worldRandom(world) * 2 - 1) * spread;
    const dx = det.cos(angle);
    const dy = det.sin(angle);
    let t = castRay(walls, width, height, shooter.x, shooter.y, dx, dy, range);
    let target = -1;
    for (const other of agents) {
      if (!other.alive || other.team === shooter.team) continue;
      const tc = rayToCircle(shooter.x, shooter.y, dx, dy, other.x, other.y, config.agent.radius);
      if (tc < t) {
        t = tc;
        target = other.id;
      }
    }
    pendingTarget[shooter.id] = target;
    events.push({
      type: 'shot',
      tick,
      agent: shooter.id,
      fromX: shooter.x,
      fromY: shooter.y,
      toX: shooter.x + dx * t,
      toY: shooter.y + dy * t,
      target,
    });
  }
  for (const shooter of agents) {
    const targetId = pendingTarget[shooter.id]!;
    if (targetId < 0) continue;
    const target = agents[targetId]!;
    const damage = Math.min(config.weapon.damage, target.health);
    shooter.stats.hits++;
    shooter.stats.damageDealt += damage;
    target.health -= damage;
    events.push({ type: 'hit', tick, agent: shooter.id, target: targetId, damage, health: target.health });
    if (target.health <= 0 && target.alive) eliminate(world, target, shooter, events);
  }
}

function eliminate(world: World, victim: Agent, killer: Agent, events: SimEvent[]): void {
  const { tick } = world;
  victim.alive = false;
  victim.health = 0;
  victim.respawnTimer = world.timings.respawnDelay;
  victim.dashTimer = 0;
  victim.speedFraction = 0;
  victim.stats.deaths++;
  killer.stats.kills++;
  events.push({ type: 'kill', tick, agent: killer.id, target: victim.id });
  const team = victim.team;
  if (world.progress[team] > 0) {
    world.progress[team] = Math.floor(world.progress[team] * world.config.progressKeptOnElimination);
    events.push({ type: 'progress', tick, team, seconds: world.progress[team] / world.config.tickHz, reason: 'elimination' });
  }
}

function collectPickups(world: World, events: SimEvent[]): void {
  const { collectRadius } = world.config.pickups;
  const maxHealth = world.config.agent.maxHealth;
  for (const agent of world.agents) {
    if (!agent.alive || agent.health >= maxHealth) continue;
    for (let i = 0; i < world.pickups.length; i++) {
      const pickup = world.pickups[i]!;
      if (pickup.respawnTimer > 0 || agent.health >= maxHealth) continue;
      const dx = agent.x - pickup.x;
      const dy = agent.y - pickup.y;
      if (dx * dx + dy * dy > collectRadius * collectRadius) continue;
      agent.health = maxHealth;
      agent.stats.pickups++;
      pickup.respawnTimer = world.timings.pickupRespawn;
      events.push({ type: 'pickup', tick: world.tick, agent: agent.id, pickup: i });
    }
  }
}

function updateZone(world: World, events: SimEvent[]): void {
  const { zone, tick } = world;
  let blueInside = 0;
  let redInside = 0;
  for (const agent of world.agents) {
    const dx = agent.x - zone.x;
    const dy = agent.y - zone.y;
    const now = agent.alive && dx * dx + dy * dy <= zone.radius * zone.radius;
    if (now !== agent.inZone) {
      agent.inZone = now;
      events.push({ type: now ? 'zoneEnter' : 'zoneLeave', tick, agent: agent.id });
    }
    if (now && agent.team === 0) blueInside++;
    else if (now) redInside++;
  }
  const status: ZoneStatus =
    blueInside > 0 && redInside > 0 ? 'contested' : blueInside > 0 ? 'blue' : redInside > 0 ? 'red' : 'empty';
  if (status !== world.zoneStatus) {
    world.zoneStatus = status;
    events.push({ type: 'zoneStatus', tick, status });
  }
  if (status === 'blue' || status === 'red') {
    const team: Team = status === 'blue' ? 0 : 1;
    const progress = ++world.progress[team];
    if (progress % world.config.tickHz === 0) {
      events.push({ type: 'progress', tick, team, seconds: progress / world.config.tickHz, reason: 'capture' });
    }
  }
}

function checkEnd(world: World, events: SimEvent[]): void {
  const { tick, timings } = world;
  // Only one team gains progress per tick, so at most one can reach the hold time.
  const team: Team | -1 = world.progress[0] >= timings.winHold ? 0 : world.progress[1] >= timings.winHold ? 1 : -1;
  if (team !== -1) {
    world.outcome = { kind: 'win', team };
    events.push({ type: 'win', tick, team });
    return;
  }
  if (tick >= timings.episode) {
    world.outcome = { kind: 'draw' };
    events.push({ type: 'draw', tick });
  }
}
