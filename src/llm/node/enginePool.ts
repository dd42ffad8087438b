/**
 * Several local engines behind one client (`LLM_ENGINES`): each its own llama.cpp context on
 * the same model file, evaluating one step at a time as one engine does, so the engines run
 * side by side on their own cores. An engine's answer does not depend on what it evaluated
 * before or beside it (localEngine.ts), and every engine runs the same file, adapter and
 * threads, so a request gets the same answer on any of them: a seeded match repeats whatever
 * engine answered. One engine evaluates one step at a time however many cores it has;
 * engines are how a server's decisions a second grow with its cores. Node only.
 */
import { type ChatClient, type ChatRequest, type ChatResponse, answersAlike as answersAlikeOn } from '../chat';

export class EnginePoolClient implements ChatClient {
  /** Requests in flight on each engine. */
  private readonly busy: number[];

  constructor(private readonly engines: readonly ChatClient[]) {
    if (engines.length === 0) throw new Error('an engine pool needs at least one engine');
    this.busy = engines.map(() => 0);
  }

  get model(): string {
    return this.engines[0]!.model;
  }

  get contextTokens(): number | undefined {
    return this.engines[0]!.contextTokens;
  }

  get answerIdentity(): string | undefined {
    return this.engines[0]!.answerIdentity;
  }

  /** The engine with the fewest requests in flight; the first of them on a tie. */
  private leastBusy(): number {
    let best = 0;
    for (let i = 1; i < this.busy.length; i++) if (this.busy[i]! < this.busy[best]!) best = i;
    return best;
  }

  async complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const index = this.leastBusy();
    this.busy[index]!++;
    try {
      return await this.engines[index]!.complete(request, signal);
    } finally {
      this.busy[index]!--;
    }
  }

  promptTokens(request: ChatRequest): number {
    const first = this.engines[0]!;
    if (!first.promptTokens) throw new Error('the pooled engines cannot count prompt tokens');
    return first.promptTokens(request);
  }

  answersAlike(request: ChatRequest): boolean {
    return answersAlikeOn(this.engines[0]!, request);
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((engine) => engine.close?.()));
  }
}
