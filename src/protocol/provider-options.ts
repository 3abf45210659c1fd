import { z } from 'zod';

/** Provider-specific options on a part, as the AI SDK carries them: `{ [provider]: { ... } }`. */
export const providerOptionsSchema = z.record(z.string(), z.record(z.string(), z.json())).optional();
