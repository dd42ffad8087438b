/**
 * The page's model source: fetch models/<name>.onnx with its card, checked and played by
 * the TypeScript network (skills/onnxPolicy.ts), the same network Node plays, so the page
 * downloads no ONNX engine.
 */
import { type ModelSource, loadOnnxPolicy, parseModelCard } from '../skills';

async function fetchOk(url: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`could not fetch ${url}: ${(err as Error).message}`);
  }
  if (!response.ok) throw new Error(`${url} is not available (HTTP ${response.status}): train it with npm run train`);
  return response;
}

export function webModelSource(base = 'models/'): ModelSource {
  return {
    where: base,
    async load(name) {
      const [model, card] = await Promise.all([fetchOk(`${base}${name}.onnx`), fetchOk(`${base}${name}.json`)]);
      const cardPath = `${base}${name}.json`;
      return loadOnnxPolicy(
        new Uint8Array(await model.arrayBuffer()),
        parseModelCard(await card.text(), cardPath),
        `${base}${name}.onnx`,
      );
    },
    async check(name) {
      const cardPath = `${base}${name}.json`;
      parseModelCard(await (await fetchOk(cardPath)).text(), cardPath);
    },
  };
}
