// Views over the base tables: the newest row per natural key, and recommendation status changes
// derived from daily snapshots (the API itself exposes no transitions).
import { TABLES } from './tables.js';
import type { TableDef, ViewDef } from './types.js';

// Ties on extracted_at (two runs landing the same second) fall back to run id, which sorts by start.
const NEWEST_FIRST = 'extracted_at DESC, run_id DESC';

function latestView(table: TableDef): ViewDef {
  const key = table.naturalKey.join(', ');
  return {
    name: `${table.name}_latest`,
    description:
      `Per (${key}), the \`${table.name}\` row of the newest run: snapshot history stays in the base ` +
      'table. Keys not returned by recent runs keep their last row; compare `' +
      (table.partitionField === 'snapshot_date' ? 'snapshot_date' : 'extracted_at') +
      '` with the newest to find them.',
    sql: (dataset) =>
      [
        'SELECT * EXCEPT(_row_rank)',
        'FROM (',
        '  SELECT *,',
        `    ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY ${NEWEST_FIRST}) AS _row_rank`,
        `  FROM \`${dataset}.${table.name}\``,
        ')',
        'WHERE _row_rank = 1',
      ].join('\n'),
    references: [{ table: table.name, columns: [...table.naturalKey, 'extracted_at', 'run_id'] }],
  };
}

const recommendationStatusChanges: ViewDef = {
  name: 'recommendation_status_changes',
  description:
    'One row per observed status change of a recommendation: `status` on `snapshot_date` differs from ' +
    'the status of the previous snapshot (`previous_status`). Per day the newest run counts; days whose ' +
    'status is NULL are skipped. A change is dated by the first snapshot that shows it, so gaps between ' +
    'runs make it later than the real change (see `updated_at` in `recommendations`).',
  sql: (dataset) =>
    [
      'WITH per_day AS (',
      '  SELECT account, brand_id, recommendation_id, snapshot_date, status',
      '  FROM (',
      '    SELECT account, brand_id, recommendation_id, snapshot_date, status,',
      '      ROW_NUMBER() OVER (',
      '        PARTITION BY account, brand_id, recommendation_id, snapshot_date',
      `        ORDER BY ${NEWEST_FIRST}`,
      '      ) AS _row_rank',
      `    FROM \`${dataset}.recommendations\``,
      '  )',
      '  WHERE _row_rank = 1 AND status IS NOT NULL',
      '),',
      'with_previous AS (',
      '  SELECT account, brand_id, recommendation_id, snapshot_date,',
      '    LAG(status) OVER (',
      '      PARTITION BY account, brand_id, recommendation_id ORDER BY snapshot_date',
      '    ) AS previous_status,',
      '    status',
      '  FROM per_day',
      ')',
      'SELECT account, brand_id, recommendation_id, snapshot_date, previous_status, status',
      'FROM with_previous',
      'WHERE previous_status IS NOT NULL AND previous_status != status',
    ].join('\n'),
  references: [
    {
      table: 'recommendations',
      columns: [
        'account',
        'brand_id',
        'recommendation_id',
        'snapshot_date',
        'status',
        'extracted_at',
        'run_id',
      ],
    },
  ],
};

export const VIEWS: readonly ViewDef[] = [...TABLES.map(latestView), recommendationStatusChanges];
