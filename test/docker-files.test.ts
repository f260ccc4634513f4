// The container files are code no other test runs (there is no Docker engine in CI): these checks
// hold them to what the README promises: pinned images, ports on loopback, a Redis that keeps
// BullMQ's keys, secrets only from .env, a non-root image with an init and a health check that
// follows the worker's default endpoint; and `docker compose config` when a client is installed.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../src/config/read-config.js';
import { WorkerSchema } from '../src/config/schema.js';
import { DEFAULT_CHROMIUM_PATH } from '../src/report/render/pdf.js';
import { configYaml, sim, tempDir } from './helpers/harness.js';
import { freePort } from './helpers/net.js';
import { spawnWorker, writeConfig } from './helpers/worker-process.js';

const ROOT = join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Dockerfile instructions by stage: continuation lines joined, comments dropped. */
function dockerfileStages(text: string): { args: Map<string, string>; stages: Stage[] } {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of lines) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m || line.trimStart().startsWith('#')) continue;
    const keyword = m[1]!.toUpperCase();
    const rest = m[2]!.trim();
    if (keyword === 'FROM') {
      const [from, , name] = rest.split(/\s+/);
      stages.push({ from: from!, name, instructions: [] });
    } else if (stages.length === 0 && keyword === 'ARG') {
      const [key, value] = rest.split('=');
      if (value !== undefined) args.set(key!, value);
    } else {
      stages.at(-1)?.instructions.push({ keyword, args: rest });
    }
  }
  return { args, stages };
}

/** `${NAME}` and `${NAME:-default}` as Docker expands a FROM line from global ARGs. */
function expandArgs(s: string, args: Map<string, string>): string {
  return s.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_, a, b) => args.get(a ?? b) ?? '',
  );
}

/** KEY=value pairs (values optionally double-quoted) of ENV, ARG and LABEL arguments. */
function keyValues(args: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of args.matchAll(/([A-Za-z0-9_.-]+)=(?:"([^"]*)"|(\S*))/g)) out.set(m[1]!, m[2] ?? m[3] ?? '');
  return out;
}

const dockerfile = dockerfileStages(read('Dockerfile'));
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = Object.entries(compose.services);

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: (string | { host_ip?: string; published?: string | number })[];
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
}

/** The variables of .env.example, as `docker compose --env-file .env.example` sees them. */
function envExample(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of read('.env.example').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

/** Compose's own ${VAR}, ${VAR:-default} and ${VAR:?message} expansion, enough for these files. */
function composeExpand(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z_][A-Z0-9_]*)(?::([-?])([^}]*))?\}/g,
    (_, name: string, op, rest: string) => {
      const v = env[name];
      if (v) return v;
      if (op === '?') throw new Error(`compose would stop: ${rest}`);
      return op === '-' ? rest : '';
    },
  );
}

const loopbackHost = /^(127\.0\.0\.1|\$\{[A-Z_][A-Z0-9_]*:-127\.0\.0\.1\})$/;

describe('docker-compose.yml', () => {
  it('pins every image it pulls to a release, never latest', () => {
    const pulled = services.filter(([, s]) => s.image && !s.build);
    expect(pulled.map(([name]) => name).sort()).toEqual(['minio', 'minio-init', 'redis']);
    for (const [name, s] of pulled) {
      const tag = s.image!.split(':')[1];
      expect(tag, `${name}: ${s.image}`).toBeDefined();
      expect(tag, `${name}: ${s.image}`).not.toMatch(/latest/);
      // A full release (7.4.7, RELEASE.2025-04-22T...), not a moving major tag such as 7-alpine.
      expect(tag, `${name}: ${s.image}`).toMatch(
        /^(\d+\.\d+\.\d+(-[a-z0-9.]+)?|RELEASE\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)$/,
      );
    }
  });

  it('binds every published port to 127.0.0.1, or to a variable that defaults to it', () => {
    const published = services.flatMap(([name, s]) => (s.ports ?? []).map((p) => ({ name, p })));
    expect(published.length).toBeGreaterThan(0);
    for (const { name, p } of published) {
      // Short syntax HOST:PUBLISHED:TARGET; the host is everything before the last two fields.
      const host = typeof p === 'string' ? p.split(':').slice(0, -2).join(':') : (p.host_ip ?? '');
      expect(host, `${name}: ${JSON.stringify(p)}`).toMatch(loopbackHost);
    }
  });

  it('runs Redis with AOF every second and noeviction', () => {
    const command = compose.services.redis!.command as string[];
    const flag = (name: string) => command[command.indexOf(name) + 1];
    expect(command).toContain('--appendonly');
    expect(flag('--appendonly')).toBe('yes');
    expect(flag('--appendfsync')).toBe('everysec');
    expect(flag('--maxmemory-policy')).toBe('noeviction');
  });

  it('takes every secret from a variable, with no literal default', () => {
    const secretName = /PASSWORD|SECRET|TOKEN|_KEY$|KEY_ID|MINIO_ROOT_USER/;
    const secrets = services.flatMap(([name, s]) =>
      Object.entries(s.environment ?? {})
        .filter(([key]) => secretName.test(key))
        .map(([key, value]) => ({ where: `${name}.${key}`, value })),
    );
    expect(secrets.map((s) => s.where)).toContain('minio.MINIO_ROOT_PASSWORD');
    expect(secrets.map((s) => s.where)).toContain('worker.AWS_SECRET_ACCESS_KEY');
    for (const { where, value } of secrets) {
      // ${NAME}, ${NAME:?message} or ${NAME:-} (empty default): never a value written here.
      expect(String(value), where).toMatch(/^\$\{[A-Z_][A-Z0-9_]*(:\?[^}]*|:-)?\}$/);
    }
    // The one shell command that handles credentials reads them from its environment.
    expect(String(compose.services['minio-init']!.command)).toMatch(/"\$\$MINIO_ROOT_PASSWORD"/);
    // And the example passwords and keys of .env.example appear nowhere else.
    const committed = read('docker-compose.yml') + read('config/docker.yaml');
    for (const [name, value] of Object.entries(envExample())) {
      if (/PASSWORD|SECRET|TOKEN|_KEY$/.test(name)) expect(committed, name).not.toContain(value);
    }
  });

  it('.env.example defines every variable compose requires', () => {
    const required = [...read('docker-compose.yml').matchAll(/\$\{([A-Z_][A-Z0-9_]*):\?/g)].map((m) => m[1]!);
    expect(required.length).toBeGreaterThan(0);
    const example = envExample();
    for (const name of new Set(required)) expect(example[name], name).toBeTruthy();
  });

  it('creates the bucket the docker config writes to, and the workers check /healthz on the configured listen address', () => {
    const env = envExample();
    const workerEnv = Object.fromEntries(
      Object.entries(compose.services.worker!.environment!).map(([k, v]) => [
        k,
        composeExpand(String(v), env),
      ]),
    );
    const config = parseConfig(read('config/docker.yaml'), { source: 'config/docker.yaml', env: workerEnv });

    expect(String(compose.services['minio-init']!.command)).toContain(
      `mc mb --ignore-existing local/${config.sinks.s3!.bucket}`,
    );
    expect(config.redis?.url).toBe('redis://redis:6379');

    // Loopback inside the container unless .env opts in; the health check asks that address.
    expect(config.worker.listen).toBe(WorkerSchema.parse({}).listen);
    const check = compose.services.worker!.healthcheck!.test!.join(' ');
    expect(check).toContain(`http://${config.worker.listen}/healthz`);
    expect(compose.services.enqueue!.depends_on!.worker!.condition).toBe('service_healthy');
  });

  it('keeps the services: simulator, two workers, enqueue, status', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['enqueue', 'minio', 'minio-init', 'redis', 'simulator', 'status', 'worker'].sort(),
    );
    const worker = compose.services.worker as ComposeService & { deploy?: { replicas?: number } };
    expect(worker.deploy?.replicas).toBe(2);
    // Commands that serve no /healthz do not inherit the image's check.
    expect(compose.services.enqueue!.healthcheck!.disable).toBe(true);
    expect(compose.services.status!.healthcheck!.disable).toBe(true);
    expect(compose.services.simulator!.healthcheck!.test!.join(' ')).toContain('8787');
    // A replaced entrypoint keeps the init.
    expect(compose.services.enqueue!.entrypoint![0]).toBe('/usr/bin/tini');
  });
});

describe('Dockerfile', () => {
  const { args, stages } = dockerfile;
  const runtime = stages.at(-1)!;
  const build = stages[0]!;
  const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

  it('builds in one stage and runs from another, on a pinned Node LTS slim image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      const image = expandArgs(stage.from, args);
      expect(image).toMatch(/^node:(22|24)\.\d+\.\d+-[a-z]+-slim$/);
    }
    expect(all(build, 'RUN').map((i) => i.args)).toEqual(expect.arrayContaining(['npm run build']));
    // Without --ignore-scripts, npm ci runs the package's prepare script (a build) with no dev tools.
    expect(all(runtime, 'RUN').some((i) => /npm ci --omit=dev --ignore-scripts\b/.test(i.args))).toBe(true);
    expect(all(runtime, 'COPY').some((i) => i.args === `--from=${build.name} /app/dist ./dist`)).toBe(true);
  });

  it('copies into the build stage the build script and every folder of product sources', () => {
    const copied = all(build, 'COPY').map((i) => i.args.split(/\s+/)[0]);
    const pkg = JSON.parse(read('package.json')) as { scripts: { build: string } };
    const script = /^node (\S+)$/.exec(pkg.scripts.build)?.[1];
    expect(script, 'package.json build script').toBeDefined();
    expect(copied).toContain(script);
    // Every top-level folder holding TypeScript, but for tests, benchmarks and dev scripts.
    const tracked = spawnSync('git', ['ls-files', '*.ts'], { cwd: ROOT, encoding: 'utf8' }).stdout;
    const folders = new Set(
      tracked
        .split('\n')
        .filter((f) => f.includes('/'))
        .map((f) => f.split('/')[0]),
    );
    for (const dev of ['test', 'bench', 'scripts']) folders.delete(dev);
    expect([...folders].sort()).toEqual(['jobs', 'src']);
    for (const dir of folders) expect(copied, dir).toContain(dir);
  });

  it('runs as a non-root user under an init, with a health check on the worker endpoint', () => {
    const user = all(runtime, 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(root|0)$/);

    const entrypoint = JSON.parse(all(runtime, 'ENTRYPOINT').at(-1)!.args) as string[];
    expect(entrypoint[0]).toMatch(/\/tini$/);
    expect(entrypoint.slice(-2)).toEqual(['node', 'bin/visync.js']);
    expect(all(runtime, 'RUN').some((i) => /apt-get install .*\btini\b/.test(i.args))).toBe(true);

    const healthcheck = all(runtime, 'HEALTHCHECK').at(-1)?.args ?? '';
    expect(healthcheck).toContain(`http://${WorkerSchema.parse({}).listen}/healthz`);
    // The compose workers ask the same URL.
    expect(compose.services.worker!.healthcheck!.test!.join(' ')).toContain(
      healthcheck.match(/fetch\('[^']+'/)![0],
    );
  });

  it("installs Debian's Chromium where the config looks for it, with fonts for many scripts", () => {
    // Debian's chromium package puts its command at /usr/bin/chromium: reports.chromiumPath's default.
    expect(DEFAULT_CHROMIUM_PATH).toBe('/usr/bin/chromium');
    const dpkg = spawnSync('dpkg', ['-S', DEFAULT_CHROMIUM_PATH], { encoding: 'utf8' });
    if (dpkg.status === 0) expect(dpkg.stdout).toMatch(/^chromium: /);
    const install = all(runtime, 'RUN').find((i) => /apt-get install .*\bchromium\b/.test(i.args));
    expect(install, 'apt-get install ... chromium in the runtime stage').toBeDefined();
    expect(install!.args).toContain('--no-install-recommends');
    expect(install!.args).toContain('${REPORT_FONTS}');
    const fonts = new Map(all(runtime, 'ARG').flatMap((i) => [...keyValues(i.args)])).get('REPORT_FONTS');
    expect(fonts?.split(/\s+/)).toEqual(
      expect.arrayContaining(['fonts-liberation', 'fonts-noto-core', 'fonts-noto-cjk']),
    );
    // Installed before the image's user takes over (apt needs root).
    const at = (keyword: string) => runtime.instructions.findIndex((i) => i.keyword === keyword);
    expect(runtime.instructions.indexOf(install!)).toBeLessThan(at('USER'));
  });

  it("puts Chromium's crash-report database and caches under /tmp, the writable volume", () => {
    const env = new Map(all(runtime, 'ENV').flatMap((i) => [...keyValues(i.args)]));
    for (const name of ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME'])
      expect(env.get(name), name).toMatch(/^\/tmp\/./);
    // HOME stays the image user's (read-only under readOnlyRootFilesystem); TMPDIR stays /tmp.
    expect(env.has('HOME')).toBe(false);
    expect(env.has('TMPDIR')).toBe(false);
  });

  it('carries the OCI labels, with the version of package.json by default', () => {
    const labels = new Map(all(runtime, 'LABEL').flatMap((i) => [...keyValues(i.args)]));
    for (const key of ['title', 'description', 'source', 'licenses', 'version']) {
      expect(labels.get(`org.opencontainers.image.${key}`), key).toBeTruthy();
    }
    const pkg = JSON.parse(read('package.json')) as { version: string; license: string };
    expect(labels.get('org.opencontainers.image.licenses')).toBe(pkg.license);
    const versionArg = all(runtime, 'ARG').flatMap((i) => [...keyValues(i.args)]);
    expect(new Map(versionArg).get('VERSION')).toBe(pkg.version);
  });
});

describe("the image's HEALTHCHECK against a real worker", () => {
  it('passes once `visync worker` is ready on its listen address, and the worker still stops at once on SIGTERM', async () => {
    const healthcheck = dockerfile.stages.at(-1)!.instructions.find((i) => i.keyword === 'HEALTHCHECK')!;
    const cmd = JSON.parse(healthcheck.args.replace(/^.*?CMD\s+/, '')) as string[];
    expect(cmd.slice(0, 2)).toEqual(['node', '-e']);
    // The same script, on a free port instead of the default (another worker may hold 9464 here).
    const port = await freePort();
    const script = cmd[2]!.replace(WorkerSchema.parse({}).listen, `127.0.0.1:${port}`);
    const check = () => spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' }).status;

    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, {
      top: {
        redis: { url: inject('redisUrl'), prefix: `t-${randomUUID().slice(0, 8)}` },
        worker: { listen: `127.0.0.1:${port}` },
        shutdownGraceSeconds: 5,
      },
    });
    expect(check()).toBe(1); // nothing listens yet: the check must be able to fail
    const w = await spawnWorker(writeConfig(dir, yaml), env);
    expect(check(), w.output()).toBe(0);

    w.child.kill('SIGTERM');
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(check()).toBe(1);
  });
});

describe('Chromium as the image runs it: non-root, HOME read-only, only /tmp writable', () => {
  it("prints a PDF with the image's XDG dirs and TMPDIR on the writable volume, and leaves no profile behind", () => {
    const runtime = dockerfile.stages.at(-1)!;
    const env = new Map(
      runtime.instructions.filter((i) => i.keyword === 'ENV').flatMap((i) => [...keyValues(i.args)]),
    );
    const uid = Number(
      runtime.instructions
        .filter((i) => i.keyword === 'USER')
        .at(-1)!
        .args.split(':')[0],
    );
    // `root` stands for the image's read-only root file system (the user's HOME in it), `volume`
    // for the emptyDir or tmpfs mounted on /tmp.
    const root = tempDir();
    const home = join(root, 'home');
    const volume = join(root, 'tmp');
    mkdirSync(home);
    mkdirSync(volume);
    const onVolume = (path: string) => path.replace(/^\/tmp(?=\/)/, volume);
    const script = join(volume, 'print.mts');
    const out = join(volume, 'report.pdf');
    writeFileSync(
      script,
      [
        `import { writeFileSync } from 'node:fs';`,
        `import { renderPdf } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/report/render/pdf.ts')).href)};`,
        `const pdf = await renderPdf('<!doctype html><title>t</title><h1>Acme</h1><p>Report</p>', { pageSize: 'A4' });`,
        `writeFileSync(${JSON.stringify(out)}, pdf);`,
      ].join('\n'),
    );
    const asRoot = process.getuid?.() === 0;
    // As root here, the test runs Chromium as the image's user, as the container does.
    const drop = asRoot ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'] : [];
    // The image's user must reach the sources and node_modules: a clone in a private folder (a
    // fresh `mktemp -d`, as CI makes) is opened for traversal (o+x, no listing) while it runs.
    const opened = asRoot ? traversable([root, ROOT, dirname(process.execPath)]) : [];
    if (asRoot) {
      chmodSync(root, 0o755);
      chownSync(volume, uid, uid);
      chownSync(script, uid, uid);
    }
    chmodSync(home, 0o555);
    const command = [...drop, join(ROOT, 'node_modules/.bin/tsx'), script];
    const print = () =>
      spawnSync(command[0]!, command.slice(1), {
        env: {
          PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
          HOME: home,
          TMPDIR: volume,
          XDG_CONFIG_HOME: onVolume(env.get('XDG_CONFIG_HOME')!),
          XDG_CACHE_HOME: onVolume(env.get('XDG_CACHE_HOME')!),
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
    let r: ReturnType<typeof print>;
    try {
      r = print();
    } finally {
      for (const [dir, mode] of opened) chmodSync(dir, mode);
    }
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(readFileSync(out).subarray(0, 5).toString()).toBe('%PDF-');
    // HOME was never needed; Chromium's crash-report database went where the image's ENV says.
    expect(readdirSync(home)).toEqual([]);
    expect(existsSync(join(onVolume(env.get('XDG_CONFIG_HOME')!), 'chromium'))).toBe(true);
    // The profile (playwright's temporary user-data-dir under TMPDIR) is removed with the browser.
    expect(readdirSync(volume).filter((f) => f.includes('profile'))).toEqual([]);
  });
});

/** `docker compose` (v2) or `docker-compose` (v1), whichever answers; undefined when neither. */
function composeClient(): string[] | undefined {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'version'], { encoding: 'utf8' });
    if (r.status === 0) return cmd;
  }
  return undefined;
}

const client = composeClient();
if (!client) {
  console.info(
    'docker-files: no `docker compose` or `docker-compose` client here: `config -q` check skipped',
  );
}

describe.skipIf(!client)('docker compose config', () => {
  it('accepts docker-compose.yml with the variables of .env.example', () => {
    const [cmd, ...sub] = client!;
    const r = spawnSync(cmd!, [...sub, '--env-file', '.env.example', 'config', '-q'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

/** Adds o+x to every folder above `paths` that lacks it; returns each changed folder with its old mode. */
function traversable(paths: readonly string[]): [string, number][] {
  const changed = new Map<string, number>();
  for (const p of paths)
    for (let dir = p; dir !== dirname(dir); dir = dirname(dir)) {
      const mode = statSync(dir).mode & 0o7777;
      if (!changed.has(dir) && (mode & 0o001) === 0) {
        changed.set(dir, mode);
        chmodSync(dir, mode | 0o001);
      }
    }
  return [...changed];
}
