import { describe, expect, it } from 'vitest';
import { DEFAULT_PALETTE, RED, cssColour, mix, paletteAgainst, parseHexColour } from '../../src/web/palette';
import { TEAM_COLOURS } from '../../src/survey/config';

describe('team colours', () => {
  it('reads the badge colours and writes them back', () => {
    expect(parseHexColour('#e0a526')).toBe(0xe0a526);
    expect(parseHexColour('#FA2')).toBe(0xffaa22);
    expect(parseHexColour('red')).toBeNull();
    expect(cssColour(0x0a0b0c)).toBe('#0a0b0c');
    for (const c of TEAM_COLOURS) expect(cssColour(parseHexColour(c)!)).toBe(c);
  });

  it('draws the opponent in its own colour, with shades derived from it, never in red', () => {
    expect(paletteAgainst(RED)).toBe(DEFAULT_PALETTE);
    const amber = paletteAgainst(0xe0a526);
    expect(amber.team).toEqual([DEFAULT_PALETTE.team[0], 0xe0a526]);
    expect(amber.dark[1]).toBe(mix(0xe0a526, 0, 0.57));
    expect(amber.pale[1]).toBe(mix(0xe0a526, 0xffffff, 0.55));
    for (const c of TEAM_COLOURS) {
      const p = paletteAgainst(parseHexColour(c)!);
      expect([p.team[1], p.dark[1], p.pale[1]]).not.toContain(RED);
      expect([p.dark[1], p.pale[1]]).not.toContain(DEFAULT_PALETTE.dark[1]);
    }
  });

  it('mixes channel by channel', () => {
    expect(mix(0x000000, 0xffffff, 0.5)).toBe(0x808080);
    expect(mix(0x123456, 0x123456, 0.7)).toBe(0x123456);
    expect(mix(0xff0000, 0x0000ff, 1)).toBe(0x0000ff);
  });
});
