/**
 * The colours each side is drawn in. The product page draws blue against red; a study
 * draws the opponent in its neutral badge colour, so nothing on screen hints at blue and
 * red teams of the product. The scene reads a palette from the view each frame; the dark
 * and pale shades are derived once per palette, here, not per frame.
 */

/** 0xRRGGBB. */
export type Rgb = number;

export interface TeamPalette {
  /** Each side's main colour: agents, the zone while held, progress. */
  readonly team: readonly [Rgb, Rgb];
  /** Progress ring backgrounds and agent outlines. */
  readonly dark: readonly [Rgb, Rgb];
  /** Barrels, noses and tracers. */
  readonly pale: readonly [Rgb, Rgb];
}

export const BLUE: Rgb = 0x4c9aff;
export const RED: Rgb = 0xff5c5c;

/** The product's blue and red, with the shades the arena has always used. */
export const DEFAULT_PALETTE: TeamPalette = {
  team: [BLUE, RED],
  dark: [0x1d3f73, 0x6e2424],
  pale: [0xa9cdff, 0xffb0b0],
};

/** Mix `colour` towards `target` by `amount` in [0, 1]. */
export function mix(colour: Rgb, target: Rgb, amount: number): Rgb {
  const channel = (shift: number) => {
    const a = (colour >> shift) & 0xff;
    const b = (target >> shift) & 0xff;
    return Math.round(a + (b - a) * amount) << shift;
  };
  return channel(16) | channel(8) | channel(0);
}

/** '#e0a526' or '#fa2' to 0xe0a526; null for anything else. */
export function parseHexColour(text: string): Rgb | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(text.trim());
  if (!m) return null;
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return Number.parseInt(hex, 16);
}

export function cssColour(colour: Rgb): string {
  return `#${colour.toString(16).padStart(6, '0')}`;
}

/** Blue for the near side and `opponent` for the other, with derived shades. */
export function paletteAgainst(opponent: Rgb): TeamPalette {
  if (opponent === RED) return DEFAULT_PALETTE;
  return {
    team: [BLUE, opponent],
    dark: [DEFAULT_PALETTE.dark[0], mix(opponent, 0x000000, 0.57)],
    pale: [DEFAULT_PALETTE.pale[0], mix(opponent, 0xffffff, 0.55)],
  };
}
