import { tollgateSearchAttributes } from '../../src/dev/search-attributes';
import Ajv from 'ajv';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { decisionSigningKeyFromEnvironment } from '../../src/gateway/decisions/decision-signing-key';
import { signDecision } from '../../src/gateway/decisions/sign-decision';
import { decisionSigningOf, operatorPolicyFromEnvironment } from '../../src/policy';
import { verifyBoundDecision } from '../../src/protocol/verify-decision-signature';
import { temporalAddress } from '../support/test-environment';
import { temporaryFolder } from '../support/temporary-folder';

// No Docker engine runs here, so the compose file is checked the way `docker compose config` would start:
// against the Compose Specification's JSON schema (schema/compose-spec.json of compose-spec/compose-spec,
// commit 170098ba, shipped beside this test so that no network is needed), then for what the schema cannot see.

const repository = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(repository, file), 'utf8');

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  depends_on?: Record<string, { condition: string }> | string[];
  environment?: Record<string, string | number | null>;
  security_opt?: string[];
  cap_add?: string[];
  privileged?: boolean;
  volumes?: string[];
  devices?: string[];
}

function loadCompose(text: string): { services: Record<string, ComposeService> } {
  const document = parseDocument(text, { merge: true });
  if (document.errors.length > 0) throw new Error(document.errors.map((error) => error.message).join('\n'));
  return document.toJS() as { services: Record<string, ComposeService> };
}

function schemaErrors(compose: unknown): string[] {
  const schema = JSON.parse(read('test/deploy/compose-spec.schema.json')) as object;
  // The schema names draft-07 by an https URL Ajv does not list; Ajv's own draft-07 support applies.
  const validate = new Ajv({ strict: false, allErrors: true, validateSchema: false }).compile(schema);
  return validate(compose) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const composeText = read('docker-compose.yml');
const compose = loadCompose(composeText);
const services = compose.services;

/** Every file under src/ with its text. */
function sourceFiles(folder = path.join(repository, 'src')): { file: string; text: string }[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts')
      ? [{ file: path.relative(repository, full), text: readFileSync(full, 'utf8') }]
      : [];
  });
}

/** Environment variables the code reads: `process.env.X`, `environment.X`, and names passed as 'X' to a reader. */
function variablesReadBySource(): Map<string, string> {
  const found = new Map<string, string>();
  const patterns = [
    /(?:process\.env|environment|env)\.([A-Z][A-Z0-9_]*[A-Z0-9])\b/g,
    /(?:process\.env|environment|env)\[['"]([A-Z][A-Z0-9_]*[A-Z0-9])['"]\]/g,
    /['"]((?:TOLLGATE|TEMPORAL|OPENAI|SLACK|SMTP)_[A-Z0-9_]*[A-Z0-9])['"]/g,
  ];
  for (const { file, text } of sourceFiles()) {
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.set(match[1]!, file);
  }
  return found;
}

/** Names listed after "Not needed in compose" in the file's header comment. */
function documentedAsNotNeeded(): Set<string> {
  const header = composeText.split('\n').filter((line) => line.startsWith('#'));
  const start = header.findIndex((line) => line.includes('Not needed in compose'));
  const names = new Set<string>();
  for (const line of header.slice(start))
    for (const match of line.matchAll(/\b[A-Z][A-Z0-9_]{2,}\b/g)) names.add(match[0]);
  return names;
}

describe('docker-compose.yml', () => {
  it('is valid under the Compose Specification schema', () => {
    expect(schemaErrors(compose)).toEqual([]);
  });

  it('the schema check catches a broken file, so a pass means something', () => {
    const broken = loadCompose(composeText.replace('condition: service_completed_successfully', 'condition: finished'));
    expect(schemaErrors(broken).join('\n')).toMatch(/must be equal to one of the allowed values/);
  });

  it("runs Temporal's current images, not the deprecated auto-setup one", () => {
    const images = Object.values(services).flatMap((service) => (service.image ? [service.image] : []));
    expect(images).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^temporalio\/server:/),
        expect.stringMatching(/^temporalio\/admin-tools:/),
        expect.stringMatching(/^temporalio\/ui:/),
      ]),
    );
    expect(images.filter((image) => image.includes('auto-setup'))).toEqual([]);
    // The schema the admin-tools job applies must be the one the server expects.
    expect(services.temporal?.image?.split(':')[1]).toBe(services['temporal-schema']?.image?.split(':')[1]);
  });

  it('pins every image to a version (no latest, no bare major)', () => {
    const unpinned = Object.entries(services)
      .filter(([, service]) => !service.build)
      .map(([name, service]) => `${name}: ${service.image ?? '(no image)'}`)
      .filter((entry) => !/:\s*[^:\s]+:\d+\.\d+(\.\d+)?([-.\w]*)$/.test(entry) || /:latest$/.test(entry));
    expect(unpinned).toEqual([]);
    const dockerfileImages = [...read('Dockerfile').matchAll(/NODE_IMAGE=(\S+)/g)].map((match) => match[1]);
    expect(dockerfileImages).toEqual([expect.stringMatching(/^node:\d+\.\d+\.\d+-/)]);
  });

  it('depends only on services that exist, and waits for each set-up job to succeed', () => {
    const missing: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      const dependencies = Array.isArray(service.depends_on)
        ? service.depends_on
        : Object.keys(service.depends_on ?? {});
      for (const dependency of dependencies) if (!services[dependency]) missing.push(`${name} -> ${dependency}`);
    }
    expect(missing).toEqual([]);
    const conditionOn = (name: string, dependency: string) =>
      (services[name]?.depends_on as Record<string, { condition: string }>)[dependency]?.condition;
    expect(conditionOn('temporal', 'temporal-schema')).toBe('service_completed_successfully');
    expect(conditionOn('worker', 'temporal-setup')).toBe('service_completed_successfully');
    expect(conditionOn('gateway', 'temporal-setup')).toBe('service_completed_successfully');
    expect(conditionOn('worker', 'decision-keys')).toBe('service_completed_successfully');
    expect(conditionOn('gateway', 'decision-keys')).toBe('service_completed_successfully');
  });

  it('signs decisions: the private key only where the gateway reads it, the public key where workers read it', () => {
    const mounts = (name: string) => services[name]?.volumes ?? [];
    const holders = (volume: string) =>
      Object.entries(services)
        .filter(([, service]) => (service.volumes ?? []).some((mount) => mount.split(':')[0] === volume))
        .map(([name]) => name)
        .sort();
    expect(holders('decision-private-key')).toEqual(['decision-keys', 'gateway']);
    expect(holders('decision-public-key')).toEqual(['decision-keys', 'worker']);
    expect(mounts('gateway')).toContain('decision-private-key:/keys/private:ro');
    expect(mounts('worker')).toContain('decision-public-key:/keys/public:ro');
    const worker = services.worker?.environment ?? {};
    const gateway = services.gateway?.environment ?? {};
    expect(worker.TOLLGATE_DECISION_PUBLIC_KEYS_FILE).toBe('/keys/public/decision-public-keys');
    expect(gateway.TOLLGATE_DECISION_SIGNING_KEY_FILE).toBe('/keys/private/decision-signing-key.pem');
    // The job writes where they read.
    expect(services['decision-keys']?.command).toEqual([
      'node',
      '--import',
      'tsx',
      'src/gateway/make-decision-keys.ts',
      gateway.TOLLGATE_DECISION_SIGNING_KEY_FILE,
      worker.TOLLGATE_DECISION_PUBLIC_KEYS_FILE,
    ]);
    // Unsigned only by the operator's explicit word, never by this file.
    expect(worker.TOLLGATE_ACCEPT_UNSIGNED_DECISIONS).toBeNull();
    expect(gateway.TOLLGATE_ACCEPT_UNSIGNED_DECISIONS).toBeNull();
    expect(worker).not.toHaveProperty('TOLLGATE_DECISION_SIGNING_KEY');
    expect(worker).not.toHaveProperty('TOLLGATE_DECISION_SIGNING_KEY_FILE');
  });

  it('its decision-keys job makes a pair that worker and gateway, configured as here, sign and verify with; a rerun keeps it', async () => {
    // The job's command as compose runs it, with the volumes' paths in a temporary folder.
    const folder = temporaryFolder('tollgate-compose-keys-');
    const privateKeyFile = path.join(folder, 'private', 'decision-signing-key.pem');
    const publicKeysFile = path.join(folder, 'public', 'decision-public-keys');
    const command = ([] as string[]).concat(services['decision-keys']?.command ?? []);
    const run = () =>
      promisify(execFile)(command[0]!, [...command.slice(1, -2), privateKeyFile, publicKeysFile], {
        cwd: repository,
        env: { PATH: process.env.PATH, TOLLGATE_DECISION_KEY_ID: 'gateway' },
        timeout: 60_000,
      });
    expect((await run()).stdout).toMatch(/^Decision signing key "gateway" made: private key in /);
    expect(statSync(privateKeyFile).mode & 0o777).toBe(0o600);
    const first = readFileSync(publicKeysFile, 'utf8');
    expect(first).toMatch(/^gateway=[A-Za-z0-9_-]{43}\n$/);
    expect((await run()).stdout).toMatch(/^Decision signing key "gateway" kept/);
    expect(readFileSync(publicKeysFile, 'utf8')).toBe(first);

    const policy = operatorPolicyFromEnvironment({ TOLLGATE_DECISION_PUBLIC_KEYS_FILE: publicKeysFile });
    expect(decisionSigningOf(policy, false).description).toBe('signed: only decisions signed by key "gateway" count');
    const key = decisionSigningKeyFromEnvironment({ TOLLGATE_DECISION_SIGNING_KEY_FILE: privateKeyFile });
    expect(key?.keyId).toBe('gateway');
    // What the gateway signs with the job's private key, a worker with the job's public key verifies.
    const binding = { workflowId: 'turn-1', toolName: 'bash', argumentsDigest: 'a'.repeat(43) };
    const now = new Date();
    const signed = signDecision({ approvalId: 'approval-1', approved: true, approver: 'ana' }, binding, key!, now);
    const verdict = verifyBoundDecision(
      signed,
      { ...binding, approvalId: 'approval-1' },
      policy.decisions?.trustedKeys ?? {},
      { notBefore: new Date(now.getTime() - 60_000), notAfter: new Date(now.getTime() + 60_000) },
    );
    expect(verdict).toEqual(expect.objectContaining({ valid: true }));
  });

  it('set-up jobs fail loudly: they stop at the first error and never swallow one', () => {
    for (const job of ['temporal-schema', 'temporal-setup']) {
      const script = ([] as string[]).concat(services[job]?.command ?? []).join('\n');
      expect(script).toMatch(/^set -eu$/m);
      expect(script).not.toMatch(/\|\|\s*true/);
    }
    const setup = ([] as string[]).concat(services['temporal-setup']?.command ?? []).join('\n');
    expect(setup).toContain(
      'retry temporal operator search-attribute create --namespace "$$NAMESPACE" --name "$$name" --type "$${attribute#*:}"',
    );
    // Every attribute a turn writes, with its type, as the dev server registers them.
    for (const [name, type] of Object.entries(tollgateSearchAttributes)) expect(setup).toContain(`${name}:${type}`);
  });

  it('its temporal-setup job creates the namespace and the search attribute on a real server, and a rerun changes nothing', async () => {
    // The job's script as compose hands it to the shell ($$ is compose's escape for $), run with the same
    // temporal CLI that admin-tools ships, against the tests' dev server.
    const script = ([] as string[])
      .concat(services['temporal-setup']?.command ?? [])
      .join('\n')
      .replaceAll('$$', '$');
    const cli = await resolveTemporalCli();
    const namespace = `compose-${randomUUID().slice(0, 8)}`;
    const environment = {
      PATH: `${path.dirname(cli.path)}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '/tmp',
      TEMPORAL_ADDRESS: temporalAddress(),
      NAMESPACE: namespace,
    };
    const run = () => promisify(execFile)('sh', ['-c', script], { env: environment, timeout: 60_000 });
    expect((await run()).stdout).toContain(`Namespace ${namespace} is ready for Tollgate`);
    const listed = await promisify(execFile)(
      cli.path,
      ['operator', 'search-attribute', 'list', '--namespace', namespace, '--output', 'json'],
      { env: environment },
    );
    const { customAttributes } = JSON.parse(listed.stdout) as { customAttributes: Record<string, string> };
    expect(customAttributes).toEqual({
      TollgatePendingApprovals: 'INDEXED_VALUE_TYPE_KEYWORD_LIST',
      TollgateWaitingTools: 'INDEXED_VALUE_TYPE_KEYWORD_LIST',
      TollgateApprovers: 'INDEXED_VALUE_TYPE_KEYWORD_LIST',
      TollgateRequester: 'INDEXED_VALUE_TYPE_KEYWORD',
    });
    const again = await run();
    expect(again.stdout).not.toContain('successfully registered');
    expect(again.stdout).toContain(`Namespace ${namespace} is ready for Tollgate`);
  });

  it('has a worker and a gateway built from the Dockerfile, running entry points that exist', () => {
    for (const name of ['worker', 'gateway']) {
      const service = services[name];
      expect(service?.build).toEqual({ context: '.', target: 'runtime' });
      // The image runs the compiled code: dist/x.js is built from src/x.ts.
      const entryPoint = (service?.command as string[]).find((part) => part.startsWith('dist/'));
      const source = entryPoint?.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts');
      expect(source && existsSync(path.join(repository, source))).toBe(true);
    }
  });

  it('passes every variable the code reads through to the worker or gateway, or says why not', () => {
    const passed = new Set(['worker', 'gateway'].flatMap((name) => Object.keys(services[name]?.environment ?? {})));
    const notNeeded = documentedAsNotNeeded();
    // The temporal CLI's own names and the machine's own are not Tollgate settings.
    const machine = new Set(['PATH', 'USER', 'HOME', 'CI']);
    const unaccounted = [...variablesReadBySource()]
      .filter(([name]) => !passed.has(name) && !notNeeded.has(name) && !machine.has(name))
      .map(([name, file]) => `${name} (read in ${file})`);
    expect(unaccounted).toEqual([]);
  });

  it('passes Slack, SMTP, OpenAI and Temporal Cloud settings through from the environment', () => {
    const worker = services.worker?.environment ?? {};
    const gateway = services.gateway?.environment ?? {};
    for (const name of ['OPENAI_API_KEY', 'SLACK_BOT_TOKEN', 'SMTP_URL', 'TEMPORAL_API_KEY', 'TEMPORAL_TLS'])
      expect(worker).toHaveProperty(name, null); // null: taken from the shell when set, left unset otherwise
    for (const name of ['SLACK_SIGNING_SECRET', 'TOLLGATE_GATEWAY_TOKENS', 'TEMPORAL_API_KEY'])
      expect(gateway).toHaveProperty(name, null);
    expect(worker.TEMPORAL_ADDRESS).toBe('${TEMPORAL_ADDRESS:-temporal:7233}');
    expect(gateway.TOLLGATE_GATEWAY_HOST).toBe('0.0.0.0');
    expect(worker.TOLLGATE_STORE_DIR).toBe(gateway.TOLLGATE_STORE_DIR);
  });

  it('gives the worker the TUN device its bash network namespace needs, and nothing more', () => {
    expect(services.worker?.devices).toEqual(['/dev/net/tun:/dev/net/tun']);
    expect(services.gateway?.devices).toBeUndefined();
  });

  it('runs the worker with its bash sandbox required, and lets bubblewrap build it without privileges', () => {
    const worker = services.worker!;
    expect(worker.environment?.TOLLGATE_TOOL_SANDBOX).toBe('${TOLLGATE_TOOL_SANDBOX:-bubblewrap}');
    // Namespaces (seccomp), a fresh /proc (Docker's /proc masks) and mounts (AppArmor), nothing more.
    expect(worker.security_opt).toEqual([
      'seccomp=unconfined',
      'apparmor=unconfined',
      'systempaths=unconfined',
      'no-new-privileges:true',
    ]);
    expect(worker.cap_add).toBeUndefined();
    expect(worker.privileged).toBeUndefined();
    // The gateway runs no tools: it keeps Docker's defaults.
    expect(services.gateway?.security_opt).toBeUndefined();
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const packageJson = JSON.parse(read('package.json')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };

  it('installs production dependencies only, exactly as locked, in a separate stage', () => {
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\} AS dependencies$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/m);
    expect(dockerfile).toMatch(/^COPY --from=dependencies \/app\/node_modules/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('builds dist/ in a stage of its own and runs it, with no TypeScript runner in the image', () => {
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\} AS build$/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    // What `npm run build` runs is in the build stage before it.
    const buildScript = /^node (scripts\/[\w.-]+)$/.exec(packageJson.scripts.build ?? '')?.[1];
    expect(buildScript).toBeDefined();
    const buildStage = dockerfile.slice(
      dockerfile.search(/^FROM .* AS build$/m),
      dockerfile.search(/^RUN npm run build$/m),
    );
    expect(buildStage).toContain(`COPY ${buildScript} ./scripts/`);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/worker\.js"\]$/m);
    expect(packageJson.dependencies).not.toHaveProperty('tsx');
  });

  it('builds the workflow bundle into the image, in the state folder the worker reads, so a container starts without bundling', () => {
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    const prebuild = runtime.search(
      /^RUN node -e "require\('\.\/dist\/workflow-bundle-cache'\)\.cachedWorkflowBundle\('\.tollgate', console\.log\)"$/m,
    );
    // After dist/ is in place (the bundle's key is made of its files), and as root, before the image drops to node.
    expect(prebuild).toBeGreaterThan(runtime.search(/^COPY --from=build \/app\/dist \.\/dist$/m));
    expect(prebuild).toBeLessThan(runtime.search(/^USER node$/m));
    // The worker reads TOLLGATE_STATE_DIR (default .tollgate, under the WORKDIR /app): neither moves it elsewhere.
    expect(runtime).toMatch(/^WORKDIR \/app$/m);
    expect(runtime).not.toContain('TOLLGATE_STATE_DIR');
    expect(loadCompose(read('docker-compose.yml')).services.worker?.environment).not.toHaveProperty(
      'TOLLGATE_STATE_DIR',
    );
  });

  it('has every package the source imports among the production or peer dependencies', () => {
    // npm installs peer dependencies with the others (`npm ci --omit=dev` keeps them).
    const production = { ...packageJson.dependencies, ...packageJson.peerDependencies };
    const builtins = new Set(builtinModules);
    const missing = new Set<string>();
    // The example chat page is built and served by `npm run dev` only, never in the image.
    const devOnly = new Set(['src/dev/serve-chat-example.ts']);
    for (const { file, text } of sourceFiles().filter(({ file }) => !devOnly.has(file))) {
      for (const match of text.matchAll(/^import (?!type\b)[^;]*?from '([^.][^']*)'/gm)) {
        const specifier = match[1]!;
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        if (builtins.has(name.replace(/^node:/, ''))) continue;
        if (!production[name]) missing.add(`${name} (imported by ${file})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('installs bubblewrap and the network namespace tools in the image the worker runs, as root before it drops to node, and requires the sandbox', () => {
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    const install = runtime.search(
      /^RUN apt-get update \\\n\s+&& apt-get install -y --no-install-recommends bubblewrap slirp4netns iproute2 \\$/m,
    );
    expect(install).toBeGreaterThan(0);
    expect(install).toBeLessThan(runtime.search(/^USER node$/m));
    expect(runtime).toMatch(/^ENV .*\bTOLLGATE_TOOL_SANDBOX=bubblewrap\b/m);
  });

  it('keeps the checkout out of the build context except what the image needs', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '.git', '.tollgate', '.env']) expect(ignored).toContain(entry);
  });
});
