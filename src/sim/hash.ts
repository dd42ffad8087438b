/**
 * A fingerprint of a world's whole mutable state, for determinism checks and replay
 * verification. Two FNV-1a lanes over the exact bits of every number give 64 bits.
 */
import type { World } from './world';

const buffer = new Float64Array(1);
const bytes = new Uint8Array(buffer.buffer);

export function hashWorld(world: World): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  const mix = (value: number) => {
    buffer[0] = value;
    for (let i = 0; i < 8; i++) {
      h1 = Math.imul(h1 ^ bytes[i]!, 0x01000193);
      h2 = Math.imul(h2 ^ bytes[i]!, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
  };
  mix(world.tick);
  mix(world.rngState);
  mix(world.zone.x);
  mix(world.zone.y);
  mix(world.progress[0]);
  mix(world.progress[1]);
  mix(world.outcome === null ? -1 : world.outcome.kind === 'draw' ? 2 : world.outcome.team);
  for (const p of world.pickups) mix(p.respawnTimer);
  for (const a of world.agents) {
    mix(a.x);
    mix(a.y);
    mix(a.angle);
    mix(a.speedFraction);
    mix(a.health);
    mix(a.alive ? 1 : 0);
    mix(a.respawnTimer);
    mix(a.fireCooldown);
    mix(a.dashTimer);
    mix(a.dashCooldown);
    mix(a.dashDirX);
    mix(a.dashDirY);
    mix(a.inZone ? 1 : 0);
    const s = a.stats;
    mix(s.kills);
    mix(s.deaths);
    mix(s.shots);
    mix(s.hits);
    mix(s.damageDealt);
    mix(s.pickups);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}
