/**
 * A tokenizer-free estimate of token counts, for figures and budgets (servers report the
 * real counts per call). English words of up to four letters are about one token, longer
 * ones about one per four characters; each punctuation mark is one.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const piece of text.match(/[A-Za-z]+|\d+|[^\sA-Za-z\d]/g) ?? []) {
    tokens += /^\d+$/.test(piece) ? Math.ceil(piece.length / 3) : Math.max(1, Math.ceil(piece.length / 4));
  }
  return tokens;
}
