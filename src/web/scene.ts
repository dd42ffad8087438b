/**
 * The arena, drawn with Phaser from a RenderView each display frame: floor, bases, walls,
 * the zone with both teams' progress, pickups and their return, agents (interpolated
 * between ticks) with facing, health and current skill, shot tracers, hits, eliminations
 * and respawns, in the view's team colours. Feedback that helps people read the game is
 * drawn with the same Graphics object (no extra game objects, so it costs no frame time
 * to speak of): a flash on the agent hit, a hit marker when a person's shot lands, the
 * arena's edge when a person is hit, a plus rising from a pickup, a ring when a team takes
 * the zone. It reads the simulation and never writes it.
 */
import * as Phaser from 'phaser';
import type { GameConfig, World, ZoneStatus } from '../sim';
import { spawnPose } from '../sim';
import { PAD, PX_PER_M, canvasSize, toPx } from './layout';
import type { TeamPalette } from './palette';
import { EFFECT_MS, type Effect, type RenderView, interpolatedPose } from './view';

export const COLORS = {
  page: 0x0b0f17,
  floor: 0x111725,
  grid: 0x182033,
  border: 0x2c3952,
  wall: 0x2a3346,
  wallEdge: 0x44526e,
  contested: 0xf5b942,
  zoneIdle: 0x8d97ab,
  pickup: 0x3ddc84,
  white: 0xffffff,
  healthBack: 0x000000,
  hurt: 0xff3b3b,
};

function statusColor(status: ZoneStatus, palette: TeamPalette): number {
  if (status === 'blue') return palette.team[0];
  if (status === 'red') return palette.team[1];
  return status === 'contested' ? COLORS.contested : COLORS.zoneIdle;
}

/** What the scene needs from the page: a view per frame. */
export interface ViewSource {
  view(): RenderView;
}

export class ArenaScene extends Phaser.Scene {
  private staticLayer!: Phaser.GameObjects.Graphics;
  private g!: Phaser.GameObjects.Graphics;
  private labels: Phaser.GameObjects.Text[] = [];
  private drawnConfig: GameConfig | null = null;
  private drawnPalette: TeamPalette | null = null;

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
    if (world.config !== this.drawnConfig || view.palette !== this.drawnPalette) this.drawStatic(world.config, view.palette);
    const g = this.g;
    g.clear();
    this.drawZone(g, world, view.palette);
    this.drawPickups(g, world);
    this.drawGhosts(g, world, view.palette);
    this.drawTracers(g, view);
    this.drawAgents(g, view);
    this.drawEffects(g, view);
  }

  private drawStatic(config: GameConfig, palette: TeamPalette): void {
    this.drawnConfig = config;
    this.drawnPalette = palette;
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
      g.fillStyle(palette.team[team], 0.07);
      g.fillRect(Math.max(PAD, toPx(cx) - bw / 2), PAD, bw, h);
    }
    g.lineStyle(1, COLORS.grid, 1);
    for (let x = 1; x < config.arena.width; x++) g.lineBetween(toPx(x), PAD, toPx(x), PAD + h);
    for (let y = 1; y < config.arena.height; y++) g.lineBetween(PAD, toPx(y), PAD + w, toPx(y));
    // Spawn points.
    for (const team of [0, 1] as const) {
      for (const p of config.arena.spawns[team]) {
        g.lineStyle(1.5, palette.team[team], 0.35);
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

  private drawZone(g: Phaser.GameObjects.Graphics, world: World, palette: TeamPalette): void {
    const { zone } = world;
    const x = toPx(zone.x);
    const y = toPx(zone.y);
    const r = zone.radius * PX_PER_M;
    const color = statusColor(world.zoneStatus, palette);
    g.fillStyle(color, world.zoneStatus === 'empty' ? 0.08 : 0.18);
    g.fillCircle(x, y, r);
    g.lineStyle(2, color, 0.9);
    g.strokeCircle(x, y, r);
    // Progress rings: blue inside, red outside, each a fraction of the hold that wins.
    const hold = world.timings.winHold;
    for (const team of [0, 1] as const) {
      const ringR = r + 5 + team * 6;
      g.lineStyle(4, palette.dark[team], 0.6);
      g.strokeCircle(x, y, ringR);
      const fraction = Math.min(1, world.progress[team] / hold);
      if (fraction > 0) {
        g.lineStyle(4, palette.team[team], 1);
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
  private drawGhosts(g: Phaser.GameObjects.Graphics, world: World, palette: TeamPalette): void {
    const r = world.config.agent.radius * PX_PER_M;
    const total = world.timings.respawnDelay;
    for (const a of world.agents) {
      if (a.alive) continue;
      const pose = spawnPose(world.config, a.team, a.slot);
      const x = toPx(pose.x);
      const y = toPx(pose.y);
      g.fillStyle(palette.team[a.team], 0.15);
      g.fillCircle(x, y, r);
      g.lineStyle(3, palette.team[a.team], 0.8);
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
      g.lineStyle(2, view.palette.pale[e.team], 0.85 * fade);
      g.lineBetween(toPx(e.fromX), toPx(e.fromY), toPx(e.toX), toPx(e.toY));
      if (e.hit) {
        g.fillStyle(COLORS.white, fade);
        g.fillCircle(toPx(e.toX), toPx(e.toY), 3);
      }
    }
  }

  private drawAgents(g: Phaser.GameObjects.Graphics, view: RenderView): void {
    const world = view.world!;
    const palette = view.palette;
    const r = world.config.agent.radius * PX_PER_M;
    const dashing = new Set<number>();
    /** Agents hit within the flash time: drawn with a white rim. */
    const flashing = new Set<number>();
    for (const e of view.effects) {
      if (e.kind === 'dash') dashing.add(e.agent);
      else if (e.kind === 'hit' && view.clock - e.born < HIT_FLASH_MS) flashing.add(e.target);
    }
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
      const color = palette.team[a.team];
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
      g.lineStyle(4, palette.pale[a.team], 1);
      g.lineBetween(x, y, x + cos * (r + 8), y + sin * (r + 8));
      g.fillStyle(flashing.has(a.id) ? palette.pale[a.team] : color, 1);
      g.fillCircle(x, y, r);
      g.fillStyle(palette.pale[a.team], 1);
      g.fillTriangle(x + cos * r * 0.95, y + sin * r * 0.95, x - sin * r * 0.45, y + cos * r * 0.45, x + sin * r * 0.45, y - cos * r * 0.45);
      g.lineStyle(flashing.has(a.id) ? 3 : 2, human || flashing.has(a.id) ? COLORS.white : palette.dark[a.team], 1);
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
      drawEffect(g, e, t, r, world, view.palette);
    }
  }
}

/** How long an agent that was hit shows its white rim, ms. */
const HIT_FLASH_MS = 110;

function drawEffect(g: Phaser.GameObjects.Graphics, e: Effect, t: number, r: number, world: World, palette: TeamPalette): void {
  switch (e.kind) {
    case 'hit': {
      const x = toPx(e.x);
      const y = toPx(e.y);
      g.fillStyle(0xffd27a, 0.8 * (1 - t));
      g.fillCircle(x, y, r * (0.4 + 0.6 * t));
      if (e.byPerson) {
        // A hit marker: the person's shot landed.
        const s = r * 0.9;
        const gap = r * 0.35;
        g.lineStyle(2.5, COLORS.white, 1 - t);
        for (const [dx, dy] of [[1, 1], [1, -1], [-1, 1], [-1, -1]] as const) g.lineBetween(x + dx * gap, y + dy * gap, x + dx * s, y + dy * s);
      }
      if (e.onPerson) {
        // The arena's edge flashes: the person was hit, wherever they were looking.
        const w = world.config.arena.width * PX_PER_M + 2 * PAD;
        const h = world.config.arena.height * PX_PER_M + 2 * PAD;
        g.lineStyle(PAD * 1.4, COLORS.hurt, 0.55 * (1 - t));
        g.strokeRect(0, 0, w, h);
      }
      break;
    }
    case 'capture': {
      const zone = world.zone;
      g.lineStyle(4, palette.team[e.team], 0.9 * (1 - t));
      g.strokeCircle(toPx(zone.x), toPx(zone.y), zone.radius * PX_PER_M * (1 + 0.8 * t));
      break;
    }
    case 'kill': {
      const x = toPx(e.x);
      const y = toPx(e.y);
      g.lineStyle(3, palette.team[e.team], 1 - t);
      g.strokeCircle(x, y, r * (1 + 2.5 * t));
      const s = r * (0.8 + 0.6 * t);
      g.lineStyle(3, COLORS.white, 1 - t);
      g.lineBetween(x - s, y - s, x + s, y + s);
      g.lineBetween(x - s, y + s, x + s, y - s);
      break;
    }
    case 'respawn': {
      g.lineStyle(3, palette.team[e.team], 1 - t);
      g.strokeCircle(toPx(e.x), toPx(e.y), r * (2.5 - 1.5 * t));
      break;
    }
    case 'pickup': {
      const x = toPx(e.x);
      const y = toPx(e.y);
      g.lineStyle(3, COLORS.pickup, 1 - t);
      g.strokeCircle(x, y, r * (1 + 2 * t));
      // A plus rising from it: health was taken.
      const py = y - r - 24 * t;
      const arm = r * 0.5;
      g.fillStyle(COLORS.pickup, 1 - t);
      g.fillRect(x - 2, py - arm, 4, 2 * arm);
      g.fillRect(x - arm, py - 2, 2 * arm, 4);
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
