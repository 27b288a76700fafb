import { describe, expect, it } from "vitest";
import { readmeExamples } from "./readme-examples.js";

const fence = "```";

describe("readmeExamples", () => {
  it("reads each marked example with the output block after it", () => {
    const markdown = [
      "# pkg",
      "",
      "<!-- example: node browser prekey-server -->",
      `${fence}ts`,
      'console.log("hi");',
      fence,
      "",
      "It prints:",
      "",
      `${fence}text`,
      "hi",
      fence,
      "",
      `${fence}ts`,
      "// not an example",
      fence,
    ].join("\n");
    expect(readmeExamples(markdown)).toEqual([
      {
        runtimes: ["node", "browser"],
        needsServer: true,
        code: 'console.log("hi");\n',
        output: "hi\n",
        line: 5,
      },
    ]);
  });

  it("refuses an example without its output, a marker without code and an unknown tag", () => {
    const code = `${fence}ts\nx;\n${fence}\n`;
    expect(() => readmeExamples(`<!-- example: node -->\n${code}\n${code}`)).toThrow(
      /line 3 is not followed by a text block/,
    );
    expect(() => readmeExamples("<!-- example: node -->\n\nprose\n")).toThrow(
      /1 example markers without a ts block/,
    );
    expect(() => readmeExamples(`<!-- example: deno -->\n${code}`)).toThrow(/unknown tag deno/);
  });
});
