/** The Phaser game that hosts the arena scene; the session advances from Phaser's frame loop. */
import * as Phaser from 'phaser';
import { canvasSize } from './layout';
import { ArenaScene, COLORS } from './scene';
import type { MatchSession } from './matchSession';

export interface GameOptions {
  /** Force the Canvas renderer (headless browsers without a GPU); otherwise Phaser.AUTO. */
  readonly canvas?: boolean;
}

export function createGame(parent: HTMLElement, session: MatchSession, options: GameOptions = {}): Phaser.Game {
  const size = canvasSize(session.world.config);
  const game = new Phaser.Game({
    type: options.canvas ? Phaser.CANVAS : Phaser.AUTO,
    parent,
    width: size.width,
    height: size.height,
    backgroundColor: `#${COLORS.page.toString(16).padStart(6, '0')}`,
    banner: false,
    audio: { noAudio: true },
    input: { keyboard: false, mouse: false, touch: false, gamepad: false },
    scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.NO_CENTER },
    render: { antialias: true },
    scene: new ArenaScene(session),
  });
  // Advance the match before each render, so the scene draws the latest state. The session
  // reads its own clock: Phaser's delta is smoothed and capped (see frameClock.ts).
  game.events.on(Phaser.Core.Events.PRE_STEP, () => session.frame());
  return game;
}

/** Which renderer Phaser chose, in words. */
export function rendererName(game: Phaser.Game): string {
  return game.renderer?.type === Phaser.WEBGL ? 'WebGL' : game.renderer?.type === Phaser.CANVAS ? 'Canvas' : 'none';
}
