import { svcProject } from "../../vitest.shared.ts";

export default svcProject("example-chat", { testTimeout: 120_000 });
