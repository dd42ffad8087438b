import { readFileSync } from 'node:fs';
import { openLocalClient } from './src/llm/node';
import { readLlmSettings } from './src/llm/settings';
import { systemPrompt } from './src/llm/prompt';
const log = JSON.parse(readFileSync('/tmp/prompts.json', 'utf8')).filter((l: any) => l.user.length > 20).slice(0, 6);
const s: any = readLlmSettings({ ...process.env, LLM_THREADS: '2' });
const client = await openLocalClient(s.settings ?? s);
const engine = client.engine; const sys = systemPrompt('compact', 2);
const slot = await engine.acquire('x', new AbortController().signal);
for (const l of log) {
  const tk = slot.chat.chatWrapper.generateContextState({ chatHistory: [{ type: 'system', text: sys }, { type: 'user', text: l.user }, { type: 'model', response: [] }] }).contextText.tokenize(engine.model.tokenizer);
  await slot.sequence.clearHistory();
  const got: string[] = []; let n = 0;
  for await (const t of slot.sequence.evaluate(tk, { temperature: 0.1, seed: 3 })) { got.push(JSON.stringify(engine.model.detokenize([t]))); if (++n >= 6) break; }
  console.log(got.join(' '));
}
process.exit(0);
