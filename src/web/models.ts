/// <reference types="vite/client" />
/**
 * The page's model source: fetch models/<name>.onnx with its card and run it with
 * onnxruntime-web's CPU (wasm) build, pointed at its files explicitly so built pages find
 * them (threaded builds hang otherwise).
 */
import * as ort from 'onnxruntime-web/wasm';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import mjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import { type ModelSource, type OrtModule, loadOnnxPolicy, parseModelCard } from '../skills';

ort.env.wasm.wasmPaths = { wasm: wasmUrl, mjs: mjsUrl };
// One thread: the models are tiny, and the page's frame budget is better spent elsewhere.
ort.env.wasm.numThreads = 1;

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
        ort as unknown as OrtModule,
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
