/** One entry per suite file; each prints its own table(s). */
export const suites: Record<string, () => Promise<void>> = {};
