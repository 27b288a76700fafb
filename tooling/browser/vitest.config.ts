import { svcProject } from "../../vitest.shared.ts";

export default svcProject("browser", { testTimeout: 60_000 });
