import { svcProject } from "../../vitest.shared.ts";

export default svcProject("cli", { testTimeout: 60_000 });
