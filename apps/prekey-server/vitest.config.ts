import { svcProject } from "../../vitest.shared.ts";

export default svcProject("prekey-server");
