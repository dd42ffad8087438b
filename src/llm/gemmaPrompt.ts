/**
 * A chat as Gemma reads it, in text, for an engine that is given text (the page's own,
 * pageModel.ts): the turns node-llama-cpp's GemmaChatWrapper makes for the embedded
 * engine (Gemma has no system turn: the system prompt opens the first user turn, apart by a
 * rule), ending with the model's turn to answer. The BOS token is not written: the engine
 * adds it. test/llm/gemmaPrompt.test.ts holds this to node-llama-cpp's own. Browser-safe.
 */
import type { ChatMessage } from './chat';

const TURN_START = '<start_of_turn>';
const TURN_END = '<end_of_turn>\n';

/** The prompt of `messages`, up to the model's turn to answer. */
export function gemmaChatText(messages: readonly ChatMessage[]): string {
  const turns: { user: string; model: string }[] = [];
  let system: string[] = [];
  let user: string[] = [];
  let model: string[] = [];
  let focus: ChatMessage['role'] | null = null;
  const flush = () => {
    if (system.length > 0 || user.length > 0 || model.length > 0) {
      const systemText = system.join('\n\n');
      const userText = user.join('\n\n');
      turns.push({ user: systemText === '' ? userText : userText === '' ? systemText : `${systemText}\n\n---\n\n${userText}`, model: model.join('\n\n') });
    }
    system = [];
    user = [];
    model = [];
  };
  for (const message of messages) {
    if (message.role === 'system') {
      if (focus !== 'system') flush();
      system.push(message.content);
    } else if (message.role === 'user') {
      if (focus !== 'system' && focus !== 'user') flush();
      user.push(message.content);
    } else model.push(message.content);
    focus = message.role;
  }
  // The model's turn to answer, empty.
  model.push('');
  flush();
  return turns
    .map(({ user: u, model: m }, i) => {
      const last = i === turns.length - 1;
      const userTurn = u === '' ? '' : `${TURN_START}user\n${u}${TURN_END}`;
      const modelTurn = m === '' && !last ? '' : `${TURN_START}model\n${m}${last ? '' : TURN_END}`;
      return userTurn + modelTurn;
    })
    .join('');
}
