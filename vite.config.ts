import { existsSync, promises as fs, readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// COOP/COEP make the page cross-origin isolated (SharedArrayBuffer, threaded WebAssembly), as
// the server does (src/server/server.ts).
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The LLM proxy (/api/llm, /api/llm/status) and the local model's files the page may run
// (/api/llm/files) on the dev server, as on `npm start`: the key
// and the local engine stay in this process. Loaded through Vite's own module loader, so
// neither the config nor a test run imports the SDK or node-llama-cpp.
function llmProxy(): Plugin {
  return {
    name: 'hillmind-llm-proxy',
    apply: 'serve',
    async configureServer(server) {
      const proxy = (await server.ssrLoadModule('/src/server/llmProxy.ts')) as typeof import('./src/server/llmProxy');
      const node = (await server.ssrLoadModule('/src/llm/node/index.ts')) as typeof import('./src/llm/node');
      const settings = (await server.ssrLoadModule('/src/llm/settings.ts')) as typeof import('./src/llm/settings');
      const served = (await server.ssrLoadModule('/src/llm/servedFiles.ts')) as typeof import('./src/llm/servedFiles');
      const spec = settings.parseLlmSpec(process.env);
      const access = node.nodeLlmAccess({ spec });
      const files = served.lendableFiles(settings.llmSettingsOf(spec));
      // Load the model now, as npm start does: a first load begun by the page's first decision,
      // while Vite was still bundling the page's dependencies, never finished.
      void access.connect().catch(() => undefined);
      server.middlewares.use(await proxy.llmProxyMiddleware({ access, files }));
    },
  };
}

// The shipped policies (models/<name>.onnx and cards) at /models/, in dev and in the build.
function shippedModels(): Plugin {
  const files = () => (existsSync('models') ? readdirSync('models').filter((f) => /\.(onnx|json)$/.test(f)) : []);
  return {
    name: 'hillmind-models',
    configureServer(server) {
      server.middlewares.use('/models', (req, res, next) => {
        const name = (req.url ?? '').split('?')[0]!.replace(/^\//, '');
        if (!files().includes(name)) return next();
        res.setHeader('Content-Type', name.endsWith('.json') ? 'application/json' : 'application/octet-stream');
        res.end(readFileSync(join('models', name)));
      });
    },
    generateBundle() {
      for (const name of files()) this.emitFile({ type: 'asset', fileName: `models/${name}`, source: readFileSync(join('models', name)) });
    },
  };
}

// The built text and wasm (not images, fonts or model weights, which hardly shrink),
// compressed once: a brotli (.br) and a gzip (.gz) copy beside each file of 1 KiB or more,
// which the server sends as the browser accepts, with their length and validators and no
// compression per request (src/server/server.ts). Brotli at quality 5: a 14 MB wasm takes
// about 0.7 s, and quality 9 takes 2.4 times as long for 5% less.
function precompressed(): Plugin {
  const brotli = promisify(brotliCompress);
  const gz = promisify(gzip);
  let outDir = 'dist';
  return {
    name: 'hillmind-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle(error?: Error) {
      // A failed build wrote nothing to compress: leave its own error to be read.
      if (error) return;
      const files = (await fs.readdir(outDir, { recursive: true })).map((f) => join(outDir, f)).filter((f) => /\.(html|m?js|css|json|map|svg|txt|wasm)$/i.test(f));
      await Promise.all(
        files.map(async (file) => {
          const raw = await fs.readFile(file);
          if (raw.length < 1024) return;
          const quality = { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length };
          await fs.writeFile(`${file}.br`, await brotli(raw, { params: quality }));
          await fs.writeFile(`${file}.gz`, await gz(raw, { level: 6 }));
        }),
      );
    },
  };
}

export default defineConfig({
  // Builds started from a test (VITEST in their environment) still ship the models.
  plugins: process.env.VITEST ? [shippedModels(), precompressed()] : [llmProxy(), shippedModels(), precompressed()],
  server: {
    port: Number(process.env.PORT ?? 5173),
    headers: isolationHeaders,
    // Not the page's sources: Python environments, caches, weights and results. Crawling the
    // tuner's .venv-train (48k files) held the dev server's first module loads 30-80 s.
    watch: { ignored: ['**/.venv*/**', '**/.cache/**', '**/results/**', '**/data/**', '**/runs/**', '**/checkpoints/**', '**/scratch/**', '**/python/**'] },
  },
  // wllama (the page's own llama.cpp, src/llm/pageModel.ts; one ES module without dependencies)
  // is served as it is: pre-bundled, its first import, late in a page's life, found the dev
  // server's bundle replaced (504 Outdated Optimize Dep) and the llm team unavailable.
  optimizeDeps: { exclude: ['@wllama/wllama'] },
  preview: { port: Number(process.env.PORT ?? 5173), headers: isolationHeaders },
  build: {
    outDir: 'dist',
    target: 'es2022',
    chunkSizeWarningLimit: 4096,
    // The product page and the user-study page (served at /study/<id>).
    rollupOptions: { input: { main: 'index.html', study: 'study.html' } },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // At least two files at once. Vitest's default leaves one core idle (cores - 1: a single
    // worker on a 2-core machine), while most test files spend their time waiting on a child
    // process, a server, a browser or the one-thread local model rather than on the CPU.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
