import { svcProject } from "../vitest.shared.ts";

/** The load test's end-to-end run takes seconds, more with two instances on PostgreSQL. */
export default svcProject("bench", { testTimeout: 60_000 });
