// A vitest reporter that makes the suite report its own cost: after every run (passed or failed)
// it prints, per tier (the vitest projects in vitest.config.ts), how many files and tests ran and
// the files' summed time, then the ten slowest files. docs/development.md keeps the budget these
// figures are held against. Wall time per tier is not separable when tiers share the workers, so
// the per-tier figure is the sum of its files' own durations (collect + tests + hooks).
import type { Reporter, TestModule } from 'vitest/node';

interface FileTime {
  file: string;
  tier: string;
  ms: number;
  tests: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The lines printed at the end of a run: exported so a test can hold them to their figures. */
export function tierTimeLines(files: readonly FileTime[], wallMs: number): string[] {
  const tiers = new Map<string, { files: number; tests: number; ms: number }>();
  for (const f of files) {
    const t = tiers.get(f.tier) ?? { files: 0, tests: 0, ms: 0 };
    t.files += 1;
    t.tests += f.tests;
    t.ms += f.ms;
    tiers.set(f.tier, t);
  }
  const lines = [`test time: ${seconds(wallMs)} wall for ${files.length} files`];
  for (const [tier, t] of [...tiers].sort((a, b) => a[0].localeCompare(b[0])))
    lines.push(
      `  ${tier.padEnd(12)} ${String(t.files).padStart(4)} files ${String(t.tests).padStart(5)} tests ${seconds(t.ms).padStart(9)} (sum of file times)`,
    );
  const slowest = [...files].sort((a, b) => b.ms - a.ms).slice(0, 10);
  if (slowest.length) lines.push('ten slowest files:');
  for (const f of slowest) lines.push(`  ${seconds(f.ms).padStart(8)}  ${f.tier.padEnd(12)} ${f.file}`);
  return lines;
}

export default class TierTimes implements Reporter {
  private started = performance.now();

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files = modules.map((m) => {
      const d = m.diagnostic();
      return {
        file: m.relativeModuleId,
        tier: m.project.name || 'default',
        ms: d.collectDuration + d.duration,
        tests: [...m.children.allTests()].length,
      };
    });
    process.stdout.write(`\n${tierTimeLines(files, performance.now() - this.started).join('\n')}\n`);
  }
}
