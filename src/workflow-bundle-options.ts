import type { BundleOptions } from '@temporalio/worker';

/** Webpack's configuration as the Temporal bundler hands it to `webpackConfigHook`. */
export type WorkflowWebpackConfiguration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/**
 * How Tollgate's workflows are bundled; use these when you prebuild a bundle for `workflowBundle`.
 * The workflow modules are preloaded: with the reusable V8 context (the SDK's default), a module
 * that is not preloaded is evaluated again for every workflow and kept while the workflow is cached.
 * Ours keep no state in module scope, so one shared copy serves every turn and conversation; the few
 * that hold zod (the input checks) are loaded lazily and stay per workflow.
 * The `webpackConfigHook` compiles the workflow code to ES2022, which Node runs natively, instead of
 * the bundler's ES2017 and its helper calls on every object spread. A caller with a hook of its own
 * applies ours first.
 *
 * @example
 * const { code } = await bundleWorkflowCode(tollgateWorkflowBundleOptions());
 *
 * @example
 * const tollgate = tollgateWorkflowBundleOptions();
 * const { code } = await bundleWorkflowCode({
 *   ...tollgate,
 *   webpackConfigHook: (config) => myHook(tollgate.webpackConfigHook(config)),
 * });
 */
export function tollgateWorkflowBundleOptions(): Required<
  Pick<BundleOptions, 'workflowsPath' | 'preloadModules' | 'webpackConfigHook'>
> {
  const workflowsPath = require.resolve('./workflows');
  return { workflowsPath, preloadModules: [workflowsPath], webpackConfigHook: compileWorkflowCodeToNativeSyntax };
}

/**
 * The syntax the workflow bundle is compiled to: the project's own TypeScript target, which the Node versions Tollgate
 * supports run natively. The Temporal bundler compiles workflow code to ES2017, which turns object spread, `?.`, `??`
 * and class fields into helper calls that every workflow task pays for.
 */
export const workflowBundleTarget = 'es2022';

/**
 * A `webpackConfigHook` that compiles the workflow code to {@link workflowBundleTarget} instead of the bundler's
 * ES2017. It finds the bundler's swc-loader rule by its loader's path and throws when there is none, so that an SDK
 * whose configuration changed shape stops the bundle rather than quietly building the slower one.
 */
export function compileWorkflowCodeToNativeSyntax(config: WorkflowWebpackConfiguration): WorkflowWebpackConfiguration {
  let rewritten = 0;
  const rules = (config.module?.rules ?? []).map((rule) => {
    const next = withSwcTarget(rule);
    if (next !== rule) rewritten += 1;
    return next;
  });
  if (rewritten === 0) {
    throw new Error(
      "Tollgate's workflow bundle: the Temporal bundler's webpack configuration has no swc-loader rule with `jsc` " +
        `options, so the workflow code cannot be compiled to ${workflowBundleTarget}; the SDK's bundler changed ` +
        'shape, and src/workflow-bundle-options.ts must follow it.',
    );
  }
  return { ...config, module: { ...config.module, rules } };
}

type Rule = NonNullable<NonNullable<WorkflowWebpackConfiguration['module']>['rules']>[number];

/** The rule with every swc-loader in it targeting {@link workflowBundleTarget}; the same object when it has none. */
function withSwcTarget(rule: Rule): Rule {
  if (!isObject(rule)) return rule;
  if (isSwcLoader(rule.loader) && isObject(rule.options)) {
    const options = withTarget(rule.options);
    return options === rule.options ? rule : { ...rule, options };
  }
  const use = rule.use;
  if (Array.isArray(use)) {
    const entries = use.map((entry: unknown) => withSwcUseEntry(entry));
    return entries.some((entry, index) => entry !== use[index]) ? ({ ...rule, use: entries } as Rule) : rule;
  }
  const entry = withSwcUseEntry(use);
  return entry === use ? rule : ({ ...rule, use: entry } as Rule);
}

function withSwcUseEntry(entry: unknown): unknown {
  if (!isObject(entry) || !isSwcLoader(entry.loader) || !isObject(entry.options)) return entry;
  const options = withTarget(entry.options);
  return options === entry.options ? entry : { ...entry, options };
}

function withTarget(options: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(options.jsc)) return options;
  return { ...options, jsc: { ...options.jsc, target: workflowBundleTarget } };
}

function isSwcLoader(loader: unknown): boolean {
  return typeof loader === 'string' && loader.includes('swc-loader');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
