/**
 * A load generator for the server's requests-per-second figures (npm run bench, section
 * "server"): keep-alive connections on a worker thread, each sending the same request again
 * as soon as it is answered, for a while. On its own thread, so the server it measures has
 * the main thread to itself; the machine's other core is the generator's.
 */
import { Worker } from 'node:worker_threads';

export interface LoadRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface LoadFigures {
  readonly perSecond: number;
  /** Responses by status. */
  readonly statuses: Readonly<Record<number, number>>;
}

const GENERATOR = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, request, connections, ms } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const statuses = {};
let done = 0;
const deadline = Date.now() + ms;
const one = () => new Promise((resolve) => {
  const req = http.request(url + request.path, { method: request.method, agent, headers: request.headers }, (res) => {
    res.on('data', () => {});
    res.on('end', () => { statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1; done++; resolve(); });
  });
  req.on('error', () => { statuses[0] = (statuses[0] || 0) + 1; resolve(); });
  req.end(request.body);
});
const started = Date.now();
Promise.all(Array.from({ length: connections }, async () => { while (Date.now() < deadline) await one(); })).then(() => {
  agent.destroy();
  parentPort.postMessage({ perSecond: done / ((Date.now() - started) / 1000), statuses });
});
`;

/** Send `request` to the server at `url` over `connections` keep-alive connections for `ms`. */
export function load(url: string, request: LoadRequest, ms: number, connections = 8): Promise<LoadFigures> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(GENERATOR, { eval: true, workerData: { url, request, connections, ms } });
    worker.once('message', (figures: LoadFigures) => {
      resolve(figures);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
