import { svcProject } from "../../vitest.shared.ts";

// Packing, one npm install and the README examples in Node and Chromium take a minute or two.
export default svcProject("packaging", { testTimeout: 240_000 });
