import ts from 'typescript';

/**
 * The rule "no test depends on the machine being idle", for the kind of assertion that broke it: an upper bound
 * (`toBeLessThan`, `toBeLessThanOrEqual`) on a time the test measured with its own clock (`Date.now()`,
 * `performance.now()`, `process.hrtime`). How long a step takes on a busy two-core machine says nothing about the code:
 * a test proves "at once" by what would otherwise never happen (a command that sleeps longer than the test may run, a
 * call that would hang without a worker), by counting the work done, or by the times in the turn's history. Speed is
 * measured by the benchmarks under bench/.
 *
 * A lower bound on a measured time stays allowed ("not before the timer"): a busy machine only makes it later.
 */

/** One upper bound on a measured time: where it is and what it bounds. */
export interface ClockBound {
  line: number;
  text: string;
}

const clockRead = /\bDate\.now\(\)|\bperformance\.now\(\)|\bprocess\.hrtime\b/;
const upperBounds = new Set(['toBeLessThan', 'toBeLessThanOrEqual']);
/** A measured duration passed on by a helper under a name that says so (`response.elapsedMs`). */
const elapsedName = /\belapsed\w*/i;

/** The upper bounds on measured times in one file's source. */
export function clockBoundsIn(fileName: string, source: string): ClockBound[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const measured = measuredNames(file);
  const found: ClockBound[] = [];
  const visit = (node: ts.Node): void => {
    const subject = boundedSubject(node);
    if (subject && readsTheClock(subject, measured)) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      found.push({ line: line + 1, text: node.getText(file).split('\n')[0]! });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Names declared from a clock reading anywhere in the file (`const waited = Date.now() - started`, `const at = Date.now()`). */
function measuredNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      clockRead.test(node.initializer.getText(file))
    ) {
      names.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** For `expect(subject).toBeLessThan(limit)` (also behind `.not`/`.resolves`), the subject. */
function boundedSubject(node: ts.Node): ts.Expression | undefined {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return undefined;
  if (!upperBounds.has(node.expression.name.text)) return undefined;
  let target: ts.Expression = node.expression.expression;
  while (ts.isPropertyAccessExpression(target)) target = target.expression;
  if (!ts.isCallExpression(target) || !ts.isIdentifier(target.expression) || target.expression.text !== 'expect') {
    return undefined;
  }
  return target.arguments[0];
}

function readsTheClock(subject: ts.Expression, measured: Set<string>): boolean {
  const text = subject.getText();
  if (clockRead.test(text) || elapsedName.test(text)) return true;
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && measured.has(node.text)) found = true;
    if (!found) ts.forEachChild(node, visit);
  };
  visit(subject);
  return found;
}
