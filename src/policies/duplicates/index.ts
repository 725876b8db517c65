// The duplicates policy: repeats within a turn are answered from the first call or refused. Its memory
// forgets quiet turns by itself, so it declares no lifecycle.
import { definePolicy } from '../../contract/policy.js';
import { duplicate } from './step.js';
import { TurnMemory } from './turn-memory.js';

export const duplicatesPolicy = definePolicy({
  name: 'duplicates',
  step: 'duplicate',
  stage: 'policy',
  create: ({ config }) => new TurnMemory(config.policy.turnTtlSeconds * 1000),
  middleware: (turns) => duplicate(turns),
});
