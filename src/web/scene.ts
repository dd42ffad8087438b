/**
 * The arena, drawn with Phaser from a RenderView each display frame: floor, bases, walls,
 * the zone with both teams' progress, pickups and their return, agents (interpolated
 * between ticks) with facing, health and current skill, shot tracers, hits, eliminations
 * and respawns. It reads the simulation and never writes it.
 */
import * as Phaser from 'phaser';
import type { GameConfig, World } from '../sim';
import { spawnPose } from '../sim';
import { PAD, PX_PER_M, canvasSize, toPx } from './layout';
import { EFFECT_MS, type Effect, type RenderView, interpolatedPose } from './view';

export const COLORS = {
  page: 0x0b0f17,
  floor: 0x111725,
  grid: 0x182033,
  border: 0x2c3952,
  wall: 0x2a3346,
  wallEdge: 0x44526e,
  team: [0x4c9aff, 0xff5c5c] as const,
  teamDark: [0x1d3f73, 0x6e2424] as const,
  teamPale: [0xa9cdff, 0xffb0b0] as const,
  contested: 0xf5b942,
  zoneIdle: 0x8d97ab,
  pickup: 0x3ddc84,
  white: 0xffffff,
  healthBack: 0x000000,
};

const STATUS_COLOR: Record<string, number> = {
  empty: COLORS.zoneIdle,
  blue: COLORS.team[0],
  red: COLORS.team[1],
  contested: COLORS.contested,
};

/** What the scene needs from the page: a view per frame. */
export interface ViewSource {
  view(): RenderView;
}

export class ArenaScene extends Phaser.Scene {
  private staticLayer!: Phaser.GameObjects.Graphics;
  private g!: Phaser.GameObjects.Graphics;
  private labels: Phaser.GameObjects.Text[] = [];
  private drawnConfig: GameConfig | null = null;

  constructor(private readonly source: ViewSource) {
    super('arena');
  }

  create(): void {
    this.staticLayer = this.add.graphics();
    this.g = this.add.graphics();
  }

  override update(): void {
    const view = this.source.view();
    const world = view.world;
    if (!world) return;
    if (world.config !== this.drawnConfig) this.drawStatic(world.config);
    const g = this.g;
    g.clear();
    this.drawZone(g, world);
    this.drawPickups(g, world);
    this.drawGhosts(g, world);
    this.drawTracers(g, view);
    this.drawAgents(g, view);
    this.drawEffects(g, view);
  }

  private drawStatic(config: GameConfig): void {
    this.drawnConfig = config;
    // A replay may bring another arena size.
    const size = canvasSize(config);
    if (this.scale.width !== size.width || this.scale.height !== size.height) this.scale.resize(size.width, size.height);
    const g = this.staticLayer;
    g.clear();
    const w = config.arena.width * PX_PER_M;
    const h = config.arena.height * PX_PER_M;
    g.fillStyle(COLORS.floor, 1);
    g.fillRect(PAD, PAD, w, h);
    // Home bases: a tint behind each team's spawn points.
    for (const team of [0, 1] as const) {
      const xs = config.arena.spawns[team].map((p) => p.x);
      const cx = xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
      const bw = 4 * PX_PER_M;
      g.fillStyle(COLORS.team[team], 0.07);
      g.fillRect(Math.max(PAD, toPx(cx) - bw / 2), PAD, bw, h);
    }
    g.lineStyle(1, COLORS.grid, 1);
    for (let x = 1; x < config.arena.width; x++) g.lineBetween(toPx(x), PAD, toPx(x), PAD + h);
    for (let y = 1; y < config.arena.height; y++) g.lineBetween(PAD, toPx(y), PAD + w, toPx(y));
    // Spawn points.
    for (const team of [0, 1] as const) {
      for (const p of config.arena.spawns[team]) {
        g.lineStyle(1.5, COLORS.team[team], 0.35);
        g.strokeCircle(toPx(p.x), toPx(p.y), config.agent.radius * PX_PER_M + 4);
      }
    }
    for (const wall of config.arena.walls) {
      const x = toPx(wall.minX);
      const y = toPx(wall.minY);
      const ww = (wall.maxX - wall.minX) * PX_PER_M;
      const wh = (wall.maxY - wall.minY) * PX_PER_M;
      g.fillStyle(COLORS.wall, 1);
      g.fillRect(x, y, ww, wh);
      g.lineStyle(2, COLORS.wallEdge, 1);
      g.strokeRect(x, y, ww, wh);
    }
    g.lineStyle(2, COLORS.border, 1);
    g.strokeRect(PAD, PAD, w, h);
  }

  private drawZone(g: Phaser.GameObjects.Graphics, world: World): void {
    const { zone } = world;
    const x = toPx(zone.x);
    const y = toPx(zone.y);
    const r = zone.radius * PX_PER_M;
    const color = STATUS_COLOR[world.zoneStatus] ?? COLORS.zoneIdle;
    g.fillStyle(color, world.zoneStatus === 'empty' ? 0.08 : 0.18);
    g.fillCircle(x, y, r);
    g.lineStyle(2, color, 0.9);
    g.strokeCircle(x, y, r);
    // Progress rings: blue inside, red outside, each a fraction of the hold that wins.
    const hold = world.timings.winHold;
    for (const team of [0, 1] as const) {
      const ringR = r + 5 + team * 6;
      g.lineStyle(4, COLORS.teamDark[team], 0.6);
      g.strokeCircle(x, y, ringR);
      const fraction = Math.min(1, world.progress[team] / hold);
      if (fraction > 0) {
        g.lineStyle(4, COLORS.team[team], 1);
        g.beginPath();
        g.arc(x, y, ringR, -Math.PI / 2, -Math.PI / 2 + fraction * 2 * Math.PI, false);
        g.strokePath();
      }
    }
  }

  private drawPickups(g: Phaser.GameObjects.Graphics, world: World): void {
    const r = 0.45 * PX_PER_M;
    const total = world.timings.pickupRespawn;
    for (const p of world.pickups) {
      const x = toPx(p.x);
      const y = toPx(p.y);
      if (p.respawnTimer === 0) {
        g.fillStyle(COLORS.pickup, 0.2);
        g.fillCircle(x, y, r + 4);
        g.fillStyle(COLORS.pickup, 1);
        g.fillCircle(x, y, r);
        g.fillStyle(COLORS.white, 1);
        g.fillRect(x - 2, y - r * 0.6, 4, r * 1.2);
        g.fillRect(x - r * 0.6, y - 2, r * 1.2, 4);
      } else {
        // Taken: a faint outline and a ring that fills as it comes back.
        g.lineStyle(1.5, COLORS.pickup, 0.3);
        g.strokeCircle(x, y, r);
        const back = 1 - p.respawnTimer / total;
        g.lineStyle(3, COLORS.pickup, 0.7);
        g.beginPath();
        g.arc(x, y, r + 4, -Math.PI / 2, -Math.PI / 2 + back * 2 * Math.PI, false);
        g.strokePath();
      }
    }
  }

  /** Eliminated agents: a ghost at their spawn point with the respawn countdown. */
  private drawGhosts(g: Phaser.GameObjects.Graphics, world: World): void {
    const r = world.config.agent.radius * PX_PER_M;
    const total = world.timings.respawnDelay;
    for (const a of world.agents) {
      if (a.alive) continue;
      const pose = spawnPose(world.config, a.team, a.slot);
      const x = toPx(pose.x);
      const y = toPx(pose.y);
      g.fillStyle(COLORS.team[a.team], 0.15);
      g.fillCircle(x, y, r);
      g.lineStyle(3, COLORS.team[a.team], 0.8);
      g.beginPath();
      g.arc(x, y, r + 3, -Math.PI / 2, -Math.PI / 2 + (1 - a.respawnTimer / total) * 2 * Math.PI, false);
      g.strokePath();
    }
  }

  private drawTracers(g: Phaser.GameObjects.Graphics, view: RenderView): void {
    for (const e of view.effects) {
      if (e.kind !== 'tracer') continue;
      const fade = 1 - (view.clock - e.born) / EFFECT_MS.tracer;
      if (fade <= 0) continue;
      g.lineStyle(2, COLORS.teamPale[e.team], 0.85 * fade);
      g.lineBetween(toPx(e.fromX), toPx(e.fromY), toPx(e.toX), toPx(e.toY));
      if (e.hit) {
        g.fillStyle(COLORS.white, fade);
        g.fillCircle(toPx(e.toX), toPx(e.toY), 3);
      }
    }
  }

  private drawAgents(g: Phaser.GameObjects.Graphics, view: RenderView): void {
    const world = view.world!;
    const r = world.config.agent.radius * PX_PER_M;
    const dashing = new Set<number>();
    for (const e of view.effects) if (e.kind === 'dash') dashing.add(e.agent);
    while (this.labels.length < world.agents.length) {
      this.labels.push(
        this.add
          .text(0, 0, '', { fontFamily: 'system-ui, sans-serif', fontSize: '15px', fontStyle: 'bold', color: '#dbe4f0', stroke: '#0b0f17', strokeThickness: 4 })
          .setOrigin(0.5, 1)
          .setDepth(10),
      );
    }
    world.agents.forEach((a, i) => {
      const label = this.labels[i]!;
      if (!a.alive) {
        label.setVisible(false);
        return;
      }
      const pose = interpolatedPose(view, a.id);
      const x = toPx(pose.x);
      const y = toPx(pose.y);
      const color = COLORS.team[a.team];
      const human = view.humanAgents.includes(a.id);
      if (dashing.has(a.id)) {
        g.fillStyle(color, 0.25);
        g.fillCircle(x - Math.cos(pose.angle) * r, y - Math.sin(pose.angle) * r, r * 0.9);
      }
      if (a.inZone) {
        g.lineStyle(2, COLORS.white, 0.35);
        g.strokeCircle(x, y, r + 5);
      }
      // Facing: a barrel and a pointed nose.
      const cos = Math.cos(pose.angle);
      const sin = Math.sin(pose.angle);
      g.lineStyle(4, COLORS.teamPale[a.team], 1);
      g.lineBetween(x, y, x + cos * (r + 8), y + sin * (r + 8));
      g.fillStyle(color, 1);
      g.fillCircle(x, y, r);
      g.fillStyle(COLORS.teamPale[a.team], 1);
      g.fillTriangle(x + cos * r * 0.95, y + sin * r * 0.95, x - sin * r * 0.45, y + cos * r * 0.45, x + sin * r * 0.45, y - cos * r * 0.45);
      g.lineStyle(2, human ? COLORS.white : COLORS.teamDark[a.team], 1);
      g.strokeCircle(x, y, r);
      // Health bar.
      const max = world.config.agent.maxHealth;
      const frac = Math.max(0, a.health / max);
      const bw = 34;
      const by = y - r - 10;
      g.fillStyle(COLORS.healthBack, 0.7);
      g.fillRect(x - bw / 2 - 1, by - 1, bw + 2, 6);
      g.fillStyle(frac > 0.66 ? 0x3ddc84 : frac > 0.33 ? 0xf5b942 : 0xff5c5c, 1);
      g.fillRect(x - bw / 2, by, bw * frac, 4);
      const text = view.labels[a.id] ?? '';
      if (label.text !== text) label.setText(text);
      const textColor = human ? '#ffffff' : '#dbe4f0';
      if (label.getData('color') !== textColor) label.setColor(textColor).setData('color', textColor);
      label.setPosition(x, by - 3);
      label.setVisible(text !== '');
    });
    for (let i = world.agents.length; i < this.labels.length; i++) this.labels[i]!.setVisible(false);
  }

  private drawEffects(g: Phaser.GameObjects.Graphics, view: RenderView): void {
    const world = view.world!;
    const r = world.config.agent.radius * PX_PER_M;
    for (const e of view.effects) {
      const t = (view.clock - e.born) / EFFECT_MS[e.kind];
      if (t < 0 || t >= 1) continue;
      drawEffect(g, e, t, r);
    }
  }
}

function drawEffect(g: Phaser.GameObjects.Graphics, e: Effect, t: number, r: number): void {
  switch (e.kind) {
    case 'hit': {
      g.fillStyle(0xffd27a, 0.8 * (1 - t));
      g.fillCircle(toPx(e.x), toPx(e.y), r * (0.4 + 0.6 * t));
      break;
    }
    case 'kill': {
      const x = toPx(e.x);
      const y = toPx(e.y);
      g.lineStyle(3, COLORS.team[e.team], 1 - t);
      g.strokeCircle(x, y, r * (1 + 2.5 * t));
      const s = r * (0.8 + 0.6 * t);
      g.lineStyle(3, COLORS.white, 1 - t);
      g.lineBetween(x - s, y - s, x + s, y + s);
      g.lineBetween(x - s, y + s, x + s, y - s);
      break;
    }
    case 'respawn': {
      g.lineStyle(3, COLORS.team[e.team], 1 - t);
      g.strokeCircle(toPx(e.x), toPx(e.y), r * (2.5 - 1.5 * t));
      break;
    }
    case 'pickup': {
      g.lineStyle(3, COLORS.pickup, 1 - t);
      g.strokeCircle(toPx(e.x), toPx(e.y), r * (1 + 2 * t));
      break;
    }
    case 'pickupReturn': {
      g.lineStyle(2, COLORS.pickup, 1 - t);
      g.strokeCircle(toPx(e.x), toPx(e.y), r * (3 - 2 * t));
      break;
    }
    default:
      break;
  }
}
