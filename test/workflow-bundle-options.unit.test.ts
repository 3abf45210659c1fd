import {
  compileWorkflowCodeToNativeSyntax,
  workflowBundleTarget,
  type WorkflowWebpackConfiguration,
} from '../src/workflow-bundle-options';

/** The rules of the Temporal bundler's configuration (@temporalio/worker lib/workflow/bundler.js), as 1.24 has them. */
function bundlerConfiguration(): WorkflowWebpackConfiguration {
  return {
    mode: 'development',
    module: {
      rules: [
        { test: /\.js$/, enforce: 'pre', use: ['/app/node_modules/source-map-loader/dist/cjs.js'] },
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          use: {
            loader: '/app/node_modules/swc-loader/src/index.js',
            options: { sourceMap: true, jsc: { target: 'es2017', parser: { syntax: 'typescript', decorators: true } } },
          },
        },
      ],
    },
  };
}

function swcOptionsOf(config: WorkflowWebpackConfiguration, index: number): unknown {
  const rule = config.module?.rules?.[index] as { use: { options: unknown } };
  return rule.use.options;
}

describe('compileWorkflowCodeToNativeSyntax', () => {
  it("compiles the workflow code to ES2022 and keeps the rest of the bundler's configuration", () => {
    const config = bundlerConfiguration();
    const compiled = compileWorkflowCodeToNativeSyntax(config);
    expect(workflowBundleTarget).toBe('es2022');
    expect(swcOptionsOf(compiled, 1)).toEqual({
      sourceMap: true,
      jsc: { target: 'es2022', parser: { syntax: 'typescript', decorators: true } },
    });
    expect(compiled.module?.rules?.[0]).toBe(config.module?.rules?.[0]);
    expect(compiled.mode).toBe('development');
    // The SDK's object is left as it was: a hook composed after ours sees only what ours returned.
    expect(swcOptionsOf(config, 1)).toMatchObject({ jsc: { target: 'es2017' } });
  });

  it('finds swc-loader wherever a rule names it: on the rule itself or in a list of loaders', () => {
    const loader = '/app/node_modules/swc-loader/src/index.js';
    const options = { jsc: { target: 'es2017' } };
    const compiled = compileWorkflowCodeToNativeSyntax({
      module: {
        rules: [
          { test: /\.ts$/, loader, options },
          { test: /\.mts$/, use: ['/app/node_modules/other-loader/index.js', { loader, options }] },
        ],
      },
    });
    expect(compiled.module?.rules).toEqual([
      { test: /\.ts$/, loader, options: { jsc: { target: 'es2022' } } },
      {
        test: /\.mts$/,
        use: ['/app/node_modules/other-loader/index.js', { loader, options: { jsc: { target: 'es2022' } } }],
      },
    ]);
  });

  it("stops the bundle with the reason when the SDK's configuration has no swc-loader rule to rewrite", () => {
    const withoutSwc: WorkflowWebpackConfiguration = {
      module: { rules: [{ test: /\.ts$/, use: { loader: '/app/node_modules/ts-loader/index.js' } }] },
    };
    expect(() => compileWorkflowCodeToNativeSyntax(withoutSwc)).toThrow(/no swc-loader rule .* bundler changed shape/);
    expect(() => compileWorkflowCodeToNativeSyntax({})).toThrow(/swc-loader/);
    // A swc-loader without `jsc` options is a shape this hook does not know either.
    expect(() =>
      compileWorkflowCodeToNativeSyntax({ module: { rules: [{ use: { loader: '/x/swc-loader/index.js' } }] } }),
    ).toThrow(/swc-loader/);
  });
});
