/** The PostgreSQL server benchmarks may use, if any. */
export const benchDatabaseUrl = (): string | undefined =>
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
