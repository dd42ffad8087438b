/**
 * The people's input in the page: keyboard (physical keys), pointer over the arena, and
 * gamepads. It answers the human team's reads once per tick; dashes fire once per press.
 */
import type { Action, World } from '../sim';
import type { HumanInputSource } from '../teams/human';
import {
  GAME_KEYS,
  type Intent,
  PLAYER_ONE,
  PLAYER_ONE_OF_TWO,
  PLAYER_TWO,
  type PlayerBindings,
  SCROLL_KEYS,
  bindingIntent,
  emptyIntent,
  intentToAction,
  padIntent,
} from './controls';
import { type CanvasSize, displayToWorld } from './layout';

export class BrowserInput implements HumanInputSource {
  private readonly pressed = new Set<string>();
  /** Dash keys pressed since the last read, per player. */
  private readonly dashQueued = [false, false];
  private readonly padDashHeld = [false, false];
  private pointer: { x: number; y: number } | null = null;
  private pointerFire = false;
  /** Aim at the pointer only after it moved since the last arrow-key turn. */
  private pointerAim = false;
  private twoPlayers = false;
  /** Only while a person plays: otherwise the keys belong to the page. */
  active = false;
  private readonly intent: Intent = emptyIntent();

  constructor(
    private readonly canvasParent: HTMLElement,
    private readonly size: () => CanvasSize,
  ) {
    window.addEventListener('keydown', (e) => this.onKey(e, true));
    window.addEventListener('keyup', (e) => this.onKey(e, false));
    window.addEventListener('blur', () => {
      this.pressed.clear();
      this.pointerFire = false;
    });
    canvasParent.addEventListener('pointermove', (e) => {
      this.pointer = this.toWorld(e);
      this.pointerAim = true;
    });
    canvasParent.addEventListener('pointerleave', () => {
      this.pointerFire = false;
    });
    canvasParent.addEventListener('pointerdown', (e) => {
      if (!this.active || e.button !== 0) return;
      this.pointer = this.toWorld(e);
      this.pointerAim = true;
      this.pointerFire = true;
      e.preventDefault();
    });
    window.addEventListener('pointerup', () => {
      this.pointerFire = false;
    });
    canvasParent.addEventListener('contextmenu', (e) => {
      if (this.active) e.preventDefault();
    });
  }

  setPlayers(count: 1 | 2): void {
    this.twoPlayers = count === 2;
  }

  read(world: World, agentId: number, slot: number, out: Action): void {
    const intent = this.intent;
    Object.assign(intent, emptyIntent());
    const bindings: PlayerBindings = slot === 0 ? (this.twoPlayers ? PLAYER_ONE_OF_TWO : PLAYER_ONE) : PLAYER_TWO;
    bindingIntent(this.pressed, bindings, intent);
    // Dash once per press, not every tick the key is held.
    intent.dash = this.dashQueued[slot] ?? false;
    this.dashQueued[slot] = false;
    const pad = this.gamepadFor(slot);
    if (pad) {
      const keyDash = intent.dash;
      intent.dash = false;
      padIntent(pad, intent);
      const padDash = intent.dash;
      intent.dash = keyDash || (padDash && !this.padDashHeld[slot]);
      this.padDashHeld[slot] = padDash;
    }
    if (slot === 0) {
      if (intent.turn !== 0) this.pointerAim = false;
      if (this.pointerAim && this.pointer) {
        intent.aimX = this.pointer.x;
        intent.aimY = this.pointer.y;
      }
      intent.fire ||= this.pointerFire;
    }
    intentToAction(world, agentId, intent, out);
  }

  private onKey(e: KeyboardEvent, down: boolean): void {
    const target = e.target as HTMLElement | null;
    const typing = target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA');
    if (down && typing && target.getAttribute('type') !== 'range') return;
    if (!down) {
      this.pressed.delete(e.code);
      if (this.active && GAME_KEYS.has(e.code) && !typing) e.preventDefault();
      return;
    }
    if (this.active && !typing && SCROLL_KEYS.has(e.code)) e.preventDefault();
    if (!this.active || !GAME_KEYS.has(e.code)) return;
    if (!e.repeat) {
      const one = this.twoPlayers ? PLAYER_ONE_OF_TWO : PLAYER_ONE;
      if (one.dash.includes(e.code)) this.dashQueued[0] = true;
      if (this.twoPlayers && PLAYER_TWO.dash.includes(e.code)) this.dashQueued[1] = true;
    }
    this.pressed.add(e.code);
    e.preventDefault();
  }

  private toWorld(e: PointerEvent): { x: number; y: number } {
    const canvas = this.canvasParent.querySelector('canvas');
    const rect = (canvas ?? this.canvasParent).getBoundingClientRect();
    return displayToWorld(e.clientX - rect.left, e.clientY - rect.top, rect.width, rect.height, this.size());
  }

  /** Gamepad for a player: with one pad, it serves player one (or player two in a two-person game). */
  private gamepadFor(slot: number): { axes: readonly number[]; pressed: boolean[] } | null {
    if (typeof navigator === 'undefined' || !navigator.getGamepads) return null;
    const pads = navigator.getGamepads().filter((p): p is Gamepad => p !== null && p.connected);
    if (pads.length === 0) return null;
    const pad = pads.length >= 2 ? pads[slot] : this.twoPlayers ? (slot === 1 ? pads[0] : undefined) : slot === 0 ? pads[0] : undefined;
    if (!pad) return null;
    return { axes: pad.axes, pressed: pad.buttons.map((b) => b.pressed) };
  }

  /** Whether a gamepad is connected (for the controls panel). */
  static gamepadCount(): number {
    if (typeof navigator === 'undefined' || !navigator.getGamepads) return 0;
    return navigator.getGamepads().filter((p) => p !== null && p.connected).length;
  }
}
