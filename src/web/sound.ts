/**
 * Short synthesized sounds for cues (Web Audio oscillators: no files to fetch, nothing to
 * decode). The audio context is made only after the person has used the page, as browsers
 * require, and only while sound is on; until then cues are dropped silently. Each sound is
 * a few nodes that the browser frees when they stop, so a busy match costs next to nothing.
 */
import type { Cue, CueKind } from './cues';

interface Tone {
  /** Start and end frequency, Hz. */
  readonly from: number;
  readonly to: number;
  readonly seconds: number;
  readonly type: OscillatorType;
  /** Peak gain (0..1); kept low: these are accents, not music. */
  readonly gain: number;
}

const TONES: Readonly<Record<CueKind, readonly Tone[]>> = {
  shot: [{ from: 900, to: 500, seconds: 0.05, type: 'square', gain: 0.03 }],
  hit: [{ from: 1400, to: 1400, seconds: 0.05, type: 'triangle', gain: 0.08 }],
  hurt: [{ from: 220, to: 140, seconds: 0.12, type: 'sawtooth', gain: 0.07 }],
  kill: [{ from: 660, to: 990, seconds: 0.14, type: 'triangle', gain: 0.08 }],
  down: [{ from: 330, to: 110, seconds: 0.35, type: 'sawtooth', gain: 0.08 }],
  pickup: [
    { from: 660, to: 660, seconds: 0.07, type: 'sine', gain: 0.08 },
    { from: 990, to: 990, seconds: 0.09, type: 'sine', gain: 0.08 },
  ],
  zone: [{ from: 440, to: 660, seconds: 0.18, type: 'sine', gain: 0.07 }],
  progress: [{ from: 880, to: 880, seconds: 0.04, type: 'sine', gain: 0.05 }],
  win: [
    { from: 523, to: 523, seconds: 0.12, type: 'triangle', gain: 0.09 },
    { from: 659, to: 659, seconds: 0.12, type: 'triangle', gain: 0.09 },
    { from: 784, to: 784, seconds: 0.25, type: 'triangle', gain: 0.09 },
  ],
  lose: [
    { from: 392, to: 392, seconds: 0.15, type: 'triangle', gain: 0.08 },
    { from: 311, to: 294, seconds: 0.35, type: 'triangle', gain: 0.08 },
  ],
  draw: [{ from: 440, to: 440, seconds: 0.3, type: 'triangle', gain: 0.07 }],
  count: [{ from: 660, to: 660, seconds: 0.1, type: 'sine', gain: 0.08 }],
  go: [{ from: 990, to: 990, seconds: 0.22, type: 'sine', gain: 0.09 }],
};

export class SoundCues {
  private context: AudioContext | null = null;

  /** `enabled` is read at every cue, so switching sound off takes effect at once. */
  constructor(private readonly enabled: () => boolean) {}

  play(cue: Cue): void {
    if (!this.enabled()) return;
    const context = this.audio();
    if (!context) return;
    let at = context.currentTime;
    for (const tone of TONES[cue.kind]) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = tone.type;
      osc.frequency.setValueAtTime(tone.from, at);
      if (tone.to !== tone.from) osc.frequency.exponentialRampToValueAtTime(tone.to, at + tone.seconds);
      gain.gain.setValueAtTime(tone.gain, at);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + tone.seconds);
      osc.connect(gain).connect(context.destination);
      osc.start(at);
      osc.stop(at + tone.seconds);
      at += tone.seconds;
    }
  }

  private audio(): AudioContext | null {
    if (this.context) {
      // A context made before the first gesture starts suspended; the next cue wakes it.
      if (this.context.state !== 'running') void this.context.resume().catch(() => undefined);
      return this.context.state === 'running' ? this.context : null;
    }
    // Browsers refuse audio before the person has used the page; do not even try.
    const activation = (navigator as Navigator & { userActivation?: { hasBeenActive: boolean } }).userActivation;
    if (activation && !activation.hasBeenActive) return null;
    const Context = window.AudioContext ?? (window as Window & { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Context) return null;
    try {
      this.context = new Context();
    } catch {
      return null;
    }
    return this.context.state === 'running' ? this.context : null;
  }
}
