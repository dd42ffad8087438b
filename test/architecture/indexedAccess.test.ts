/**
 * The compiler checks index reads (noUncheckedIndexedAccess), so `xs[i]` is `T | undefined`
 * until the code handles the gap or asserts an invariant with `!`. An assertion on an index
 * read TypeScript already knows to be present (a tuple slot, a key checked for undefined just
 * before, a slot just assigned) only hides the reasoning, so none is left in src or test.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const CONFIG = resolve('tsconfig.json');

function compilerOptions(): ts.CompilerOptions {
  const read = ts.readConfigFile(CONFIG, ts.sys.readFile);
  if (read.error) throw new Error(`${CONFIG}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  return ts.parseJsonConfigFileContent(read.config, ts.sys, resolve('.')).options;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const MAYBE_ABSENT = ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void | ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.TypeParameter;

function mayBeAbsent(type: ts.Type): boolean {
  return type.isUnion() ? type.types.some(mayBeAbsent) : (type.flags & MAYBE_ABSENT) !== 0;
}

describe('index reads', () => {
  it('are checked by the compiler', () => {
    expect(compilerOptions().noUncheckedIndexedAccess).toBe(true);
  });

  it('carry no non-null assertion where the value is already known to be present', () => {
    const files = [...sources(resolve('src')), ...sources(resolve('test'))];
    const program = ts.createProgram(files, compilerOptions());
    const checker = program.getTypeChecker();
    const needless: string[] = [];
    for (const file of files) {
      const source = program.getSourceFile(file);
      if (!source) throw new Error(`${file} is missing from the program`);
      const visit = (node: ts.Node): void => {
        if (ts.isNonNullExpression(node) && ts.isElementAccessExpression(node.expression) && !mayBeAbsent(checker.getTypeAtLocation(node.expression))) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          needless.push(`${relative(resolve('.'), file)}:${line + 1} ${node.getText()}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(needless).toEqual([]);
  }, 120_000);
});
