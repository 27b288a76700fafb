import { svcProject } from "../../vitest.shared.ts";

export default svcProject("bridge-hub");
