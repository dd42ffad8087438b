import { defineConfig } from 'vitest/config';

// COOP/COEP make the page cross-origin isolated, which onnxruntime-web's threaded wasm needs.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  server: { port: Number(process.env.PORT ?? 5173), headers: isolationHeaders },
  preview: { port: Number(process.env.PORT ?? 5173), headers: isolationHeaders },
  build: { outDir: 'dist', target: 'es2022', chunkSizeWarningLimit: 4096 },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
