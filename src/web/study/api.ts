/**
 * The study page's calls to the server's study API. The session token lives in this
 * browser's localStorage (one per study) and travels in the X-Study-Token header; the admin
 * token in X-Admin-Token.
 */
import type { PublicStudy } from '../../survey/config';
import type { ParticipantState, Step } from '../../survey/flow';

/** The server's own types: the page reads exactly what the study API sends. */
export type { PublicStudy, ParticipantState, Step };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, url: string, body: unknown, headers: Record<string, string>): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError(0, `the server could not be reached (${(err as Error).message}); check your connection and try again`);
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below
  }
  if (!response.ok) {
    // The server's errors: {error: {kind, message}} (src/server/apiError.ts).
    const message = (json as { error?: { message?: unknown } } | null)?.error?.message;
    throw new ApiError(response.status, typeof message === 'string' ? message : `HTTP ${response.status}`);
  }
  return json as T;
}

const tokenKey = (studyId: string) => `hillmind.study.${studyId}.token`;

export class StudyApi {
  private token: string | null;

  constructor(readonly studyId: string) {
    let stored: string | null = null;
    try {
      stored = localStorage.getItem(tokenKey(studyId));
    } catch {
      // storage unavailable: the session lasts as long as the page
    }
    this.token = stored;
  }

  get hasSession(): boolean {
    return this.token !== null;
  }

  private base(path = ''): string {
    return `/api/study/${encodeURIComponent(this.studyId)}${path}`;
  }

  private auth(): Record<string, string> {
    return this.token ? { 'X-Study-Token': this.token } : {};
  }

  forget(): void {
    this.token = null;
    try {
      localStorage.removeItem(tokenKey(this.studyId));
    } catch {
      // nothing stored
    }
  }

  study(): Promise<{ study: PublicStudy; open: boolean }> {
    return call('GET', this.base(), undefined, {});
  }

  async start(external: Record<string, string>): Promise<ParticipantState> {
    const result = await call<{ token: string; state: ParticipantState }>('POST', this.base('/session'), { consent: true, external }, {});
    this.token = result.token;
    try {
      localStorage.setItem(tokenKey(this.studyId), result.token);
    } catch {
      // kept in memory only
    }
    return result.state;
  }

  async state(): Promise<ParticipantState> {
    return (await call<{ state: ParticipantState }>('GET', this.base('/session'), undefined, this.auth())).state;
  }

  private async post(path: string, body: unknown): Promise<ParticipantState> {
    return (await call<{ state: ParticipantState }>('POST', this.base(path), body, this.auth())).state;
  }

  instructions(): Promise<ParticipantState> {
    return this.post('/instructions', {});
  }

  skipPractice(): Promise<ParticipantState> {
    return this.post('/practice/skip', {});
  }

  /**
   * The participant starts the episode (the server records the attempt, and any it
   * replaces). `attempt` names this start (the step's starts so far plus one), so sending it
   * again after a lost answer is not a restart.
   */
  startAttempt(body: { block: number; episode: number; attempt: number }): Promise<ParticipantState> {
    return this.post('/attempts', body);
  }

  /**
   * Said while the page unloads in the middle of an episode: a keepalive request (a beacon
   * cannot carry the token header), answered to nobody. If it never arrives, the next start
   * of the episode records the abandonment anyway.
   */
  abandon(body: { block: number; episode: number; attempt: number; ticks: number; replay?: unknown }): void {
    void fetch(this.base('/attempts/abandon'), {
      method: 'POST',
      keepalive: true,
      headers: { 'Content-Type': 'application/json', ...this.auth() },
      body: JSON.stringify(body),
    }).catch(() => undefined);
  }

  episode(body: { block: number; episode: number; replay: unknown; summary: unknown }): Promise<ParticipantState> {
    return this.post('/episodes', body);
  }

  ratings(body: { block: number; likert: Record<string, number>; open: Record<string, string> }): Promise<ParticipantState> {
    return this.post('/ratings', body);
  }

  choice(body: { label: string; reason: string }): Promise<ParticipantState> {
    return this.post('/choice', body);
  }

  background(answers: Record<string, string>): Promise<ParticipantState> {
    return this.post('/background', { answers });
  }

  clip(): Promise<{ clip: number; clips: number; episodeId: number; agents: { agent: number; team: 0 | 1; slot: number; name: string }[]; replay: unknown }> {
    return call('GET', this.base('/clip'), undefined, this.auth());
  }

  judgements(body: { clip: number; episodeId: number; judgements: { agent: number; human: boolean }[] }): Promise<ParticipantState> {
    return this.post('/judgements', body);
  }
}

/** The researcher's calls (progress, analysis, exports). */
export class AdminApi {
  constructor(
    readonly studyId: string,
    private readonly token: string,
  ) {}

  private base(path = ''): string {
    return `/api/admin/study/${encodeURIComponent(this.studyId)}${path}`;
  }

  progress<T>(): Promise<T> {
    return call('GET', this.base(), undefined, { 'X-Admin-Token': this.token });
  }

  analysis<T>(): Promise<T> {
    return call('GET', this.base('/analysis'), undefined, { 'X-Admin-Token': this.token });
  }

  setStatus(status: 'open' | 'closed'): Promise<unknown> {
    return call('POST', this.base('/status'), { status }, { 'X-Admin-Token': this.token });
  }

  /** Download an export as a file. */
  async download(query: string, filename: string): Promise<void> {
    const response = await fetch(this.base(`/export?${query}`), { headers: { 'X-Admin-Token': this.token }, cache: 'no-store' });
    if (!response.ok) throw new ApiError(response.status, `the export failed (HTTP ${response.status})`);
    const url = URL.createObjectURL(await response.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
