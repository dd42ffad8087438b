/** npm start (src/cli/serve.ts) as users run it: the usage, before anything is served. */
import { describeUsage } from './command';

describeUsage('serve.ts', 'usage: npm start');
