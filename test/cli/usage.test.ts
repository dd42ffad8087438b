/** Every command answers --help and -h with its usage, and names an unknown option (exit 2). */
import { describeUsage } from './command';

describeUsage('match.ts', 'usage: npm run match -- --blue <team> --red <team>');
describeUsage('tournament.ts', 'usage: npm run tournament -- --teams <a,b,c>');
describeUsage('evaluate.ts', 'usage: npm run evaluate --');
describeUsage('bench.ts', 'usage: npm run bench');
describeUsage('survey.ts', 'usage: npm run survey -- <command>');
describeUsage('personas.ts', 'usage: npm run personas --');
describeUsage('reproduce.ts', 'usage: npm run reproduce --');
