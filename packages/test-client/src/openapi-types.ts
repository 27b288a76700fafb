import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

/** One real answer: the documented path template and method it is for, its status and body. */
export interface DocumentedAnswer {
  path: string;
  method: "get" | "post" | "put" | "delete";
  status: number;
  body: unknown;
}

/**
 * Type-checks real answers against the client openapi-typescript generates from an OpenAPI
 * document (YAML or JSON text): each answer is assigned, as an object literal, to the generated
 * type of its route and status, so an undeclared member is an excess property and a missing or
 * mistyped one an assignability error. Answers the compiler's messages: none when all fit.
 */
export async function answerTypeErrors(
  document: string,
  answers: readonly DocumentedAnswer[],
): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "svc-typed-answers-"));
  try {
    await writeFile(join(dir, "openapi.ts"), astToString(await openapiTS(document)));
    await writeFile(join(dir, "answers.ts"), answersModule(answers));
    const program = ts.createProgram([join(dir, "answers.ts")], {
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function answersModule(answers: readonly DocumentedAnswer[]): string {
  const lines = [
    'import type { paths } from "./openapi.js";',
    "type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =",
    '  paths[P][M] extends { responses: infer R } ? S extends keyof R ? R[S] extends { content: { "application/json": infer B } } ? B : never : never : never;',
  ];
  answers.forEach((answer, i) => {
    const type = `Json<${JSON.stringify(answer.path)}, "${answer.method}", ${answer.status}>`;
    lines.push(`export const answer${i}: ${type} = ${JSON.stringify(answer.body)};`);
  });
  return `${lines.join("\n")}\n`;
}
