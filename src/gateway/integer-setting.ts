/** A whole-number setting from the environment: `fallback` when unset or empty, a clear error when out of range. */
export function integerOf(
  environment: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  const text = environment[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new TypeError(`${name} must be a whole number from ${minimum} to ${maximum}; got "${text}".`);
  }
  return value;
}
