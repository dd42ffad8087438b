/**
 * Agreement between two labelings of the same items: Cohen's kappa, and the mutual
 * information of two labels given a third (how much a choice follows a label beyond what
 * a shared context explains).
 */

/**
 * Cohen's kappa of paired labels: (observed agreement - chance agreement) / (1 - chance
 * agreement), chance from each side's own label shares. 1 is perfect agreement, 0 what
 * chance gives. null when chance agreement is already 1 (both sides always give the same
 * single label): kappa is undefined there.
 */
export function cohenKappa(a: readonly string[], b: readonly string[]): number | null {
  if (a.length !== b.length) throw new Error(`cohenKappa: ${a.length} labels against ${b.length}; expected pairs`);
  if (a.length === 0) throw new Error('cohenKappa: no pairs');
  const n = a.length;
  const countA = new Map<string, number>();
  const countB = new Map<string, number>();
  let agree = 0;
  for (let i = 0; i < n; i++) {
    countA.set(a[i]!, (countA.get(a[i]!) ?? 0) + 1);
    countB.set(b[i]!, (countB.get(b[i]!) ?? 0) + 1);
    if (a[i] === b[i]) agree++;
  }
  let chance = 0;
  for (const [label, ca] of countA) chance += (ca / n) * ((countB.get(label) ?? 0) / n);
  if (chance >= 1) return null;
  return (agree / n - chance) / (1 - chance);
}

/**
 * I(X; Y | Z) in bits from paired samples: Σ_z p(z) Σ_{x,y} p(x,y|z) log2 p(x,y|z) / (p(x|z) p(y|z)).
 * 0 when X tells nothing of Y once Z is known (a choice that only copies Z).
 */
export function conditionalMutualInformation(x: readonly string[], y: readonly string[], z: readonly string[]): number {
  if (x.length !== y.length || x.length !== z.length) throw new Error(`conditionalMutualInformation: ${x.length}, ${y.length} and ${z.length} samples; expected triples`);
  if (x.length === 0) throw new Error('conditionalMutualInformation: no samples');
  const groups = new Map<string, number[]>();
  z.forEach((label, i) => {
    const group = groups.get(label);
    if (group) group.push(i);
    else groups.set(label, [i]);
  });
  let total = 0;
  for (const indices of groups.values()) {
    const n = indices.length;
    const joint = new Map<string, number>();
    const px = new Map<string, number>();
    const py = new Map<string, number>();
    for (const i of indices) {
      const key = `${x[i]}\u0000${y[i]}`;
      joint.set(key, (joint.get(key) ?? 0) + 1);
      px.set(x[i]!, (px.get(x[i]!) ?? 0) + 1);
      py.set(y[i]!, (py.get(y[i]!) ?? 0) + 1);
    }
    let info = 0;
    for (const [key, c] of joint) {
      const [xi, yi] = key.split('\u0000') as [string, string];
      info += (c / n) * Math.log2((c * n) / (px.get(xi)! * py.get(yi)!));
    }
    total += (n / x.length) * info;
  }
  return Math.max(0, total);
}
