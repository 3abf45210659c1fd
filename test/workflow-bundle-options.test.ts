import { readFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { quietBundlerLogger } from '../src/workflow-bundle-cache';
import { tollgateWorkflowBundleOptions } from '../src/workflow-bundle-options';
import type { WorkflowWebpackConfiguration } from '../src/workflow-bundle-options';
import { workflowBundlePath } from './support/test-environment';

/** Stops the bundler once its configuration is made: what this test reads, without compiling the whole bundle. */
class ConfigurationSeen extends Error {
  constructor(readonly configuration: WorkflowWebpackConfiguration) {
    super('configuration seen');
  }
}

describe('tollgateWorkflowBundleOptions', () => {
  it("rewrites the Temporal bundler's own webpack configuration to compile the workflow code to ES2022", async () => {
    const tollgate = tollgateWorkflowBundleOptions();
    const stopped = await bundleWorkflowCode({
      ...tollgate,
      logger: quietBundlerLogger,
      webpackConfigHook: (config) => {
        throw new ConfigurationSeen(tollgate.webpackConfigHook(config));
      },
    }).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(ConfigurationSeen);
    const rules = (stopped as ConfigurationSeen).configuration.module?.rules;
    // The SDK's real configuration had the rule the hook rewrites.
    expect(
      JSON.stringify(rules, (_key, value: unknown) => (value instanceof RegExp ? String(value) : value)),
    ).toContain('"target":"es2022"');
  });

  it("builds a bundle without the ES2017 helpers, also under a caller's own webpack hook applied after Tollgate's", () => {
    // The test run's bundle, built once by the global set-up with these options (and, with coverage on, a hook of
    // its own after Tollgate's, as a caller with a hook has): object spread, `?.` and `??` run natively, so none of
    // the helpers SWC adds for ES2017 is in it.
    const code = readFileSync(workflowBundlePath(), 'utf8');
    expect(code).toContain('agentTurn');
    for (const helper of ['_object_spread', '_object_spread_props', '_define_property']) {
      expect(code).not.toContain(`function ${helper}(`);
    }
  });
});
