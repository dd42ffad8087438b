/**
 * Shared helpers of the LLM tests: play a match whose blue `llm` team is built from given
 * strategist options, on virtual time unless the options bring a clock.
 */
import { type ChatClient, ChatError, type ChatRequest, type ChatResponse, type Clock, RuleChatClient } from '../../src/llm';
import { Match, type MatchOptions, type MatchSpec, runMatch } from '../../src/match';
import { type LlmStrategist, type LlmTeamOptions, createLlmTeam, llmStrategistOf } from '../../src/teams';
import { TEST_PLATFORM, VirtualClock } from '../helpers/platform';

export interface Played {
  readonly match: Match;
  readonly strategist: LlmStrategist;
}

/** The clock a test's strategist runs on: the options', else its TestClient's. */
function clockOf(options: LlmTeamOptions): Clock {
  return options.clock ?? (options.client instanceof TestClient ? options.client.clock : new VirtualClock());
}

/** Match options whose blue side is `llm` built from `options` (the spec's 'llm' still derives the seed). */
function llmMatchOptions(options: LlmTeamOptions, extra: Partial<MatchOptions> = {}): MatchOptions {
  const clock = clockOf(options);
  return { platform: TEST_PLATFORM, ...extra, controllers: { blue: (ctx) => createLlmTeam(ctx, { ...options, clock }) } };
}

/** Play blue `llm` (built from `options`) against `red` to the end. */
export async function playLlm(options: LlmTeamOptions, spec: Partial<MatchSpec> = {}, matchOptions: Partial<MatchOptions> = {}): Promise<Played> {
  const match = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: 1, ...spec }, llmMatchOptions(options, matchOptions));
  const strategist = llmStrategistOf(match.controllers[0])!;
  return { match, strategist };
}

/** Create (not play) a match with blue `llm`. */
export async function createLlmMatch(options: LlmTeamOptions, spec: Partial<MatchSpec> = {}): Promise<Played> {
  const match = await Match.create({ blue: 'llm', red: 'bt-scripted', seed: 1, ...spec }, llmMatchOptions(options));
  return { match, strategist: llmStrategistOf(match.controllers[0])! };
}

type Behave = (index: number, request: ChatRequest, signal: AbortSignal, clock: Clock) => Promise<ChatResponse>;

/** The careful answer to a request (what the fake server answers too). */
export function careful(request: ChatRequest): Promise<ChatResponse> {
  return new RuleChatClient().complete(request);
}

/** The careful answer after `ms` of the clock's time. */
export async function delayed(request: ChatRequest, ms: number, clock: Clock): Promise<ChatResponse> {
  await clock.sleep(ms);
  return careful(request);
}

/** Never answers; rejects when aborted, as the SDK does. */
export function hang(signal: AbortSignal): Promise<ChatResponse> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new ChatError('aborted', 'aborted'))));
}

/** An in-process chat client; answers as `behave` says (default: carefully, at once), on its clock (default virtual time). */
export class TestClient implements ChatClient {
  readonly model = 'test-model';
  readonly requests: ChatRequest[] = [];

  constructor(
    private readonly behave: Behave = (_i, request) => careful(request),
    readonly clock: Clock = new VirtualClock(),
  ) {}

  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const index = this.requests.length;
    this.requests.push(request);
    return this.behave(index, request, signal, this.clock);
  }
}
