// dbt_project.yml and the example profiles.yml of the dbt project, per target: the adapter
// (dbt-bigquery, dbt-duckdb, dbt-athena-community) and where it connects, placeholders where
// only the user knows the value. No secret is ever written: credentials come from the adapter's
// own chain (gcloud, AWS profiles, environment).
import { UNIQUE_KEY_MACRO } from './data-tests.js';
import type { DbtTarget } from './sources.js';

const PROJECT_NAME = 'visync';
const PROFILE_NAME = 'visync';

export function dbtProjectDocument(): Record<string, unknown> {
  return {
    name: PROJECT_NAME,
    version: '1.0.0',
    'config-version': 2,
    profile: PROFILE_NAME,
    'model-paths': ['models'],
    'test-paths': ['tests'],
    'clean-targets': ['target', 'dbt_packages'],
    models: {
      [PROJECT_NAME]: {
        // Views: the current state is read when queried, never a copy that can fall behind a run.
        '+materialized': 'view',
      },
    },
  };
}

export interface ProfileSettings {
  target: DbtTarget;
  /** bigquery: the project and the sink's location; models go to a dataset of their own. */
  bigquery?: { project: string; dataset: string; location: string };
  /** duckdb: an s3:// root needs httpfs and credentials. */
  s3Root?: boolean;
  /** The S3 sink's region, where configured (athena, duckdb over S3). */
  region?: string;
}

const q = (s: string) => JSON.stringify(s);

function outputLines(p: ProfileSettings): string[] {
  const region = p.region ?? 'us-east-1';
  switch (p.target) {
    case 'bigquery': {
      const bq = p.bigquery ?? { project: 'YOUR-PROJECT', dataset: 'visibility', location: 'US' };
      return [
        '      type: bigquery',
        '      # gcloud auth application-default login; or method: service-account with keyfile: /path/key.json',
        '      method: oauth',
        `      project: ${q(bq.project)}`,
        `      # Where dbt builds the models; the sources stay in ${q(bq.dataset)}.`,
        `      dataset: ${q(`${bq.dataset}_dbt`)}`,
        `      location: ${q(bq.location)}`,
        '      threads: 4',
      ];
    }
    case 'duckdb':
      return [
        '      type: duckdb',
        '      # The database file dbt builds the models in; the sources are read from the store each time.',
        '      path: visync.duckdb',
        '      threads: 4',
        ...(p.s3Root
          ? [
              '      extensions: [httpfs]',
              '      # Credentials from the AWS chain (environment, ~/.aws, instance role); none are written here.',
              '      secrets:',
              '        - type: s3',
              '          provider: credential_chain',
              `          region: ${q(region)}`,
            ]
          : []),
      ];
    case 'athena':
      return [
        '      type: athena',
        '      # A bucket Athena writes query results to (not the visync store).',
        '      s3_staging_dir: "s3://YOUR-ATHENA-RESULTS-BUCKET/dbt/"',
        `      region_name: ${q(region)}`,
        '      database: awsdatacatalog',
        '      # The Glue database dbt builds the models in; the sources are in models/sources.yml.',
        '      schema: visync_dbt',
        '      work_group: primary',
        '      threads: 4',
        '      # Credentials from the AWS chain (environment, ~/.aws, instance role), or aws_profile_name: NAME.',
      ];
  }
}

const ADAPTER: Record<DbtTarget, string> = {
  bigquery: 'dbt-bigquery',
  duckdb: 'dbt-duckdb',
  athena: 'dbt-athena-community',
};

export function profilesYaml(p: ProfileSettings): string {
  return [
    `# Example dbt profile for ${ADAPTER[p.target]} (pip install dbt-core ${ADAPTER[p.target]}), written by`,
    '# `visync export dbt`. Run dbt from this folder with `--profiles-dir .`, or copy the profile into',
    '# ~/.dbt/profiles.yml. Values in capitals are placeholders; no secret belongs in this file.',
    `${PROFILE_NAME}:`,
    '  target: prod',
    '  outputs:',
    '    prod:',
    ...outputLines(p),
    '',
  ].join('\n');
}

export function adapterOf(target: DbtTarget): string {
  return ADAPTER[target];
}

export const MACRO_FILES: readonly { path: string; text: string }[] = [
  { path: 'tests/generic/visync_unique_key.sql', text: UNIQUE_KEY_MACRO },
];
