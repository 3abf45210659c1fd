import type { V1Turns } from '../workflows/turn-version';

/** The values `TOLLGATE_V1_TURNS` and `v1Turns` take. */
export const v1TurnsValues: readonly V1Turns[] = ['run', 'retired'];

/**
 * Whether the worker still runs turns and conversations started before `turn-v2` (`run`) or not
 * (`retired`, the default), from `TOLLGATE_V1_TURNS`; any other value is an error that says which are allowed.
 */
export function v1TurnsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): V1Turns {
  const text = environment.TOLLGATE_V1_TURNS?.trim();
  if (text === undefined || text === '') return 'retired';
  if ((v1TurnsValues as readonly string[]).includes(text)) return text as V1Turns;
  throw new TypeError(
    `TOLLGATE_V1_TURNS must be "run" (finish turns started before turn-v2 on the v1 code) or "retired" ` +
      `(the default); got "${text}".`,
  );
}
