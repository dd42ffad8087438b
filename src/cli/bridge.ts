/**
 * The Node end of the Python package (python/hillmind): started by it as a child, it serves
 * environments over standard input and output (src/train/bridgeServer.ts). Not for people
 * to run; `--help` says so. Logs go to standard error: standard output carries frames only.
 */
import { ACTION_SPEC_VERSION, OBS_SPEC_VERSION } from '../sim';
import { serveBridge } from '../train/bridgeServer';
import { parseCommandLine, runCli } from './args';
import { commandPlatformSpec, withPlatform } from './platform';

const USAGE = `usage: node --import tsx src/cli/bridge.ts
  the Python package's child process: speaks its binary protocol on stdin/stdout
  (python/hillmind; pip install -e python). Not for interactive use.`;

runCli(async () => {
  parseCommandLine({}, USAGE);
  console.log = (...args: unknown[]) => process.stderr.write(`${args.map(String).join(' ')}\n`);
  await withPlatform(commandPlatformSpec(), (platform) => serveBridge(platform, process.stdin, process.stdout, { obs: OBS_SPEC_VERSION, action: ACTION_SPEC_VERSION }));
  return 0;
});
