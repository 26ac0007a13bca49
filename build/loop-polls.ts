// An asc transform that makes kernels stoppable: at the top of every loop
// body in the kernel sources (not gpsimd's library, not AssemblyScript's) it
// inserts `__gpsimd_poll();`, which reads one word of the core's context
// block. When the host times a kernel out it sets that word, and the kernel
// stops with a typed error at its next loop iteration: no thread is killed.
// The cost is a load and a predictable branch per iteration.
import { Node, NodeKind, SourceKind, type Parser, type Statement, type Source } from "assemblyscript";

type AnyNode = Statement & Record<string, unknown>;

function poll(at: Statement): Statement {
  return Node.createExpressionStatement(Node.createCallExpression(Node.createIdentifierExpression("__gpsimd_poll", at.range), null, [], at.range));
}

/** Wraps a loop body as { __gpsimd_poll(); body }. */
function withPoll(body: Statement): Statement {
  return Node.createBlockStatement([poll(body), body], body.range);
}

function visit(node: AnyNode | null | undefined): void {
  if (!node) return;
  switch (node.kind) {
    case NodeKind.Block: (node.statements as AnyNode[]).forEach(visit); break;
    case NodeKind.FunctionDeclaration: case NodeKind.MethodDeclaration: visit(node.body as AnyNode | null); break;
    case NodeKind.ClassDeclaration: case NodeKind.NamespaceDeclaration: (node.members as AnyNode[]).forEach(visit); break;
    case NodeKind.If: visit(node.ifTrue as AnyNode); visit(node.ifFalse as AnyNode | null); break;
    case NodeKind.Switch: (node.cases as { statements: AnyNode[] }[]).forEach((c) => c.statements.forEach(visit)); break;
    case NodeKind.Try:
      (node.bodyStatements as AnyNode[]).forEach(visit);
      (node.catchStatements as AnyNode[] | null)?.forEach(visit);
      (node.finallyStatements as AnyNode[] | null)?.forEach(visit);
      break;
    case NodeKind.For: case NodeKind.ForOf: case NodeKind.While: case NodeKind.Do:
      visit(node.body as AnyNode);
      node.body = withPoll(node.body as Statement);
      break;
  }
}

/** The transform object passed to asc. */
export const loopPolls = {
  afterParse(parser: Parser): void {
    for (const source of parser.sources as Source[]) {
      if (source.sourceKind !== SourceKind.User && source.sourceKind !== SourceKind.UserEntry) continue;
      if (source.normalizedPath.startsWith("~lib/") || source.normalizedPath.startsWith("__gpsimd__")) continue;
      (source.statements as AnyNode[]).forEach(visit);
    }
  },
};
