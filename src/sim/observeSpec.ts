/**
 * The observation every skill policy reads: the study's 20 normalised, egocentric numbers.
 * Angles are bearings relative to the agent's facing divided by PI (so in [-1, 1], + is to
 * the left); distances are divided by the arena's diagonal (so in [0, 1]) and are -1 when
 * the thing is absent or not visible.
 *
 * "The ally" is the nearest living teammate (the lowest slot when two are equally near);
 * in teams of two it is simply the teammate while it is alive.
 *
 * Bump OBS_SPEC_VERSION on any change: model cards record it and loading checks it.
 */
export const OBS_SPEC_VERSION = 1;

/** Ray directions relative to the facing, in degrees (+ is to the left). */
export const RAY_ANGLES_DEG = [-90, -60, -30, 0, 30, 60, 90] as const;

export interface ObsEntry {
  readonly index: number;
  readonly name: string;
  readonly range: readonly [number, number];
  readonly meaning: string;
}

const rays: ObsEntry[] = RAY_ANGLES_DEG.map((deg, i) => ({
  index: 13 + i,
  name: `ray${deg >= 0 ? '+' : ''}${deg}`,
  range: [0, 1],
  meaning: `free distance to the nearest wall or arena edge at ${deg} degrees from the facing, / rayLength`,
}));

export const OBS_SPEC: readonly ObsEntry[] = [
  { index: 0, name: 'zoneDistance', range: [0, 1], meaning: 'distance to the zone centre / arena diagonal' },
  { index: 1, name: 'zoneAngle', range: [-1, 1], meaning: 'bearing of the zone centre / PI' },
  { index: 2, name: 'inZone', range: [0, 1], meaning: '1 when this agent is inside the zone' },
  { index: 3, name: 'allyDistance', range: [-1, 1], meaning: 'distance to the ally / diagonal; -1 while no teammate is alive' },
  { index: 4, name: 'allyAngle', range: [-1, 1], meaning: 'bearing of the ally / PI; 0 while no teammate is alive' },
  { index: 5, name: 'pickupAvailable', range: [0, 1], meaning: '1 when at least one health pickup is present' },
  { index: 6, name: 'pickupAngle', range: [-1, 1], meaning: 'bearing of the nearest present pickup / PI; 0 when none' },
  { index: 7, name: 'pickupDistance', range: [-1, 1], meaning: 'distance to the nearest present pickup / diagonal; -1 when none' },
  { index: 8, name: 'enemyVisible', range: [0, 1], meaning: '1 when an enemy is in line of sight within vision range' },
  { index: 9, name: 'enemyAngle', range: [-1, 1], meaning: 'bearing of the nearest visible enemy / PI; 0 when none' },
  { index: 10, name: 'enemyDistance', range: [-1, 1], meaning: 'distance to the nearest visible enemy / diagonal; -1 when none' },
  { index: 11, name: 'timeRemaining', range: [0, 1], meaning: 'fraction of the episode left before the draw' },
  { index: 12, name: 'health', range: [0, 1], meaning: 'health / max health' },
  ...rays,
];

export const OBS_SIZE = OBS_SPEC.length;

/** Named indices, so skills read `obs[OBS.enemyAngle]` rather than magic numbers. */
export const OBS = {
  zoneDistance: 0,
  zoneAngle: 1,
  inZone: 2,
  allyDistance: 3,
  allyAngle: 4,
  pickupAvailable: 5,
  pickupAngle: 6,
  pickupDistance: 7,
  enemyVisible: 8,
  enemyAngle: 9,
  enemyDistance: 10,
  timeRemaining: 11,
  health: 12,
  firstRay: 13,
  rayCount: RAY_ANGLES_DEG.length,
} as const;

