/**
 * The page's engine is given the prompt as text: it must be the text the embedded engine
 * gives the model (node-llama-cpp's Gemma template over the same chat), or the adapter,
 * tuned on the embedded engine's prompts, would read another prompt in the page.
 */
import { GemmaChatWrapper } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { type ChatMessage, buildRequest, gemmaChatText, parseExamSet } from '../../src/llm';
import { toHistory } from '../../src/llm/node/llamaClient';
import { readFileSync } from 'node:fs';

/** node-llama-cpp's prompt of `messages` in text, without the BOS token (the engine adds it). */
function nodeLlamaText(messages: readonly ChatMessage[]): string {
  const items = new GemmaChatWrapper().generateContextState({ chatHistory: toHistory(messages) }).contextText.toJSON();
  return (Array.isArray(items) ? items : [items])
    .map((item) => (typeof item === 'string' ? item : item.type === 'specialToken' ? (item.value === 'BOS' ? '' : `<${item.value}>`) : item.value))
    .join('');
}

const sys: ChatMessage = { role: 'system', content: 'You pick skills.\nAnswer with numbers.' };
const user: ChatMessage = { role: 'user', content: 'Agent 1: hp 9.\nTeam: ahead.' };

describe("the page's Gemma prompt", () => {
  it.each([
    ['a system prompt and a situation', [sys, user]],
    ['a situation alone', [user]],
    ['a system prompt alone', [sys]],
    ['two system messages and two user messages', [sys, sys, user, user]],
    ['an earlier exchange', [sys, user, { role: 'assistant', content: '1,3' }, user]],
  ] as const)('is node-llama-cpp\'s for %s', (_name, messages) => {
    expect(gemmaChatText(messages)).toBe(nodeLlamaText(messages));
  });

  it("is node-llama-cpp's for a real terse decision", () => {
    const exam = parseExamSet(readFileSync('models/strategist-exam.v1.json', 'utf8'), 'exam');
    const item = exam.items[0]!;
    const request = buildRequest(item.situation, item.current, { format: 'terse', temperature: 0 });
    expect(gemmaChatText(request.messages)).toBe(nodeLlamaText(request.messages));
    expect(gemmaChatText(request.messages)).toMatch(/^<start_of_turn>user\n[\s\S]+\n\n---\n\n[\s\S]+<end_of_turn>\n<start_of_turn>model\n$/);
  });
});
