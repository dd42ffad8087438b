/**
 * How a compact answer ("1,3") is read from a model's probabilities, whichever engine gives
 * them (the embedded one in Node, node/llamaClient.ts; the page's own, pageModel.ts):
 * for each agent in turn, the probabilities of the numbers 1 to max after the prompt and the
 * numbers chosen so far, each with its comma; the number whose probability most exceeds its
 * prior is chosen (no sampling). Without calibration every prior is alike, so the most likely
 * number is chosen (an adapter tuned on the raw probabilities is read so). Browser-safe.
 */

/**
 * How far the number tokens are lifted above every other token: far beyond the spread of a
 * model's logits, so only a number is sampled, and among the numbers the model's own odds hold.
 */
export const NUMBER_LOGIT_BIAS = 1000;

/**
 * The state with its content taken out: what the model answers to no situation at all. Its
 * number probabilities are the model's prior, divided out of every answer's (contextual
 * calibration, Zhao et al. 2021), so a model's fixed taste for "1,3" does not decide.
 */
export function contentFreeState(agentCount: number): string {
  return [...Array.from({ length: agentCount }, (_, i) => `Agent ${i + 1}: N/A.`), 'Team: N/A.'].join('\n');
}

/** The number (1-based) whose probability most exceeds its prior; ties to the lower number. */
export function calibratedChoice(probabilities: readonly number[], prior: readonly number[]): number {
  let best = 0;
  let bestScore = -Infinity;
  probabilities.forEach((p, i) => {
    const score = p / Math.max(prior[i] ?? 1, 1e-6);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best + 1;
}

/** "1,3" and its tokens: a token per number and per comma between them. */
export function compactAnswer(numbers: readonly number[]): { readonly text: string; readonly completionTokens: number } {
  return { text: numbers.join(','), completionTokens: 2 * numbers.length - 1 };
}

/** The text of the numbers chosen so far, each with its comma: what the next agent's number follows. */
export function chosenPrefix(chosen: readonly number[]): string {
  return chosen.map((n) => `${n},`).join('');
}

/**
 * A compact answer of `count` numbers: `probabilities(chosen)` reads the numbers' probabilities
 * after the prompt and the numbers chosen so far (called in order, one agent after another),
 * `prior(chosen)` their prior there (absent: uncalibrated).
 */
export async function scoreNumberList(
  count: number,
  probabilities: (chosen: readonly number[]) => Promise<readonly number[]>,
  prior?: (chosen: readonly number[]) => Promise<readonly number[]>,
): Promise<number[]> {
  const numbers: number[] = [];
  while (numbers.length < count) {
    const p = await probabilities(numbers);
    numbers.push(calibratedChoice(p, prior ? await prior(numbers) : []));
  }
  return numbers;
}
