import { writeFileSync } from "node:fs";
import { openApiText } from "./document.js";

/**
 * Run by the build (`node dist/openapi/write.js`): writes the generated document to
 * `dist/openapi.yaml`, the same text the server serves at `/openapi.yaml`, for tools that read a
 * file (openapi-typescript, redocly).
 */
writeFileSync(new URL("../openapi.yaml", import.meta.url), openApiText());
