/** Shared helpers of the LLM tests: play a match with an `llm` team built from given options. */
import { type ChatClient, ChatError, type ChatRequest, type ChatResponse, RuleChatClient } from '../../src/llm';
import { Match, type MatchSpec, runMatch } from '../../src/match';
import { type LlmStrategist, type LlmTeamOptions, defaultLlmTeamEntry, llmStrategistOf, llmTeamEntry, registerTeam } from '../../src/teams';

export interface Played {
  readonly match: Match;
  readonly strategist: LlmStrategist;
}

/** Play blue `llm` (built from `options`) against `red` to the end. */
export async function playLlm(options: LlmTeamOptions, spec: Partial<MatchSpec> = {}, matchOptions: Parameters<typeof runMatch>[1] = {}): Promise<Played> {
  registerTeam(llmTeamEntry(() => options));
  try {
    const match = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: 1, ...spec }, matchOptions);
    const strategist = llmStrategistOf(match.controllers[0])!;
    strategist.dispose();
    return { match, strategist };
  } finally {
    registerTeam(defaultLlmTeamEntry());
  }
}

/** Create (not play) a match with blue `llm`. */
export async function createLlmMatch(options: LlmTeamOptions, spec: Partial<MatchSpec> = {}): Promise<Played> {
  registerTeam(llmTeamEntry(() => options));
  try {
    const match = await Match.create({ blue: 'llm', red: 'bt-scripted', seed: 1, ...spec });
    return { match, strategist: llmStrategistOf(match.controllers[0])! };
  } finally {
    registerTeam(defaultLlmTeamEntry());
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type Behave = (index: number, request: ChatRequest, signal: AbortSignal) => Promise<ChatResponse>;

/** The careful answer to a request (what the fake server answers too). */
export function careful(request: ChatRequest): Promise<ChatResponse> {
  return new RuleChatClient().complete(request);
}

/** The careful answer after `ms` of real time. */
export async function delayed(request: ChatRequest, ms: number): Promise<ChatResponse> {
  await sleep(ms);
  return careful(request);
}

/** Never answers; rejects when aborted, as the SDK does. */
export function hang(signal: AbortSignal): Promise<ChatResponse> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new ChatError('aborted', 'aborted'))));
}

/** An in-process chat client; answers as `behave` says (default: carefully, at once). */
export class TestClient implements ChatClient {
  readonly model = 'test-model';
  readonly requests: ChatRequest[] = [];

  constructor(private readonly behave: Behave = (_i, request) => careful(request)) {}

  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const index = this.requests.length;
    this.requests.push(request);
    return this.behave(index, request, signal);
  }
}
