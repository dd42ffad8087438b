/**
 * Team ratings from pairwise results: Bradley-Terry fitted by the MM algorithm,
 * reported on an Elo-like scale with parametric-bootstrap intervals, optionally under a
 * weak prior (pseudo-draws) that keeps ratings and intervals finite when a team never
 * lost or never won.
 */
import { mulberry32 } from './random';
import { assertCount } from './validate';

/** Results of the games between two teams. */
export interface PairResult {
  a: string;
  b: string;
  winsA: number;
  winsB: number;
  /** Drawn games; each counts as half a win to both sides. Defaults to 0. */
  draws?: number;
}

/** Options for {@link fitBradleyTerry}. */
export interface BradleyTerryFitOptions {
  /** Team whose rating is pinned to `anchorRating`; when omitted the mean rating is pinned. */
  anchor?: string;
  /** Rating given to the anchor (or to the mean). Default 1500. */
  anchorRating?: number;
  /** Iteration cap for the MM algorithm. Default 100000. */
  maxIterations?: number;
  /** Stop when no log-strength moves by more than this. Default 1e-10. */
  tolerance?: number;
  /**
   * A weak prior: fit as if every pair of teams that met had also drawn this many games
   * (counted in no team's record). Default 0, the plain maximum-likelihood fit, which is
   * infinite when a group of teams won (or lost) every game against the rest. Any value
   * above 0 makes every rating finite and pulls them toward each other: one pseudo-draw
   * beside 50 games moves a 60% win rate to 59.8%, and a 50-0 sweep to 99.0% (a gap of
   * about 800 points) instead of an infinite one. The bootstrap adds the same
   * pseudo-draws to every replicate, so its intervals are finite too.
   */
  priorDraws?: number;
}

/** Options for {@link bradleyTerryRatings}. */
export interface BradleyTerryOptions extends BradleyTerryFitOptions {
  /** Seed for the bootstrap PRNG; the same seed gives the same intervals. */
  seed: number;
  /** Number of parametric bootstrap replicates. Default 1000. */
  bootstrapSamples?: number;
  /** Coverage of the intervals. Default 0.95. */
  confidence?: number;
}

/** One team's rating with its bootstrap interval and record. */
export interface TeamRating {
  team: string;
  rating: number;
  lower: number;
  upper: number;
  games: number;
  wins: number;
  losses: number;
  draws: number;
  /** Points per game, a draw counting 1/2. */
  score: number;
  /**
   * Bootstrap replicates in which this team's rating was infinite or
   * undetermined. Infinite values are ranked as such; undetermined ones are
   * treated conservatively, as if they fell beyond each interval bound. Either
   * can make a bound ±Infinity, meaning the data cannot bound the rating.
   */
  unboundedSamples: number;
}

/** Result of {@link bradleyTerryRatings}. */
export interface BradleyTerryResult {
  /** Teams sorted by rating, best first. */
  ratings: TeamRating[];
  /** The anchor team, or null when the mean rating is pinned. */
  anchor: string | null;
  anchorRating: number;
  confidence: number;
  bootstrapSamples: number;
  /**
   * Replicates in which some group of teams won every game against the rest,
   * so their maximum-likelihood ratings are infinite (see {@link TeamRating.unboundedSamples}).
   */
  degenerateSamples: number;
  /** MM iterations used for the point estimate. */
  iterations: number;
  /** The pseudo-draws per pair the fit used (see {@link BradleyTerryFitOptions.priorDraws}). */
  priorDraws: number;
  /**
   * Why plain maximum likelihood has no finite ratings for these results (a group of
   * teams won every game against the rest), or null when it has. Non-null only with a
   * prior, which is what then keeps the ratings finite.
   */
  separation: string | null;
}

/** Rating points per factor of 10 in strength, as in Elo. */
const ELO_SCALE = 400 / Math.LN10;

/** Expected score of a team rated `ratingA` against one rated `ratingB` on the Elo scale. */
export function eloExpectedScore(ratingA: number, ratingB: number): number {
  return 1 / (1 + Math.pow(10, (ratingB - ratingA) / 400));
}

/** Aggregated games between two distinct teams i < j. */
interface Pair {
  i: number;
  j: number;
  games: number;
  /** Points earned by i against j (wins + draws/2). */
  scoreI: number;
  /** Points earned by j against i. */
  scoreJ: number;
  draws: number;
}

interface Table {
  teams: string[];
  pairs: Pair[];
  wins: number[];
  losses: number[];
  draws: number[];
  games: number[];
}

function buildTable(results: readonly PairResult[]): Table {
  if (results.length === 0) throw new Error('Bradley-Terry: no results given');
  const teams: string[] = [];
  const index = new Map<string, number>();
  const teamIndex = (name: string, where: string): number => {
    if (typeof name !== 'string' || name === '') {
      throw new Error(`Bradley-Terry: ${where} must be a non-empty team name`);
    }
    let idx = index.get(name);
    if (idx === undefined) {
      idx = teams.length;
      teams.push(name);
      index.set(name, idx);
    }
    return idx;
  };
  const pairMap = new Map<string, Pair>();
  results.forEach((r, n) => {
    const where = `results[${n}]`;
    const draws = r.draws ?? 0;
    assertCount(`${where}.winsA`, r.winsA);
    assertCount(`${where}.winsB`, r.winsB);
    assertCount(`${where}.draws`, draws);
    if (r.a === r.b) throw new Error(`Bradley-Terry: ${where} pairs team "${r.a}" with itself`);
    const ia = teamIndex(r.a, `${where}.a`);
    const ib = teamIndex(r.b, `${where}.b`);
    const [i, j] = ia < ib ? [ia, ib] : [ib, ia];
    const key = `${i},${j}`;
    let pair = pairMap.get(key);
    if (pair === undefined) {
      pair = { i, j, games: 0, scoreI: 0, scoreJ: 0, draws: 0 };
      pairMap.set(key, pair);
    }
    const [winsI, winsJ] = ia === i ? [r.winsA, r.winsB] : [r.winsB, r.winsA];
    pair.games += winsI + winsJ + draws;
    pair.scoreI += winsI + draws / 2;
    pair.scoreJ += winsJ + draws / 2;
    pair.draws += draws;
  });

  const k = teams.length;
  const wins = new Array<number>(k).fill(0);
  const losses = new Array<number>(k).fill(0);
  const draws = new Array<number>(k).fill(0);
  const games = new Array<number>(k).fill(0);
  for (const p of pairMap.values()) {
    const winsI = p.scoreI - p.draws / 2;
    const winsJ = p.scoreJ - p.draws / 2;
    // p.i and p.j index `teams`, so every slot below exists.
    wins[p.i]! += winsI;
    losses[p.i]! += winsJ;
    wins[p.j]! += winsJ;
    losses[p.j]! += winsI;
    draws[p.i]! += p.draws;
    draws[p.j]! += p.draws;
    games[p.i]! += p.games;
    games[p.j]! += p.games;
  }
  const idle = teams.filter((_, t) => games[t] === 0);
  if (idle.length > 0) {
    throw new Error(`Bradley-Terry: team(s) ${formatTeams(idle)} have no games, so they cannot be rated`);
  }
  return { teams, pairs: [...pairMap.values()].filter((p) => p.games > 0), wins, losses, draws, games };
}

function formatTeams(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(', ');
}

/** Teams reachable from `start` along edges from → to where `edge(pair, from)` holds. */
function reachableFrom(
  start: number,
  k: number,
  pairs: readonly Pair[],
  edge: (p: Pair, from: number) => boolean,
): boolean[] {
  const adjacency: number[][] = Array.from({ length: k }, () => []);
  for (const p of pairs) {
    if (edge(p, p.i)) adjacency[p.i]!.push(p.j);
    if (edge(p, p.j)) adjacency[p.j]!.push(p.i);
  }
  const seen = new Array<boolean>(k).fill(false);
  seen[start] = true;
  const stack = [start];
  while (stack.length > 0) {
    const t = stack.pop() as number;
    for (const u of adjacency[t]!) {
      if (!seen[u]) {
        seen[u] = true;
        stack.push(u);
      }
    }
  }
  return seen;
}

/** Points earned by `team` (one of the pair) against the other team. */
function scoreOf(p: Pair, team: number): number {
  return team === p.i ? p.scoreI : p.scoreJ;
}

/** Edge from → to of the "scored against" digraph: `from` won or drew a game against `to`. */
const scoredAgainst = (p: Pair, from: number): boolean => scoreOf(p, from) > 0;
/** The same digraph reversed: the other team scored against `from`. */
const conceded = (p: Pair, from: number): boolean => scoreOf(p, from === p.i ? p.j : p.i) > 0;

/**
 * Finite Bradley-Terry estimates exist iff, for every split of the teams into
 * two groups, each group scored (won or drew) at least once against the other
 * (Hunter 2004, Assumption 1): the "scored against" digraph is strongly
 * connected. Returns the first violation: teams split into groups that never
 * met ("disconnected", which no prior mends), or a group that won every game
 * against the rest ("separated"); or null.
 */
function structuralProblem(teams: readonly string[], pairs: readonly Pair[]): { kind: 'disconnected' | 'separated'; text: string } | null {
  const k = teams.length;
  const split = (seen: readonly boolean[]): [string[], string[]] => [
    teams.filter((_, t) => seen[t]),
    teams.filter((_, t) => !seen[t]),
  ];
  const connected = reachableFrom(0, k, pairs, () => true);
  if (connected.some((s) => !s)) {
    const [inside, outside] = split(connected);
    return { kind: 'disconnected', text: `teams ${formatTeams(inside)} never played teams ${formatTeams(outside)}, so ratings across the two groups are not comparable` };
  }
  // Whoever team 0 cannot reach by "scored against" edges won every game against those it can.
  const forward = reachableFrom(0, k, pairs, scoredAgainst);
  if (forward.some((s) => !s)) {
    const [losers, winners] = split(forward);
    return { kind: 'separated', text: `teams ${formatTeams(winners)} won every game against teams ${formatTeams(losers)}, so the maximum-likelihood rating gap is infinite` };
  }
  // Whoever cannot reach team 0 lost every game to those who can.
  const backward = reachableFrom(0, k, pairs, conceded);
  if (backward.some((s) => !s)) {
    const [winners, losers] = split(backward);
    return { kind: 'separated', text: `teams ${formatTeams(winners)} won every game against teams ${formatTeams(losers)}, so the maximum-likelihood rating gap is infinite` };
  }
  return null;
}

/** The pairs with `priorDraws` drawn pseudo-games added to each (the prior of {@link BradleyTerryFitOptions.priorDraws}). */
function withPrior(pairs: readonly Pair[], priorDraws: number): Pair[] {
  if (priorDraws === 0) return [...pairs];
  const half = priorDraws / 2;
  return pairs.map((p) => ({ ...p, games: p.games + priorDraws, scoreI: p.scoreI + half, scoreJ: p.scoreJ + half, draws: p.draws + priorDraws }));
}

interface MMResult {
  logStrength: number[];
  iterations: number;
  converged: boolean;
}

/**
 * Bradley-Terry maximum likelihood by the MM algorithm (Hunter 2004, eq. 3):
 * γ_i ← W_i / Σ_j n_ij / (γ_i + γ_j), W_i the points team i scored and n_ij
 * the games between i and j; strengths are rescaled to geometric mean 1 after
 * each sweep. Returns natural-log strengths.
 */
function fitMM(
  k: number,
  pairs: readonly Pair[],
  start: readonly number[] | null,
  maxIterations: number,
  tolerance: number,
): MMResult {
  const points = new Array<number>(k).fill(0);
  for (const p of pairs) {
    points[p.i]! += p.scoreI;
    points[p.j]! += p.scoreJ;
  }
  let gamma = start ? start.map((l) => Math.exp(l)) : new Array<number>(k).fill(1);
  const denominator = new Array<number>(k);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    denominator.fill(0);
    for (const p of pairs) {
      const share = p.games / (gamma[p.i]! + gamma[p.j]!);
      denominator[p.i]! += share;
      denominator[p.j]! += share;
    }
    const next = gamma.map((_, t) => points[t]! / denominator[t]!);
    const meanLog = next.reduce((s, g) => s + Math.log(g), 0) / k;
    let maxChange = 0;
    for (let t = 0; t < k; t++) {
      next[t] = Math.exp(Math.log(next[t]!) - meanLog);
      maxChange = Math.max(maxChange, Math.abs(Math.log(next[t]!) - Math.log(gamma[t]!)));
    }
    gamma = next;
    if (maxChange <= tolerance) {
      return { logStrength: gamma.map((g) => Math.log(g)), iterations: iteration, converged: true };
    }
  }
  return { logStrength: gamma.map((g) => Math.log(g)), iterations: maxIterations, converged: false };
}

/** Converts natural-log strengths to Elo-scale ratings pinned at the anchor (or mean). */
function toRatings(logStrength: readonly number[], anchorIndex: number | null, anchorRating: number): number[] {
  const raw = logStrength.map((l) => ELO_SCALE * l);
  const reference =
    anchorIndex === null ? raw.reduce((s, r) => s + r, 0) / raw.length : raw[anchorIndex]!;
  return raw.map((r) => r - reference + anchorRating);
}

interface PreparedFit {
  table: Table;
  anchorIndex: number | null;
  anchorRating: number;
  maxIterations: number;
  tolerance: number;
  priorDraws: number;
  separation: string | null;
  fit: MMResult;
}

function prepareFit(results: readonly PairResult[], options: BradleyTerryFitOptions): PreparedFit {
  const table = buildTable(results);
  const anchorRating = options.anchorRating ?? 1500;
  const maxIterations = options.maxIterations ?? 100_000;
  const tolerance = options.tolerance ?? 1e-10;
  if (!Number.isFinite(anchorRating)) throw new Error(`Bradley-Terry: anchorRating must be finite, got ${anchorRating}`);
  if (!(maxIterations >= 1)) throw new Error(`Bradley-Terry: maxIterations must be >= 1, got ${maxIterations}`);
  if (!(tolerance > 0)) throw new Error(`Bradley-Terry: tolerance must be > 0, got ${tolerance}`);
  const priorDraws = options.priorDraws ?? 0;
  if (!(Number.isFinite(priorDraws) && priorDraws >= 0)) throw new Error(`Bradley-Terry: priorDraws must be a finite number >= 0, got ${priorDraws}`);
  let anchorIndex: number | null = null;
  if (options.anchor !== undefined) {
    anchorIndex = table.teams.indexOf(options.anchor);
    if (anchorIndex < 0) {
      throw new Error(`Bradley-Terry: anchor team "${options.anchor}" does not appear in the results`);
    }
  }
  const problem = structuralProblem(table.teams, table.pairs);
  if (problem !== null && (problem.kind === 'disconnected' || priorDraws === 0)) {
    throw new Error(`Bradley-Terry: ${problem.text}${problem.kind === 'separated' ? ' (a prior, priorDraws > 0, gives finite ratings)' : ''}`);
  }
  const fit = fitMM(table.teams.length, withPrior(table.pairs, priorDraws), null, maxIterations, tolerance);
  if (!fit.converged) {
    throw new Error(`Bradley-Terry: MM algorithm did not converge in ${maxIterations} iterations`);
  }
  return { table, anchorIndex, anchorRating, maxIterations, tolerance, priorDraws, separation: problem?.text ?? null, fit };
}

/**
 * Bradley-Terry point ratings on the Elo scale (400·log10 strength), pinned so
 * the mean rating, or the anchor team's rating, equals `anchorRating` (1500).
 * A rating gap D means an expected score of 1 / (1 + 10^(−D/400)).
 * Draws count as half a win to each side.
 *
 * @throws Error for empty input, invalid counts, a team with no games, teams
 *   split into groups that never met, or a group that won every game against
 *   the rest (ratings would be infinite).
 */
export function fitBradleyTerry(
  results: readonly PairResult[],
  options: BradleyTerryFitOptions = {},
): { ratings: Map<string, number>; iterations: number } {
  const prepared = prepareFit(results, options);
  const ratings = toRatings(prepared.fit.logStrength, prepared.anchorIndex, prepared.anchorRating);
  return {
    ratings: new Map(prepared.table.teams.map((team, t) => [team, ratings[t]!])),
    iterations: prepared.fit.iterations,
  };
}

/**
 * Ratings for one bootstrap replicate. When the replicate's "scored against"
 * digraph is strongly connected this is the ordinary fit. Otherwise the
 * maximum-likelihood ratings exist only in the extended sense: relative to
 * the anchor, teams that reach it but cannot be reached from it are +Infinity,
 * teams it reaches that cannot reach back are −Infinity, teams in its strongly
 * connected group are fitted on the games inside that group, and teams
 * unrelated to it are undetermined (NaN). With the mean as reference, any
 * infinite rating leaves every team undetermined.
 */
function replicateRatings(
  k: number,
  pairs: readonly Pair[],
  start: readonly number[],
  anchorIndex: number | null,
  anchorRating: number,
  settings: { maxIterations: number; tolerance: number },
): { ratings: number[]; degenerate: boolean } {
  const reference = anchorIndex ?? 0;
  const down = reachableFrom(reference, k, pairs, scoredAgainst);
  const up = reachableFrom(reference, k, pairs, conceded);
  const undetermined = (): number[] => new Array<number>(k).fill(NaN);
  if (down.every((d) => d) && up.every((u) => u)) {
    const refit = fitMM(k, pairs, start, settings.maxIterations, settings.tolerance);
    const ratings = refit.converged ? toRatings(refit.logStrength, anchorIndex, anchorRating) : undetermined();
    return { ratings, degenerate: false };
  }
  if (anchorIndex === null) return { ratings: undetermined(), degenerate: true };

  // Refit inside the anchor's strongly connected group, re-indexed from 0.
  const group: number[] = [];
  const local = new Array<number>(k).fill(-1);
  for (let t = 0; t < k; t++) {
    if (down[t] && up[t]) {
      local[t] = group.length;
      group.push(t);
    }
  }
  let groupRatings = [anchorRating];
  if (group.length > 1) {
    const inside = pairs
      .filter((p) => local[p.i]! >= 0 && local[p.j]! >= 0)
      .map((p) => ({ ...p, i: local[p.i]!, j: local[p.j]! }));
    const refit = fitMM(
      group.length,
      inside,
      group.map((t) => start[t]!),
      settings.maxIterations,
      settings.tolerance,
    );
    groupRatings = refit.converged
      ? toRatings(refit.logStrength, local[anchorIndex]!, anchorRating)
      : new Array<number>(group.length).fill(NaN);
  }
  const ratings = new Array<number>(k);
  for (let t = 0; t < k; t++) {
    const index = local[t]!;
    if (index >= 0) ratings[t] = groupRatings[index]!;
    else if (up[t]) ratings[t] = Infinity;
    else if (down[t]) ratings[t] = -Infinity;
    else ratings[t] = NaN;
  }
  return { ratings, degenerate: true };
}

/**
 * Bradley-Terry ratings (see {@link fitBradleyTerry}) with percentile
 * intervals from a seeded parametric bootstrap: each replicate replays every
 * pairing's game count from the fitted model, keeping the pairing's observed
 * draw rate (win probability p − d/2, loss 1 − p − d/2, clamped at 0), then
 * refits. Deterministic for a given `seed`.
 *
 * Thinly played teams can win or lose every game in some replicates, making
 * their ratings infinite there; such replicates are kept, not dropped (see
 * {@link TeamRating.unboundedSamples}), so an interval may run to ±Infinity.
 * With an `anchor`, only the teams involved are affected; with the mean as
 * reference, every team's interval widens, so anchor to a well-played team.
 */
export function bradleyTerryRatings(
  results: readonly PairResult[],
  options: BradleyTerryOptions,
): BradleyTerryResult {
  const prepared = prepareFit(results, options);
  const { table, anchorIndex, anchorRating, fit } = prepared;
  const k = table.teams.length;
  const confidence = options.confidence ?? 0.95;
  const samples = options.bootstrapSamples ?? 1000;
  if (!(confidence > 0 && confidence < 1)) {
    throw new Error(`Bradley-Terry: confidence must lie strictly between 0 and 1, got ${confidence}`);
  }
  if (!Number.isInteger(samples) || samples < 1) {
    throw new Error(`Bradley-Terry: bootstrapSamples must be a positive integer, got ${samples}`);
  }
  const random = mulberry32(options.seed);
  const pointRatings = toRatings(fit.logStrength, anchorIndex, anchorRating);

  // Per-pair outcome probabilities under the fitted model.
  const model = table.pairs.map((p) => {
    const pI = 1 / (1 + Math.exp(fit.logStrength[p.j]! - fit.logStrength[p.i]!));
    const drawRate = p.draws / p.games;
    const winI = Math.max(0, pI - drawRate / 2);
    const winJ = Math.max(0, 1 - pI - drawRate / 2);
    const total = winI + winJ + drawRate;
    return { winI: winI / total, draw: drawRate / total };
  });

  // Per team: finite or ±Infinity replicate ratings, and a count of undetermined ones.
  const replicates: number[][] = Array.from({ length: k }, () => []);
  const undetermined = new Array<number>(k).fill(0);
  const unbounded = new Array<number>(k).fill(0);
  let degenerate = 0;
  for (let s = 0; s < samples; s++) {
    const pairs: Pair[] = table.pairs.map((p, n) => {
      const { winI, draw } = model[n]!;
      let winsI = 0;
      let draws = 0;
      for (let g = 0; g < p.games; g++) {
        const u = random();
        if (u < winI) winsI += 1;
        else if (u < winI + draw) draws += 1;
      }
      const winsJ = p.games - winsI - draws;
      return { i: p.i, j: p.j, games: p.games, scoreI: winsI + draws / 2, scoreJ: winsJ + draws / 2, draws };
    });
    const values = replicateRatings(k, withPrior(pairs, prepared.priorDraws), fit.logStrength, anchorIndex, anchorRating, prepared);
    if (values.degenerate) degenerate++;
    values.ratings.forEach((r, t) => {
      if (Number.isNaN(r)) undetermined[t]!++;
      else replicates[t]!.push(r);
      if (!Number.isFinite(r)) unbounded[t]!++;
    });
  }

  // Order-statistic ranks of the interval bounds among all `samples` replicates.
  const tail = (1 - confidence) / 2;
  const lowerRank = Math.floor(samples * tail + 1e-9);
  const upperRank = Math.ceil(samples * (1 - tail) - 1e-9) - 1;
  const ratings: TeamRating[] = table.teams.map((team, t) => {
    // Every per-team array has one slot per team; lowerRank < samples keeps
    // lowerIndex below sorted.length (samples minus the undetermined replicates).
    const sorted = replicates[t]!.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    const lowerIndex = lowerRank - undetermined[t]!;
    const wins = table.wins[t]!;
    const draws = table.draws[t]!;
    const games = table.games[t]!;
    return {
      team,
      rating: pointRatings[t]!,
      lower: lowerIndex >= 0 ? sorted[lowerIndex]! : -Infinity,
      upper: upperRank < sorted.length ? sorted[upperRank]! : Infinity,
      games,
      wins,
      losses: table.losses[t]!,
      draws,
      score: (wins + draws / 2) / games,
      unboundedSamples: unbounded[t]!,
    };
  });
  ratings.sort((x, y) => y.rating - x.rating || (x.team < y.team ? -1 : x.team > y.team ? 1 : 0));
  return {
    ratings,
    anchor: anchorIndex === null ? null : table.teams[anchorIndex]!,
    anchorRating,
    confidence,
    bootstrapSamples: samples,
    degenerateSamples: degenerate,
    iterations: fit.iterations,
    priorDraws: prepared.priorDraws,
    separation: prepared.separation,
  };
}
