/**
 * One asking shared by everyone who wants its answer, and kept once answered, except that an
 * asking that fails (rejects, or answers what `failed` calls a failure) is forgotten, so the
 * next want asks again: a server not up yet is found once it is. Browser-safe.
 */
export class KeptUnlessFailed<T> {
  private current: Promise<T> | null = null;

  constructor(
    private readonly ask: () => Promise<T>,
    private readonly failed: (answer: T) => boolean = () => false,
  ) {}

  /** The asking kept or under way, else a new one. */
  get(): Promise<T> {
    if (this.current) return this.current;
    const asking = this.ask();
    this.current = asking;
    // Forgets this asking only: a later one that has taken its place (after take()) is kept.
    // Attached before anyone else waits on it, so whoever hears of the failure asks anew.
    const forget = () => {
      if (this.current === asking) this.current = null;
    };
    asking.then((answer) => {
      if (this.failed(answer)) forget();
    }, forget);
    return asking;
  }

  /** The asking kept or under way, handed over and forgotten (null where there is none): the next get() asks again. */
  take(): Promise<T> | null {
    const taken = this.current;
    this.current = null;
    return taken;
  }
}
