// The operations docs are part of what we ship: the alerting rules must load in Prometheus and
// name only metrics the worker exports, and every exported metric must be documented.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registry } from '../src/metrics/prometheus.js';

interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

const exported = registry.getMetricsAsArray().map((m) => m.name);

describe('operations docs', () => {
  it('docs/alerts.yml is a Prometheus rules file whose rules use only exported visync_ metrics', () => {
    const doc = parse(readFileSync('docs/alerts.yml', 'utf8')) as {
      groups?: { name?: unknown; rules?: Rule[] }[];
    };
    expect(Array.isArray(doc.groups)).toBe(true);
    // An empty file would pass every check below.
    expect(doc.groups?.length).toBeGreaterThan(0);
    const names = new Set<string>();
    for (const group of doc.groups ?? []) {
      expect(typeof group.name).toBe('string');
      expect(group.rules?.length).toBeGreaterThan(0);
      for (const rule of group.rules ?? []) {
        expect(rule.alert).toMatch(/^[A-Z][A-Za-z0-9]+$/);
        expect(names.has(rule.alert as string)).toBe(false);
        names.add(rule.alert as string);
        expect(typeof rule.expr).toBe('string');
        if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smhdw]$/);
        expect(['page', 'ticket']).toContain(rule.labels?.severity);
        expect(typeof rule.annotations?.summary).toBe('string');
        for (const [metric] of (rule.expr as string).matchAll(/visync_[a-z_]+/g)) {
          // A histogram is exported as name_bucket, name_sum and name_count.
          const base = metric.replace(/_(bucket|sum|count)$/, '');
          expect(exported, `${rule.alert} uses ${metric}`).toContain(base);
        }
      }
    }
    // And the rules watch the worker's own metrics at all, not only `up`.
    const exprs = (doc.groups ?? []).flatMap((g) => (g.rules ?? []).map((r) => r.expr as string));
    expect(exprs.filter((e) => /visync_[a-z_]+/.test(e)).length).toBeGreaterThan(0);
  });

  it('docs/operations.md documents every visync_ metric the worker exports', () => {
    const text = readFileSync('docs/operations.md', 'utf8');
    const ours = exported.filter((n) => n.startsWith('visync_'));
    expect(ours.length).toBeGreaterThanOrEqual(8);
    for (const name of ours) expect(text, name).toContain(`\`${name}\``);
  });
});
