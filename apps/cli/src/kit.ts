// What svc's companion tools (svc-transfer) share with svc: the global options and their
// defaults, the exit statuses, how failures read, and the spinner.
export { type ArgsEnv, DEFAULT_SERVER, type GlobalArgs, resolveGlobalOptions } from "./args.js";
export { EXIT } from "./exit.js";
export { describeFailure, describeWarning, type Failure } from "./failure.js";
export { defaultHome } from "./home.js";
export { type Problem, problemLine } from "./output.js";
export { type Progress, silentProgress, terminalSpinner } from "./progress.js";
