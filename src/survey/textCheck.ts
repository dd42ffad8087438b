/**
 * Where a study's own words disagree with its settings. A researcher who writes their own
 * consent or instructions may copy figures that no longer hold (60 seconds to a draw in a
 * study of 20-second episodes, "about 30 minutes" for five episodes): `survey create` says
 * so before anyone reads them. Each sentence of the free text that gives a time is matched
 * to the setting it speaks of by its words, and compared with that setting's value.
 */
import { type StudyConfig, studyGameConfig, studyMinutes } from './config';

/** One time a text gives that its setting contradicts. */
export interface TextDisagreement {
  /** The config field the text is in, e.g. "instructions". */
  readonly field: string;
  /** The sentence, as written. */
  readonly sentence: string;
  /** What the settings say instead, in words. */
  readonly message: string;
}

const TIME = /(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?)\b/gi;

/** The settings a sentence about time may speak of, by the words it uses (the first that fits). */
interface Topic {
  readonly words: RegExp;
  readonly unit: 'seconds' | 'minutes';
  /** The value the settings give, and how to say it. */
  readonly expected: (config: StudyConfig) => { readonly value: number; readonly says: string } | null;
  /** Whether the stated value is near enough (exact for the game's timers; a study's length is an estimate). */
  readonly agrees?: (stated: number, expected: number) => boolean;
}

const TOPICS: readonly Topic[] = [
  {
    words: /practice/i,
    unit: 'seconds',
    expected: (c) => (c.kind === 'play' && c.practice.enabled ? { value: c.practice.episodeSeconds, says: `the practice round lasts at most ${c.practice.episodeSeconds} s (practice.episodeSeconds)` } : null),
  },
  {
    words: /draw|without a winner|time (limit|runs out|is up)/i,
    unit: 'seconds',
    expected: (c) => {
      const seconds = studyGameConfig(c.episodeSeconds).episodeSeconds;
      return { value: seconds, says: `this study's episodes end in a draw after ${seconds} s (episodeSeconds)` };
    },
  },
  {
    words: /cross|pickup|health/i,
    unit: 'seconds',
    expected: (c) => ({ value: studyGameConfig(c.episodeSeconds).pickups.respawn, says: `pickups come back after ${studyGameConfig(c.episodeSeconds).pickups.respawn} s` }),
  },
  {
    words: /base|respawn|eliminat/i,
    unit: 'seconds',
    expected: (c) => ({ value: studyGameConfig(c.episodeSeconds).respawnDelay, says: `an eliminated player returns after ${studyGameConfig(c.episodeSeconds).respawnDelay} s` }),
  },
  {
    words: /\bwins?\b|\bhold/i,
    unit: 'seconds',
    expected: (c) => ({ value: studyGameConfig(c.episodeSeconds).winHoldSeconds, says: `holding the zone for ${studyGameConfig(c.episodeSeconds).winHoldSeconds} s wins` }),
  },
  {
    words: /takes?|last|study|about/i,
    unit: 'minutes',
    expected: (c) => {
      const minutes = studyMinutes(c);
      return { value: minutes, says: `this study takes about ${minutes} minutes at its settings` };
    },
    // A length is an estimate: a third either way is near enough.
    agrees: (stated, expected) => stated >= (expected * 2) / 3 && stated <= (expected * 3) / 2,
  },
];

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Every sentence of the study's free text that gives a time its settings contradict. */
export function textDisagreements(config: StudyConfig): TextDisagreement[] {
  const fields: [string, string][] = [
    ['title', config.title],
    ['consent', config.consent],
    ['instructions', config.instructions],
    ['completion.message', config.completion.message],
  ];
  const found: TextDisagreement[] = [];
  for (const [field, text] of fields) {
    for (const sentence of sentences(text)) {
      for (const match of sentence.matchAll(TIME)) {
        const unit = /^m/i.test(match[2]!) ? 'minutes' : 'seconds';
        const topic = TOPICS.find((t) => t.unit === unit && t.words.test(sentence));
        const expected = topic?.expected(config);
        if (!topic || !expected) continue;
        const stated = Number(match[1]);
        const agrees = topic.agrees ? topic.agrees(stated, expected.value) : stated === expected.value;
        if (!agrees) found.push({ field, sentence, message: `says ${match[0]}, but ${expected.says}` });
      }
    }
  }
  return found;
}
