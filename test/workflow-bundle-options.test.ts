import { bundleWorkflowCode } from '@temporalio/worker';
import { quietBundlerLogger } from '../src/dev/workflow-bundle-cache';
import { tollgateWorkflowBundleOptions } from '../src/workflow-bundle-options';
import type { WorkflowWebpackConfiguration } from '../src/workflow-bundle-options';

describe('tollgateWorkflowBundleOptions', () => {
  it("builds a bundle without the ES2017 helpers, also under a caller's own webpack hook applied after Tollgate's", async () => {
    const tollgate = tollgateWorkflowBundleOptions();
    let seen: WorkflowWebpackConfiguration | undefined;
    const { code } = await bundleWorkflowCode({
      ...tollgate,
      logger: quietBundlerLogger,
      webpackConfigHook: (config) => (seen = tollgate.webpackConfigHook(config)),
    });
    // The SDK's real configuration had the rule the hook rewrites.
    expect(
      JSON.stringify(seen?.module?.rules, (_key, value: unknown) => (value instanceof RegExp ? String(value) : value)),
    ).toContain('"target":"es2022"');
    // Object spread, `?.` and `??` run natively: none of the helpers SWC adds for ES2017 is in the bundle.
    for (const helper of ['_object_spread', '_object_spread_props', '_define_property']) {
      expect(code).not.toContain(`function ${helper}(`);
    }
  });
});
