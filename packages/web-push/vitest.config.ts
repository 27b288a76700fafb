import { svcProject } from "../../vitest.shared.ts";

export default svcProject("web-push");
