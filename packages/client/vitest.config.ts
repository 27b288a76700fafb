import { svcProject } from "../../vitest.shared.ts";

export default svcProject("client", { testTimeout: 60_000 });
