import { svcProject } from "../../vitest.shared.ts";

export default svcProject("push");
