/**
 * Team variants: a team id with settings, written `id:key=value[:key=value...]`
 * (`llm:format=json:rate=0`, `bt:persona=cautious`). A variant is its own entrant wherever a
 * team id goes (matches, tournaments, studies, replays); its canonical text, with the keys
 * in alphabetical order, is its name. Which keys a team takes, and what values, each entry
 * declares with a zod schema (see registry.ts); this module only reads the text.
 */
import { z } from 'zod';

/** A variant as written, split but not yet validated against its team. */
export interface TeamSpec {
  readonly id: string;
  readonly settings: Readonly<Record<string, string>>;
}

const KEY = /^[a-z][a-z-]*$/;
/** Values may not hold the separators of a variant (':', '=') or of a team list (','). */
const VALUE = /^[^:=,\s]+$/;

/** Split `id:key=value:...`; throws naming what is malformed. */
export function parseTeamSpec(text: string): TeamSpec {
  const [id, ...pairs] = text.trim().split(':');
  if (!id) throw new Error(`'${text}' names no team: expected id or id:key=value[:key=value...]`);
  const settings: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (!KEY.test(key) || !VALUE.test(value)) {
      throw new Error(`'${pair}' in team '${text}' is not a setting: expected key=value (a lower-case key; a value without ':', '=', ',' or spaces)`);
    }
    if (key in settings) throw new Error(`team '${text}' sets '${key}' twice`);
    settings[key] = value;
  }
  return { id, settings };
}

/** The canonical text: the id, then the settings in alphabetical order of their keys. */
export function formatTeamSpec(spec: TeamSpec): string {
  const keys = Object.keys(spec.settings).sort();
  return [spec.id, ...keys.map((k) => `${k}=${spec.settings[k]}`)].join(':');
}

/** The settings a team takes: each key's schema reads the text a user wrote (all optional). */
export type VariantSchema = z.ZodObject;

/** Validate a variant's settings against its team's schema; unknown keys and bad values are refused by name. */
export function readVariant(team: string, schema: VariantSchema | undefined, settings: Readonly<Record<string, string>>): Readonly<Record<string, unknown>> {
  const keys = Object.keys(settings);
  if (!schema) {
    if (keys.length > 0) throw new Error(`team '${team}' takes no settings, got ${keys.map((k) => `'${k}'`).join(', ')}`);
    return {};
  }
  const known = Object.keys(schema.shape);
  const unknown = keys.filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new Error(`team '${team}' has no setting ${unknown.map((k) => `'${k}'`).join(', ')}: its settings are ${known.join(', ')}`);
  const parsed = schema.safeParse(settings);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`team '${team}' has an invalid setting: ${problems}`);
  }
  return parsed.data;
}

/** A decimal number written in a variant, from `min` to `max` (no hex, no exponents, no blanks). */
export function variantNumber(min: number, max: number, what = 'a number') {
  return z
    .string()
    .refine((v) => /^\d+(\.\d+)?$/.test(v) && Number(v) >= min && Number(v) <= max, { message: `must be ${what} from ${min} to ${max}` })
    .transform(Number);
}
