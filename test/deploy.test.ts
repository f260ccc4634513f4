// The deploy kit (deploy/, docs/deploying.md): every Kubernetes manifest is checked against the
// Kubernetes API schemas (the kubernetes-models package, generated from the Kubernetes OpenAPI
// document), and every manifest, unit and compose file against what visync really serves and
// reads: probe paths and port, commands and flags (the CLI's own commander program), environment
// variables, the config in the ConfigMap (the real loader). The readiness probe's command runs
// against a real worker.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { buildProgram } from '../src/cli/main.js';
import { parseConfig } from '../src/config/read-config.js';
import { DEFAULT_LISTEN } from '../src/config/schema.js';
import { DEFAULT_CHROMIUM_PATH } from '../src/report/render/pdf.js';
import { reportSettingsFor } from '../src/report/settings.js';
import { configYaml, sim, tempDir } from './helpers/harness.js';
import { freePort } from './helpers/net.js';
import { spawnWorker, writeConfig } from './helpers/worker-process.js';

const ROOT = join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const K8S = 'deploy/kubernetes';

// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: any };

const manifestFiles = readdirSync(join(ROOT, K8S)).filter(
  (f) => f.endsWith('.yaml') && f !== 'kustomization.yaml',
);
const manifests: { file: string; doc: Manifest }[] = manifestFiles.flatMap((file) =>
  parseAllDocuments(read(`${K8S}/${file}`)).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0]?.message}`);
    return { file, doc: d.toJS() as Manifest };
  }),
);
const byKind = (kind: string) => manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc);
const one = (kind: string) => {
  const found = byKind(kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as Manifest;
};

// The model class of each kind the kit uses, in the kubernetes-models package (a devDependency).
const MODELS: Record<string, string> = {
  'v1/ConfigMap': 'kubernetes-models/v1/ConfigMap',
  'v1/ServiceAccount': 'kubernetes-models/v1/ServiceAccount',
  'v1/Service': 'kubernetes-models/v1/Service',
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'batch/v1/CronJob': 'kubernetes-models/batch/v1/CronJob',
};

type Model = new (o: unknown) => { validate(): void };

/** The model class of a kind; the package must be installed (npm install -D kubernetes-models@5.1.0). */
async function modelOf(apiVersionKind: string, kind: string): Promise<Model | undefined> {
  const module = MODELS[apiVersionKind];
  if (!module) return undefined;
  try {
    // A string, not a literal: the package is a devDependency, loaded only by this test.
    return ((await import(module as string)) as Record<string, Model>)[kind];
  } catch (err) {
    throw new Error(
      `kubernetes-models is not installed: npm install -D kubernetes-models@5.1.0 (${(err as Error).message})`,
    );
  }
}

/** Commander's reading of a visync command line: the unknown options and operands it would refuse. */
function cliProblems(args: readonly string[]): string[] {
  const program = buildProgram({ exitCode: 0 }, { out: () => {}, err: () => {} });
  const [name, ...rest] = args;
  const cmd = program.commands.find((c) => c.name() === name);
  if (!cmd) return [`unknown command ${name}`];
  try {
    const { operands, unknown } = cmd.parseOptions([...rest]);
    const problems = unknown.map((u) => `unknown option ${u}`);
    if (operands.length > cmd.registeredArguments.length)
      problems.push(`extra operands ${operands.join(' ')}`);
    return problems;
  } catch (err) {
    return [(err as Error).message];
  }
}

/** The env names visync's own code reads (process.env.X / env.X) in src/, jobs/ and bin/. */
const codeSources = ['src', 'jobs', 'bin']
  .flatMap((d) =>
    readdirSync(join(ROOT, d), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|js)$/.test(f))
      .map((f) => read(join(d, f))),
  )
  .join('\n');
const readByCode = (name: string) => new RegExp(`\\b${name}\\b`).test(codeSources);

const podSpecs = () => [
  one('Deployment').spec.template.spec,
  one('CronJob').spec.jobTemplate.spec.template.spec,
];
const configMapYaml = () => one('ConfigMap').data['visync.yaml'] as string;

/** A config's `${NAME}` / `${NAME:-x}` references. */
const references = (text: string) =>
  new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)].map((m) => m[1]));

/** Every `smtp.passwordEnv` of a config (top level, accounts, workspaces): variables it reads by name. */
function passwordEnvs(yaml: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'passwordEnv' && typeof x === 'string') out.push(x);
        else walk(x);
      }
  };
  walk(parse(yaml));
  return [...new Set(out)];
}

/** The secrets a config needs: its `${NAME}` references without a default, and its passwordEnvs. */
const secretsOf = (yaml: string) => [
  ...new Set([
    ...[...yaml.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] as string),
    ...passwordEnvs(yaml),
  ]),
];

/** The keys of docs/deploying.md's `kubectl create secret generic visync-secrets` command. */
const secretKeysIn = (doc: string) =>
  [
    ...(/kubectl create secret generic visync-secrets[^`]*/.exec(doc)?.[0] ?? '').matchAll(
      /--from-literal=([A-Z_][A-Z0-9_]*)=/g,
    ),
  ].map((m) => m[1] as string);

/** The image's ENV (continuation lines joined): NAME -> value. */
const imageEnv = () =>
  new Map(
    [
      ...read('Dockerfile')
        .replace(/\\\r?\n/g, ' ')
        .matchAll(/^ENV\s+(.*)$/gm),
    ].flatMap((m) =>
      [...(m[1] as string).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)].map((kv) => [kv[1], kv[2]] as const),
    ),
  );

/** The directories Chromium writes: TMPDIR (unset: /tmp) and the image's XDG config and cache. */
const chromiumDirs = () => {
  const env = imageEnv();
  return [env.get('TMPDIR') ?? '/tmp', env.get('XDG_CONFIG_HOME'), env.get('XDG_CACHE_HOME')];
};

/** Kubernetes memory quantities (Mi, Gi, M, G, plain bytes) in MiB. */
function mib(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(q);
  if (!m) throw new Error(`not a memory quantity: ${q}`);
  const unit = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, K: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return (Number(m[1]) * unit) / 1024 ** 2;
}

/** The measured peak docs/deploying.md sets the worker's memory from: "... **N MiB** ...". */
const measuredWorkerPeakMib = () => {
  const m = /The figure the limits are set from: \*\*(\d+) MiB\*\*/.exec(read('docs/deploying.md'));
  expect(m, 'docs/deploying.md: "The figure the limits are set from: **N MiB**"').not.toBeNull();
  return Number(m![1]);
};

describe('deploy/kubernetes', () => {
  it('every manifest is valid against the Kubernetes API schema of its kind', async () => {
    expect(manifests.length).toBeGreaterThanOrEqual(6);
    for (const { file, doc } of manifests) {
      const Model = await modelOf(`${doc.apiVersion}/${doc.kind}`, doc.kind);
      expect(Model, `${file}: ${doc.apiVersion} ${doc.kind} has no schema here`).toBeDefined();
      expect(() => new (Model as Model)(doc).validate(), file).not.toThrow();
    }
  });

  it('the schema check is not a formality: a wrong type or a missing field fails it', async () => {
    const Deployment = (await modelOf('apps/v1/Deployment', 'Deployment')) as Model;
    const d = structuredClone(one('Deployment'));
    d.spec.template.spec.containers[0].ports[0].containerPort = 'nine-four-six-four';
    expect(() => new Deployment(d).validate()).toThrow();
    const e = structuredClone(one('Deployment'));
    delete e.spec.selector;
    expect(() => new Deployment(e).validate()).toThrow();
  });

  it('kustomization lists every manifest of the folder', () => {
    const k = parse(read(`${K8S}/kustomization.yaml`)) as { resources: string[] };
    expect([...k.resources].sort()).toEqual([...manifestFiles].sort());
  });

  it('the worker serves its probes where they look: /healthz and /readyz on worker.listen, off loopback', () => {
    const d = one('Deployment');
    const c = d.spec.template.spec.containers[0];
    const port = Number(DEFAULT_LISTEN.split(':')[1]);
    expect(c.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
    const listen = c.env.find((e: { name: string }) => e.name === 'VISYNC_WORKER_LISTEN').value;
    expect(listen).toBe(`0.0.0.0:${port}`);
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.readinessProbe.exec.command.join(' ')).toContain(`http://127.0.0.1:${port}/readyz`);
    // The config the ConfigMap gives the worker takes that listen address from the environment.
    const cfg = parseConfig(configMapYaml(), {
      source: 'visync.yaml',
      env: { ACME_API_KEY: 'k', VISYNC_WORKER_LISTEN: listen, ALERT_WEBHOOK_URL: 'https://hooks.example/x' },
    });
    expect(cfg.worker.listen).toBe(listen);
    // The Service and the PodDisruptionBudget select the Deployment's pods, by the port's name.
    const labels = d.spec.template.metadata.labels;
    expect(one('Service').spec.selector).toEqual(labels);
    expect(one('Service').spec.ports[0]).toMatchObject({ port, targetPort: 'http' });
    expect(one('PodDisruptionBudget').spec.selector.matchLabels).toEqual(labels);
    expect(d.spec.selector.matchLabels).toEqual(labels);
  });

  it('containers run visync commands the CLI has, as the image user, read-only with /tmp writable', () => {
    const image = `visibility-sync:${(JSON.parse(read('package.json')) as { version: string }).version}`;
    const commands: string[] = [];
    for (const spec of podSpecs()) {
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 });
      expect(spec.serviceAccountName).toBe(one('ServiceAccount').metadata.name);
      for (const c of spec.containers) {
        expect(c.image).toBe(image);
        // args, not command: the image's entrypoint (tini -- node bin/visync.js) stays.
        expect(c.command).toBeUndefined();
        expect(cliProblems(c.args), c.args.join(' ')).toEqual([]);
        commands.push(c.args[0]);
        expect(c.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
        });
        const tmp = c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/tmp');
        expect(spec.volumes.find((v: { name: string }) => v.name === tmp?.name)?.emptyDir).toBeDefined();
        const config = c.env.find((e: { name: string }) => e.name === 'VISYNC_CONFIG').value as string;
        const mount = c.volumeMounts.find((m: { mountPath: string }) => config.startsWith(`${m.mountPath}/`));
        const volume = spec.volumes.find((v: { name: string }) => v.name === mount?.name);
        expect(volume?.configMap?.name).toBe(one('ConfigMap').metadata.name);
        expect(config.slice(mount.mountPath.length + 1) in one('ConfigMap').data).toBe(true);
        expect(c.envFrom).toEqual([{ secretRef: { name: 'visync-secrets' } }]);
      }
    }
    expect(commands).toEqual(['worker', 'run']);
    // Grace: longer than shutdownGraceSeconds, so a stopping worker's active jobs can finish.
    const cfg = parseConfig(configMapYaml(), {
      source: 'visync.yaml',
      env: { ACME_API_KEY: 'k', ALERT_WEBHOOK_URL: 'https://h.example/' },
    });
    expect(one('Deployment').spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
      cfg.shutdownGraceSeconds,
    );
  });

  it('the CronJob runs without Redis; the workers with it (from the Secret)', () => {
    const env = {
      ACME_API_KEY: 'k',
      ALERT_WEBHOOK_URL: 'https://hooks.example/x',
      REDIS_URL: 'redis://:pw@redis:6379',
    };
    const cron = one('CronJob').spec.jobTemplate.spec.template.spec.containers[0];
    const cronEnv = Object.fromEntries(
      cron.env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    // The Secret's REDIS_URL is overridden by the container's own env (Kubernetes: env wins over envFrom).
    const forCron = parseConfig(configMapYaml(), { source: 'visync.yaml', env: { ...env, ...cronEnv } });
    expect(forCron.redis.url).toBeUndefined();
    const forWorker = parseConfig(configMapYaml(), { source: 'visync.yaml', env });
    expect(forWorker.redis.url).toBe(env.REDIS_URL);
    expect(forWorker.sinks.s3?.bucket).toBeDefined();
    expect(forWorker.sinks.bigquery?.dataset).toBeDefined();
    expect(one('CronJob').spec.concurrencyPolicy).toBe('Forbid');
    const failJob = one('CronJob').spec.jobTemplate.spec.podFailurePolicy.rules[0].onExitCodes.values;
    expect(failJob).toEqual([64, 78]); // EXIT_USAGE and EXIT_CONFIG: a retry cannot fix them
  });

  it('every environment variable a manifest sets is read by visync or by the config', () => {
    const refs = references(configMapYaml());
    for (const spec of podSpecs()) {
      for (const c of spec.containers) {
        for (const { name } of c.env as { name: string }[]) {
          expect(readByCode(name) || refs.has(name), name).toBe(true);
        }
      }
    }
    // The names docs/deploying.md tells you to put in the Secret.
    const doc = read('docs/deploying.md');
    const secretCommand = /kubectl create secret generic visync-secrets[^`]*/.exec(doc)?.[0] ?? '';
    const secretKeys = [...secretCommand.matchAll(/--from-literal=([A-Z_]+)=/g)].map((m) => m[1] as string);
    expect(secretKeys).toEqual(
      expect.arrayContaining(['ACME_API_KEY', 'REDIS_URL', 'VISYNC_UI_USER', 'VISYNC_UI_PASSWORD']),
    );
    for (const k of secretKeys) expect(readByCode(k) || refs.has(k), k).toBe(true);
  });

  it('the Secret holds every secret the config names: its ${NAME}s and smtp.passwordEnv (SMTP_PASSWORD)', () => {
    const needed = secretsOf(configMapYaml());
    expect(needed).toEqual(expect.arrayContaining(['ACME_API_KEY', 'SMTP_PASSWORD']));
    const worker = one('Deployment').spec.template.spec.containers[0];
    const setHere = new Set((worker.env as { name: string }[]).map((e) => e.name));
    const missing = (doc: string) => {
      const keys = new Set(secretKeysIn(doc));
      return needed.filter((n) => !keys.has(n) && !setHere.has(n));
    };
    const doc = read('docs/deploying.md');
    expect(missing(doc)).toEqual([]);
    // Not a formality: the same command without SMTP_PASSWORD fails it.
    expect(missing(doc.replace(/ --from-literal=SMTP_PASSWORD=\S+/, ''))).toEqual(['SMTP_PASSWORD']);
    // The Deployment's own list of the Secret's keys says so too.
    const manifest = read(`${K8S}/worker-deployment.yaml`);
    for (const n of needed)
      expect(manifest, `worker-deployment.yaml names ${n}`).toMatch(new RegExp(`\\b${n}\\b`));
    // compose: .env.production's keys, in the file's header; systemd: the EnvironmentFile's.
    const comments = (file: string) =>
      read(file)
        .split('\n')
        .filter((l) => l.startsWith('#'))
        .join('\n');
    for (const n of needed)
      expect(comments('deploy/compose/docker-compose.prod.yml'), n).toMatch(new RegExp(`\\b${n}\\b`));
    for (const n of passwordEnvs(configMapYaml()))
      expect(comments('deploy/systemd/visync-worker.service'), n).toMatch(new RegExp(`\\b${n}\\b`));
  });

  it('the workers can print the PDFs the config asks for: Chromium in the image, where reports.chromiumPath says', () => {
    const cfg = parseConfig(configMapYaml(), {
      source: 'visync.yaml',
      env: { ACME_API_KEY: 'k', ALERT_WEBHOOK_URL: 'https://h.example/' },
    });
    const settings = reportSettingsFor(cfg, cfg.accounts[0]!);
    expect(settings.formats).toContain('pdf');
    expect(settings.chromiumPath).toBe(DEFAULT_CHROMIUM_PATH);
    const dockerfile = read('Dockerfile').replace(/\\\r?\n/g, ' ');
    expect(dockerfile).toMatch(/^RUN .*apt-get install [^\n]*\bchromium\b/m);
    expect(dockerfile).toContain(settings.chromiumPath);
    // The mail login goes over TLS from the first byte, its password from the Secret.
    expect(settings.smtp).toMatchObject({ secure: true, passwordEnv: 'SMTP_PASSWORD' });
  });

  it("Chromium's profile, crash database, caches and shared memory land on the emptyDir, not the read-only root", () => {
    const dirs = chromiumDirs();
    expect(dirs.every((d) => typeof d === 'string')).toBe(true);
    for (const spec of podSpecs()) {
      for (const c of spec.containers) {
        expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
        for (const dir of dirs as string[]) {
          const mount = (c.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[]).find(
            (m) => dir === m.mountPath || dir.startsWith(`${m.mountPath}/`),
          );
          expect(mount, `${c.name}: ${dir}`).toBeDefined();
          expect(mount?.readOnly).not.toBe(true);
          expect(spec.volumes.find((v: { name: string }) => v.name === mount?.name)?.emptyDir).toBeDefined();
        }
      }
    }
  });

  it('the worker has the memory a worker printing PDFs was measured to need (docs/deploying.md)', () => {
    const measured = measuredWorkerPeakMib();
    const { requests, limits } = one('Deployment').spec.template.spec.containers[0].resources;
    // The limit leaves headroom over the measured peak; the request reserves the peak itself, so a
    // node is not packed with workers that all print on the first of the month.
    expect(mib(limits.memory)).toBeGreaterThanOrEqual(measured * 1.25);
    expect(mib(requests.memory)).toBeGreaterThanOrEqual(measured);
    expect(mib(requests.memory)).toBeLessThanOrEqual(mib(limits.memory));
    expect(mib('1Gi')).toBe(1024);
    expect(mib('1536Mi')).toBe(1536);
  });

  it('the ConfigMap holds the config docs/production.md shows', () => {
    const doc = read('docs/production.md');
    const block = /<!-- production-config -->\n```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    expect(block).toBe(configMapYaml());
  });
});

describe('the readiness probe against a real worker', () => {
  it("its command exits 0 once the worker is ready and 1 when it is not, with the Secret's credentials", async () => {
    const probe = one('Deployment').spec.template.spec.containers[0].readinessProbe.exec.command as string[];
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const port = await freePort();
    const { yaml, env } = configYaml(s, dir, {
      top: {
        redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` },
        worker: { listen: `0.0.0.0:${port}` },
        shutdownGraceSeconds: 5,
      },
    });
    const credentials = { VISYNC_UI_USER: 'prom', VISYNC_UI_PASSWORD: `pw-${randomUUID()}` };
    const run = (extra: Record<string, string>) =>
      spawnSync(
        probe[0] as string,
        probe.slice(1).map((a) => a.replace(':9464/', `:${port}/`)),
        {
          env: { ...process.env, ...extra },
          encoding: 'utf8',
          timeout: 20_000,
        },
      ).status;
    expect(run(credentials)).toBe(1); // nothing listens yet: the probe can fail
    const w = await spawnWorker(writeConfig(dir, yaml), { ...env, ...credentials });
    expect(run(credentials), w.output()).toBe(0);
    expect(run({ ...credentials, VISYNC_UI_PASSWORD: 'wrong' })).toBe(1);
    // Liveness: /healthz answers without credentials.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    w.child.kill('SIGTERM');
    expect(await w.exited).toEqual({ code: 0, signal: null });
  });
});

/** `Key=value` lines of a systemd unit, by key (repeated keys collected). */
function unitKeys(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of read(file).split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) out.set(m[1] as string, [...(out.get(m[1] as string) ?? []), m[2] as string]);
  }
  return out;
}

describe('deploy/systemd', () => {
  it('the units start real visync commands, hardened, with secrets from an EnvironmentFile', () => {
    for (const [file, command] of [
      ['deploy/systemd/visync-worker.service', 'worker'],
      ['deploy/systemd/visync-run.service', 'run'],
    ] as const) {
      const u = unitKeys(file);
      const [bin, ...args] = (u.get('ExecStart')?.[0] ?? '').split(/\s+/);
      expect(bin).toBe('/usr/local/bin/visync');
      expect(args[0]).toBe(command);
      expect(cliProblems(args)).toEqual([]);
      expect(u.get('EnvironmentFile')).toEqual(['/etc/visync/visync.env']);
      for (const [key, value] of <[string, string][]>[
        ['DynamicUser', 'yes'],
        ['ProtectSystem', 'strict'],
        ['ProtectHome', 'yes'],
        ['NoNewPrivileges', 'yes'],
        ['PrivateTmp', 'yes'],
      ])
        expect(u.get(key), `${file} ${key}`).toEqual([value]);
      for (const e of u.get('Environment') ?? []) {
        const name = e.split('=')[0] as string;
        // visync's own variables, or Chromium's XDG dirs as the image sets them.
        if (imageEnv().has(name) && name.startsWith('XDG_'))
          expect(e).toBe(`${name}=${imageEnv().get(name)}`);
        else expect(readByCode(name), e).toBe(true);
      }
    }
    const worker = unitKeys('deploy/systemd/visync-worker.service');
    expect(worker.get('RestartPreventExitStatus')).toEqual(['64 78']);
    // The Deployment's measured limit (systemd's M is MiB); Chromium's dirs in the private /tmp.
    const limit = one('Deployment').spec.template.spec.containers[0].resources.limits.memory as string;
    expect(worker.get('MemoryMax')).toEqual([`${mib(limit)}M`]);
    for (const name of ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME'])
      expect(worker.get('Environment')).toContain(`${name}=${imageEnv().get(name)}`);
    const timer = unitKeys('deploy/systemd/visync-run.timer');
    expect(timer.get('Unit')).toEqual(['visync-run.service']);
    expect(timer.get('Persistent')).toEqual(['true']);
  });
});

describe('deploy/compose/docker-compose.prod.yml', () => {
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field
  const compose = parse(read('deploy/compose/docker-compose.prod.yml'), { merge: true }) as any;

  it('Redis keeps BullMQ its keys: AOF, noeviction, a password, a health check, restarted', () => {
    const redis = compose.services.redis;
    const command = (redis.command as string[]).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(command).toContain('--requirepass');
    expect(redis.ports).toBeUndefined();
    expect(redis.volumes).toEqual(['redis-data:/data']);
    expect(redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(redis.restart).toBe('unless-stopped');
  });

  it('the services run visync commands the CLI has, as the image user, and workers restart and are checked', () => {
    const services = compose.services as Record<
      string,
      {
        command?: string[];
        entrypoint?: string[];
        user?: string;
        restart?: string;
        profiles?: string[];
        read_only?: boolean;
      }
    >;
    for (const name of ['worker', 'enqueue', 'status', 'doctor']) {
      const s = services[name]!;
      const args = [...(s.entrypoint?.slice(4) ?? []), ...(s.command ?? [])];
      expect(cliProblems(args), `${name}: ${args.join(' ')}`).toEqual([]);
      expect(s.user).toBe('1000:1000');
      expect(s.read_only).toBe(true);
      if (s.entrypoint)
        expect(s.entrypoint.slice(0, 4)).toEqual(['/usr/bin/tini', '--', 'node', 'bin/visync.js']);
    }
    expect(services.worker!.restart).toBe('unless-stopped');
    expect(compose.services.worker.healthcheck.test.join(' ')).toContain(`http://${DEFAULT_LISTEN}/healthz`);
    for (const name of ['enqueue', 'status', 'doctor']) expect(services[name]!.profiles).toEqual(['tools']);
    expect(compose.services.worker.environment.REDIS_URL).toMatch(
      /^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]+\}@redis:6379$/,
    );
  });

  it("workers: Chromium's dirs on the tmpfs under the read-only root, and the measured memory", () => {
    const worker = compose.services.worker;
    expect(worker.read_only).toBe(true);
    const tmpfs = (worker.tmpfs as string[]).map((t) => t.split(':')[0] as string);
    for (const dir of chromiumDirs() as string[])
      expect(
        tmpfs.some((t) => dir === t || dir.startsWith(`${t}/`)),
        dir,
      ).toBe(true);
    // mem_limit as compose writes it (e.g. 1536m): at least the Deployment's limit.
    const m = /^(\d+)([mg])$/.exec(String(worker.mem_limit));
    expect(m, `mem_limit ${worker.mem_limit}`).not.toBeNull();
    const limit = Number(m![1]) * (m![2] === 'g' ? 1024 : 1);
    expect(limit).toBeGreaterThanOrEqual(measuredWorkerPeakMib() * 1.25);
    expect(limit).toBe(mib(one('Deployment').spec.template.spec.containers[0].resources.limits.memory));
  });
});
