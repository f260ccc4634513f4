import { z } from 'zod';
import { EVENT_TYPES } from '../catalogue/brand-events.js';
import { isLoopbackHost } from '../util/net.js';
import { hasControlCharacter } from '../util/terminal.js';
import { agencySchemas } from './agency.js';
import { CompareSchema } from './compare-schema.js';
import { cronProblem, schedulerAcceptsTimeZone } from './cron.js';
import { MailLinkSchema, MailTemplatesSchema } from './mail-templates.js';
import { reportAttachShape } from './report-attach.js';
import { GoalsSchema } from './report-goals.js';

// Messages here are what an operator reads when start-up fails, so each says what was expected
// in plain words. None of them may quote the input: an API key must never reach a log line.

type RawIssue = { input?: unknown };

/** Error message for a type mismatch, distinguishing a missing value from a wrong one. */
function expected(what: string): (iss: RawIssue) => string {
  return (iss) => (iss.input === undefined ? `required: expected ${what}` : `expected ${what}`);
}

// Values interpolated from the environment are always strings, so numbers and booleans
// accept their canonical spelling as a string too (`requestsPerMinute: ${ACME_RPM}`).
function numericString(v: unknown): unknown {
  return typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
}

function booleanString(v: unknown): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  return v;
}

// An empty YAML section (`extract:` with nothing under it) parses as null; treat it as absent.
function nullAsUndefined(v: unknown): unknown {
  return v === null ? undefined : v;
}

function intBetween(min: number, max: number) {
  const what = `a whole number between ${min} and ${max}`;
  return z.preprocess(
    numericString,
    z
      .number({ error: expected(what) })
      .int({ error: `expected ${what}` })
      .min(min, { error: `expected ${what}` })
      .max(max, { error: `expected ${what}` }),
  );
}

const positiveInt = z.preprocess(
  numericString,
  z
    .number({ error: expected('a positive integer') })
    .int({ error: 'expected a positive integer' })
    .positive({ error: 'expected a positive integer' }),
);

const positiveNumber = z.preprocess(
  numericString,
  z.number({ error: expected('a positive number') }).positive({ error: 'expected a positive number' }),
);

const bool = z.preprocess(booleanString, z.boolean({ error: expected('true or false') }));

function nonEmptyString(what: string) {
  return z.string({ error: expected(what) }).min(1, { error: `expected ${what}` });
}

/**
 * A cloud name (a BigQuery dataset or project, a region) as its service allows it (`pattern`,
 * described by `chars`): it is written into SQL between backticks and into the YAML of `visync
 * export dbt`, which dbt renders with Jinja, so nothing else gets that far.
 */
function cloudName(what: string, pattern: RegExp, chars: string) {
  return z
    .string({ error: expected(what) })
    .min(1, { error: `expected ${what}`, abort: true })
    .regex(pattern, { error: `expected ${what} made of ${chars}` });
}

/**
 * A folder, prefix or name of the store. It reaches generated SQL, YAML and their comments
 * (src/export), where a line break would end a comment and start a statement: refused here.
 */
function storePath(what: string) {
  return nonEmptyString(what).refine((s) => !hasControlCharacter(s), {
    error: `expected ${what} without a line break or other control character`,
  });
}

function parseHttpUrl(s: string, ctx: z.RefinementCtx<string>, example: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    ctx.addIssue({ code: 'custom', message: `expected an absolute URL such as ${example}` });
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    ctx.addIssue({ code: 'custom', message: `expected an http(s) URL such as ${example}` });
    return undefined;
  }
  return url;
}

/** The API base URL; whether plain http is acceptable is decided per account (see AccountSchema). */
const baseUrl = z
  .string({ error: expected('an https URL such as https://visibility.example/api/v1') })
  .superRefine((s, ctx) => void parseHttpUrl(s, ctx, 'https://visibility.example/api/v1'));

const INSECURE_HTTP_MESSAGE =
  'must use https: plain http is only allowed for a loopback host (127.0.0.0/8, ::1, localhost), because the API key would otherwise travel unencrypted (a simulator on a private network can set allowInsecureHttp: true)';

function endpointUrl(example: string) {
  return z
    .string({ error: expected(`a URL such as ${example}`) })
    .superRefine((s, ctx) => void parseHttpUrl(s, ctx, example));
}

const BRANDS_MESSAGE = 'expected one of: all, or a list of workspace ids';

// Workspace ids written unquoted in YAML may parse as numbers; they are identifiers, not quantities.
const workspaceId = z.preprocess(
  (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v),
  z
    .string({ error: 'expected a workspace id (a string)' })
    .min(1, { error: 'expected a non-empty workspace id' }),
);

const brands = z
  .union([z.literal('all'), z.array(workspaceId).min(1, { error: BRANDS_MESSAGE })], {
    error: BRANDS_MESSAGE,
  })
  .superRefine((v, ctx) => {
    if (Array.isArray(v) && new Set(v).size !== v.length) {
      ctx.addIssue({ code: 'custom', message: 'workspace ids must be unique' });
    }
  });

const cron = z.string({ error: expected('a cron expression such as "0 2 * * *"') }).superRefine((s, ctx) => {
  const message = [5, 6].includes(s.trim().split(/\s+/).length)
    ? cronProblem(s)
    : 'expected a cron expression with 5 or 6 space-separated fields, such as "0 2 * * *"';
  if (message) ctx.addIssue({ code: 'custom', message });
});

// Remembered: constructing a DateTimeFormat costs about 0.2 ms, a thousand accounts share a few zones.
const timeZones = new Map<string, boolean>();

function isValidTimeZone(tz: string): boolean {
  let valid = timeZones.get(tz);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      valid = schedulerAcceptsTimeZone(tz);
    } catch {
      valid = false;
    }
    if (timeZones.size < 1000) timeZones.set(tz, valid);
  }
  return valid;
}

const timeZone = z
  .string({ error: expected('an IANA time zone such as UTC or Europe/Berlin') })
  .superRefine((tz, ctx) => {
    if (!isValidTimeZone(tz)) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown time zone ${JSON.stringify(tz)}: expected an IANA name such as UTC or Europe/Berlin`,
      });
    }
  });

// ---- reports (docs/reports-pdf.md, "White label"): what `visync report` and the workers' delivery read.

export const REPORT_SECTIONS = [
  'cover',
  'kpis',
  'trend',
  'engines',
  'buyer-intent',
  'recommendations',
  'reputation',
  'changes',
] as const;
const REPORT_FORMATS = ['html', 'json', 'pdf', 'csv', 'xlsx'] as const;
const PAGE_SIZES = ['A4', 'Letter'] as const;
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
/** The most bytes of a logo file: it is embedded in every report. */
export const MAX_LOGO_BYTES = 512 * 1024;
const MAX_FOOTER_CHARS = 200;

function uniqueList<T extends string>(values: readonly T[], what: string) {
  const message = `expected a list of ${what}: ${values.join(', ')}`;
  return z
    .array(z.enum(values as unknown as [T, ...T[]], { error: `expected one of ${values.join(', ')}` }), {
      error: expected(message),
    })
    .min(1, { error: message })
    .superRefine((v, ctx) => {
      if (new Set(v).size !== v.length) ctx.addIssue({ code: 'custom', message: `${what} must be unique` });
    });
}

function shortText(what: string, max: number) {
  return z
    .string({ error: expected(what) })
    .min(1, { error: `expected ${what}` })
    .max(max, { error: `expected at most ${max} characters` });
}

const hexColor = z
  .string({ error: expected('a colour as #rrggbb, such as #1f4e79') })
  .regex(/^#[0-9a-fA-F]{6}$/, { error: 'expected a colour as #rrggbb, such as #1f4e79' });

// A path, read and embedded as a data: URI by the loader (src/config/report-logo.ts). Never fetched:
// a report makes no request, and a URL could change (or track) what the client sees.
const logoPath = z
  .string({ error: expected('a local file path to a PNG, JPEG or SVG logo') })
  .min(1, { error: 'expected a local file path to a PNG, JPEG or SVG logo' })
  .superRefine((s, ctx) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[a-z]:[\\/]/i.test(s)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'expected a local file path: URLs are refused (the logo is embedded in the report, which fetches nothing); download the file and name its path',
      });
    }
  });

const locale = z.string({ error: expected('a locale such as en-US or de-DE') }).superRefine((l, ctx) => {
  let known = false;
  try {
    known = Intl.getCanonicalLocales(l).length === 1 && Intl.NumberFormat.supportedLocalesOf(l).length === 1;
  } catch {
    known = false;
  }
  if (!known)
    ctx.addIssue({ code: 'custom', message: 'unknown locale: expected one such as en-US, en-GB or de-DE' });
});

const clientDomain = z
  .string({ error: expected('a domain such as acme.example') })
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]$/i, {
    error: 'expected a domain such as acme.example (no https:// and no path)',
  });

const email = z
  .string({ error: expected('an e-mail address such as client@acme.example') })
  .regex(/^[^\s@<>()[\],;:"]+@([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]$/i, {
    error: 'expected an e-mail address such as client@acme.example',
  });

const envName = z
  .string({ error: expected('the name of an environment variable, such as SMTP_PASSWORD') })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    error: 'expected the name of an environment variable, such as SMTP_PASSWORD (not the password)',
  });

const DAY_MESSAGE = 'a day of the month from 1 to 28 (monthly) or a weekday such as monday (weekly)';

const ReportScheduleSchema = z
  .strictObject(
    {
      period: z.enum(['monthly', 'weekly'], { error: expected('monthly or weekly') }),
      day: z.preprocess(numericString, z.union([z.number(), z.string()], { error: expected(DAY_MESSAGE) })),
      compare: CompareSchema,
    },
    { error: expected('a mapping with period (monthly or weekly) and day') },
  )
  .superRefine((s, ctx) => {
    const ok =
      s.period === 'monthly'
        ? typeof s.day === 'number' && Number.isInteger(s.day) && s.day >= 1 && s.day <= 28
        : typeof s.day === 'string' && (WEEKDAYS as readonly string[]).includes(s.day);
    if (!ok) {
      const message =
        s.period === 'monthly'
          ? 'expected a day of the month from 1 to 28 for a monthly report (29 to 31 are missing in some months)'
          : `expected a weekday for a weekly report: ${WEEKDAYS.join(', ')}`;
      ctx.addIssue({ code: 'custom', path: ['day'], message });
    }
  });

const SmtpSchema = z
  .strictObject(
    {
      host: nonEmptyString('an SMTP host name such as smtp.example.com'),
      /** The sender of report e-mails (src/delivery/mail/smtp.ts): required, a server refuses mail without one. */
      from: email,
      port: intBetween(1, 65535).default(587),
      /** TLS from the first byte (port 465); otherwise STARTTLS, required (src/delivery/mail/smtp.ts). */
      secure: bool.default(false),
      /** Lets the login and the mail go in cleartext when the server offers no STARTTLS: on purpose only. */
      allowInsecure: bool.default(false),
      user: nonEmptyString('an SMTP user name').optional(),
      /** The variable that holds the password: a password is never written in the config. */
      passwordEnv: envName.optional(),
      password: z
        .never({
          error:
            'a password is never written in the config: put it in an environment variable and name that variable with passwordEnv',
        })
        .optional(),
    },
    { error: expected('a mapping with host, from, port, secure, allowInsecure, user and passwordEnv') },
  )
  .superRefine((s, ctx) => {
    if (s.user !== undefined && s.passwordEnv === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['passwordEnv'],
        message: 'required with user: the name of the environment variable that holds the password',
      });
    }
  });

// How a report's e-mail is addressed (src/delivery/mail/smtp.ts): who it is from by name, where replies go,
// who is in copy. A level's block overrides only the keys it sets (src/report/settings.ts).
const emailList = (what: string) =>
  z.array(email, { error: expected(`a list of e-mail addresses (${what})`) }).superRefine((v, ctx) => {
    if (new Set(v.map((a) => a.toLowerCase())).size !== v.length)
      ctx.addIssue({ code: 'custom', message: `${what} addresses must be unique` });
  });

const ReportMailSchema = z.strictObject(
  {
    /** The sender's display name: `Northwind Digital <reports@northwind.example>`. */
    fromName: shortText('a display name for the sender', 120)
      .regex(/^[^\r\n<>"]+$/, {
        error: 'expected a display name without line breaks, quotes or angle brackets',
      })
      .optional(),
    replyTo: email.optional(),
    /** In copy, visibly: on every recipient's mail, delivered once (with the first recipient's). */
    cc: emailList('cc').optional(),
    /** In blind copy: delivered once, with the first recipient's mail, never shown. */
    bcc: emailList('bcc').optional(),
    templates: MailTemplatesSchema.optional(),
    link: MailLinkSchema.optional(),
  },
  { error: expected('a mapping with fromName, replyTo, cc, bcc, templates and link') },
);

// Every key optional: a level says only what it changes; src/report/settings.ts merges the levels
// (top level <- account <- workspace) and fills the defaults.
// The agency's name; at the top level also the whole-book mapping (./agency.ts).
const agency = agencySchemas({ name: shortText('the agency name', 120), locale, timeZone });
const reportSettingsShape = {
  agency: agency.level.optional(),
  logo: logoPath.optional(),
  colors: z.preprocess(
    nullAsUndefined,
    z
      .strictObject(
        { primary: hexColor.optional(), accent: hexColor.optional() },
        { error: expected('a mapping with primary and/or accent') },
      )
      .optional(),
  ),
  footer: shortText(`a footer line of at most ${MAX_FOOTER_CHARS} characters`, MAX_FOOTER_CHARS).optional(),
  contact: shortText('a contact line', 200).optional(),
  clientName: shortText("the client's name", 200).optional(),
  clientDomain: clientDomain.optional(),
  locale: locale.optional(),
  timeZone: timeZone.optional(),
  pageSize: z.enum(PAGE_SIZES, { error: expected(`one of ${PAGE_SIZES.join(', ')}`) }).optional(),
  sections: uniqueList(REPORT_SECTIONS, 'report sections').optional(),
  hidePlatformName: bool.optional(),
  /** Engine id -> the name the report prints (src/report/i18n/engines.ts has the defaults). */
  engineNames: z
    .record(nonEmptyString('an engine id'), shortText('an engine display name', 60), {
      error: expected('a mapping of engine id to display name'),
    })
    .optional(),
  /** A closing "Data details" section with the workspace id, account, runs and data time. */
  dataDetails: bool.optional(),
  formats: uniqueList(REPORT_FORMATS, 'report formats').optional(),
  schedule: z.preprocess(nullAsUndefined, ReportScheduleSchema.optional()),
  recipients: z
    .array(email, { error: expected('a list of e-mail addresses') })
    .superRefine((v, ctx) => {
      if (new Set(v.map((a) => a.toLowerCase())).size !== v.length)
        ctx.addIssue({ code: 'custom', message: 'recipients must be unique' });
    })
    .optional(),
  review: bool.optional(),
  smtp: z.preprocess(nullAsUndefined, SmtpSchema.optional()),
  mail: z.preprocess(nullAsUndefined, ReportMailSchema.optional()),
  ...reportAttachShape,
  /**
   * The account manager's notes: `<notesDir>/<account>/<brand_key>/<period>.md` under each report's
   * summary (docs/reports.md); relative to the config file's folder.
   */
  notesDir: nonEmptyString("the folder of the account manager's notes").optional(),
  /** The client's goals (./report-goals.ts, docs/reports.md "Goals"); a workspace's list replaces its account's. */
  goals: GoalsSchema.optional(),
};

const WORKSPACES_AT_TOP =
  "workspaces belong in an account's reports block (accounts[i].reports.workspaces): workspace ids are per account";
const CHROMIUM_PER_RUN =
  'chromiumPath is set once, in the top-level reports block: one browser serves a whole run';

/** One workspace's overrides of its account's reports block. */
const WorkspaceReportsSchema = z.strictObject(
  { ...reportSettingsShape, chromiumPath: z.never({ error: CHROMIUM_PER_RUN }).optional() },
  { error: expected('a mapping of report settings') },
);

/** An account's `reports`: its settings, and per workspace id what differs. */
const AccountReportsSchema = z.strictObject(
  {
    ...reportSettingsShape,
    chromiumPath: z.never({ error: CHROMIUM_PER_RUN }).optional(),
    workspaces: z
      .record(workspaceId, z.preprocess(nullAsUndefined, WorkspaceReportsSchema.prefault({})), {
        error: expected('a mapping of workspace id to report settings'),
      })
      .optional(),
  },
  { error: expected('a mapping of report settings') },
);

/** The top-level `reports`: every account's defaults. */
const ReportsSchema = z.strictObject(
  {
    ...reportSettingsShape,
    agency: agency.top.optional(),
    /** The browser that prints PDFs (Debian's chromium by default). */
    chromiumPath: nonEmptyString('the path of a Chromium executable').optional(),
    workspaces: z.never({ error: WORKSPACES_AT_TOP }).optional(),
  },
  { error: expected('a mapping of report settings') },
);

// ---- watch (docs/operations.md, "Brand watch"): which brand_events an account's alert lists.
const eventType = z.enum(EVENT_TYPES, { error: `expected one of ${EVENT_TYPES.join(', ')}` });
const watchSettingsShape = {
  /** The event types alerted (default: all). */
  types: z.array(eventType, { error: expected('a list of event types') }).optional(),
  /** Types only counted in the alert, not listed. */
  quiet: z.array(eventType, { error: expected('a list of event types') }).optional(),
  /** Smallest score move (points) alerted; the table records moves from 1 point. */
  scorePoints: positiveNumber.optional(),
  /** Smallest share-of-voice drop (percentage points) alerted. */
  sovPoints: positiveNumber.optional(),
};
/** The weekly digest (src/delivery/digest/weekly.ts): on which weekday it goes out, how many workspaces it lists. */
export const DigestSchema = z.strictObject(
  {
    day: z.enum(WEEKDAYS, { error: expected(`a weekday: ${WEEKDAYS.join(', ')}`) }),
    top: intBetween(1, 100).optional(),
  },
  {
    error: expected('a mapping with day (a weekday such as monday) and optionally top, e.g. { day: monday }'),
  },
);
// An account's `digest: false` turns off a digest the top level turns on. Not a z.union: a union's
// error would hide which key of the mapping is wrong.
const accountDigest = z.unknown().transform((v, ctx): false | DigestConfig => {
  if (v === false) return false;
  const r = DigestSchema.safeParse(v);
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
  return z.NEVER;
});
const WatchSchema = z.strictObject(
  {
    ...watchSettingsShape,
    digest: z.preprocess(nullAsUndefined, DigestSchema.optional()),
    workspaces: z
      .never({ error: "workspaces belong in an account's watch block (accounts[i].watch.workspaces)" })
      .optional(),
  },
  { error: expected('a mapping of watch rules (types, quiet, scorePoints, sovPoints, digest)') },
);
const AccountWatchSchema = z.strictObject(
  {
    ...watchSettingsShape,
    digest: z.preprocess(nullAsUndefined, accountDigest.optional()),
    workspaces: z
      .record(
        workspaceId,
        z.strictObject(watchSettingsShape, { error: expected('a mapping of watch rules') }),
        { error: expected('a mapping of workspace id to watch rules') },
      )
      .optional(),
  },
  { error: expected('a mapping of watch rules (types, quiet, scorePoints, sovPoints, digest, workspaces)') },
);

/** An account's own nightly schedule; what it leaves out comes from schedule.nightly. */
const AccountScheduleSchema = z.strictObject(
  { cron: cron.optional(), tz: timeZone.optional() },
  { error: expected('a mapping with cron and/or tz') },
);

const datasetName = cloudName('a BigQuery dataset name', /^[A-Za-z0-9_]+$/, 'letters, digits and _');

/** An account's own dataset; project, location and endpoint come from sinks.bigquery. */
const AccountBigQuerySchema = z.strictObject(
  { dataset: datasetName },
  { error: expected('a mapping with dataset') },
);

// Stored with a trailing slash (or empty) so that keys are always `${prefix}raw/...`.
const s3Prefix = z
  .string({ error: expected('a key prefix such as visibility/') })
  .refine((p) => !hasControlCharacter(p), {
    error: 'expected a key prefix without a line break or other control character',
  })
  .transform((p) => {
    const trimmed = p.replace(/^\/+/, '');
    return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
  });

/** An account's own key prefix in the bucket of sinks.s3 (it replaces sinks.s3.prefix). */
const AccountS3Schema = z.strictObject({ prefix: s3Prefix }, { error: expected('a mapping with prefix') });

/** An account's own folder when the object store is sinks.fs. */
const AccountFsSchema = z.strictObject(
  { dir: storePath('a directory path') },
  { error: expected('a mapping with dir') },
);

export const AccountSchema = z
  .strictObject(
    {
      name: z.string({ error: expected('an account name made of a-z, 0-9 and -') }).regex(/^[a-z0-9-]+$/, {
        error:
          'expected only lowercase letters, digits and - (the name is used in storage paths and table values)',
      }),
      apiKey: nonEmptyString('a non-empty API key, e.g. apiKey: ${ACME_API_KEY}'),
      /**
       * Where the key was read from (a mounted Docker or Kubernetes secret), resolved to an absolute
       * path; the loader fills apiKey from it, so code that calls the API reads apiKey only.
       */
      apiKeyFile: nonEmptyString('a file path such as /run/secrets/acme-api-key').optional(),
      baseUrl,
      brands: brands.default('all'),
      /** Ceiling per rate window; when absent the limit comes from GET /me, else 120. */
      requestsPerMinute: positiveInt.optional(),
      /** Only a simulator with a compressed clock needs anything but 60. */
      rateWindowSeconds: positiveNumber.default(60),
      /** Lets the key travel over plain http to a non-loopback host: for a simulator on a private network only. */
      allowInsecureHttp: bool.default(false),
      // Per-account overrides of top-level settings (src/config/account-settings.ts applies them).
      schedule: z.preprocess(nullAsUndefined, AccountScheduleSchema.optional()),
      bigquery: z.preprocess(nullAsUndefined, AccountBigQuerySchema.optional()),
      s3: z.preprocess(nullAsUndefined, AccountS3Schema.optional()),
      fs: z.preprocess(nullAsUndefined, AccountFsSchema.optional()),
      /** White label, schedule and delivery of this account's reports; what it leaves out comes from `reports`. */
      reports: z.preprocess(nullAsUndefined, AccountReportsSchema.optional()),
      /** Which brand events this account's alert lists; what it leaves out comes from `watch`. */
      watch: z.preprocess(nullAsUndefined, AccountWatchSchema.optional()),
    },
    { error: expected('an account mapping with name, apiKey (or apiKeyFile) and baseUrl') },
  )
  .superRefine((a, ctx) => {
    let url: URL;
    try {
      url = new URL(a.baseUrl);
    } catch {
      return;
    }
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !a.allowInsecureHttp) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: INSECURE_HTTP_MESSAGE });
    }
  })
  .superRefine((a, ctx) => {
    if (Array.isArray(a.brands)) {
      for (const id of Object.keys(a.reports?.workspaces ?? {})) {
        if (!a.brands.includes(id))
          ctx.addIssue({
            code: 'custom',
            path: ['reports', 'workspaces', id],
            message: "not among this account's brands: add it to brands, or remove its report settings",
          });
      }
    }
  });

const NightlyScheduleSchema = z.strictObject(
  { cron: cron.default('0 2 * * *'), tz: timeZone.default('UTC') },
  { error: expected('a mapping with cron and tz') },
);

const ScheduleSchema = z.strictObject(
  { nightly: z.preprocess(nullAsUndefined, NightlyScheduleSchema.prefault({})) },
  { error: expected('a mapping with nightly') },
);

const buyerIntentDays = z
  .array(intBetween(7, 90), { error: expected('a list of whole numbers of days between 7 and 90') })
  .min(1, { error: 'expected at least one window (whole numbers of days between 7 and 90)' })
  .superRefine((v, ctx) => {
    if (new Set(v).size !== v.length) ctx.addIssue({ code: 'custom', message: 'windows must be unique' });
  });

const ExtractSchema = z.strictObject(
  {
    visibilityDays: intBetween(1, 365).default(7),
    backfillDays: intBetween(1, 365).default(365),
    buyerIntentDays: buyerIntentDays.default(() => [7, 30, 90]),
    overlapDays: intBetween(0, 30).default(2),
    /** Workspaces fetched at once per account. */
    concurrency: intBetween(1, 64).default(8),
    /** A response body larger than this fails the call (retryable) instead of filling memory. */
    maxResponseBytes: positiveInt.default(64 * 1024 * 1024),
    /** Whole-request deadline (connect, headers and body together); a trickling body cannot outlast it. */
    requestTimeoutSeconds: positiveNumber.default(120),
    /**
     * The longest an account is paused for one Retry-After (on a 429 or a 5xx), whatever the API
     * asks. A run asked for longer, or for a pause past its deadline, ends rate_limited at once,
     * naming when the account may be called again; later runs before then end the same way.
     */
    maxPauseSeconds: intBetween(1, 86_400).default(3600),
  },
  { error: expected('a mapping of extract settings') },
);

const RedisSchema = z.strictObject(
  {
    // Optional here because `run --once` needs no Redis; commands that do check it themselves.
    url: z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.string({ error: expected('a Redis URL such as redis://127.0.0.1:6379') }).optional(),
    ),
    /** Namespace of every key visync writes: several deployments can share one Redis. */
    prefix: z
      .string({ error: expected('a key prefix made of letters, digits, - and _') })
      .regex(/^[A-Za-z0-9_-]+$/, { error: 'expected only letters, digits, - and _' })
      .default('visync'),
    /** `url` is one node of a Redis Cluster (its user and password serve every node); default false. */
    cluster: bool.optional(),
  },
  { error: expected('a mapping with url') },
);

const JobsSchema = z.strictObject(
  {
    /** Tries per job for transient failures (a bad key or plan is never retried). */
    attempts: positiveInt.default(5),
    /** How long a worker's hold on a job lasts without renewal: a crashed worker's jobs are taken over after it. */
    lockSeconds: positiveNumber.default(30),
    /** A job that would wait longer than this for request budget steps aside (delayed) and frees its worker slot. */
    maxBudgetWaitSeconds: positiveNumber.default(10),
    /** A run still unfinished this long after it started ends partial with the reason, never waits forever. */
    maxRunHours: positiveNumber.default(20),
  },
  { error: expected('a mapping with attempts, lockSeconds, maxBudgetWaitSeconds, maxRunHours') },
);

/**
 * Queued runs into BigQuery are loaded in batches across accounts (jobs/load-batches.ts): BigQuery
 * allows 1,500 load jobs per table per day, and one job per table per run spends that at about
 * 1,400 accounts a night in a shared dataset.
 */
const LoadSchema = z.strictObject(
  {
    /** A batch at least this often while runs wait for one (also at once when no other run is in flight). */
    batchMinutes: intBetween(1, 1440).default(15),
    /** A batch as soon as this many runs wait for it; also the most runs one batch takes. */
    batchRuns: intBetween(1, 10_000).default(500),
  },
  { error: expected('a mapping with batchMinutes and batchRuns') },
);

const FsSinkSchema = z.strictObject(
  { dir: storePath('a directory path').default('./data') },
  { error: expected('a mapping with dir') },
);

const S3SinkSchema = z.strictObject(
  {
    // S3's own rule, loosely (older buckets may hold capitals and _): nothing to quote anywhere.
    bucket: z.string({ error: expected('a bucket name') }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
      error: 'expected a bucket name made of letters, digits, ., - and _',
    }),
    prefix: s3Prefix.default(''),
    region: cloudName('an AWS region such as eu-west-1', /^[A-Za-z0-9-]+$/, 'letters, digits and -').default(
      'us-east-1',
    ),
    endpoint: endpointUrl('http://127.0.0.1:9000').optional(),
    forcePathStyle: bool.default(false),
    /** Per-request deadline for S3 calls: a server that accepts and never answers cannot hang a put. */
    requestTimeoutSeconds: positiveNumber.default(60),
    /** Attempts per S3 request (the SDK's own retry with backoff), first try included. */
    maxAttempts: intBetween(1, 20).default(5),
  },
  { error: expected('a mapping with at least bucket') },
);

const BigQuerySinkSchema = z.strictObject(
  {
    // Letters, digits and - (older ids may hold a domain: example.com:project).
    projectId: cloudName(
      'a Google Cloud project id',
      /^[A-Za-z0-9][A-Za-z0-9.:_-]*$/,
      'letters, digits, -, . and :',
    ),
    dataset: datasetName,
    location: cloudName(
      'a BigQuery location such as US or EU',
      /^[A-Za-z0-9-]+$/,
      'letters, digits and -',
    ).default('US'),
    apiEndpoint: endpointUrl('http://127.0.0.1:9050').optional(),
    /**
     * Days BigQuery keeps each partition (counted from its date: snapshot_date, date, run_date),
     * then deletes it. Left out: no expiration set by visync (docs/production.md, "Costs").
     */
    partitionExpirationDays: positiveInt.optional(),
    /** Queries of the data tables (not sync_runs) must filter on the partition column; off by default. */
    requirePartitionFilter: bool.optional(),
  },
  { error: expected('a mapping with projectId and dataset') },
);

const listenAddress = z
  .string({ error: expected('HOST:PORT such as 127.0.0.1:9464, or off') })
  .regex(/^(off|\[[0-9a-fA-F:.]+\]:\d{1,5}|[^\s:]+:\d{1,5})$/, {
    error: 'expected HOST:PORT such as 127.0.0.1:9464 ([::1]:9464 for IPv6), or off',
  });

/** Where a worker serves /metrics, /healthz, /readyz and /ui/ unless told otherwise. */
export const DEFAULT_LISTEN = '127.0.0.1:9464';

export const WorkerSchema = z.strictObject(
  {
    /** Address of /metrics, /healthz, /readyz and /ui/; `off` disables it. */
    listen: listenAddress.default(DEFAULT_LISTEN),
    ui: z.preprocess(
      nullAsUndefined,
      z
        .strictObject({ readOnly: bool.default(true) }, { error: expected('a mapping with readOnly') })
        .prefault({}),
    ),
  },
  { error: expected('a mapping with listen and ui') },
);

// `report`: a scheduled report was made (its location); `stale` also covers a scheduled report that
// no complete run covers (src/delivery/scheduled/deliver.ts). `events`: the brand-watch message of a run.
export const ALERT_EVENTS = ['failed', 'partial', 'stale', 'report', 'events'] as const;
/** `report` and `events` are news, not trouble: a webhook set up for failures hears of them only when asked. */
const DEFAULT_ALERT_EVENTS = ['failed', 'partial', 'stale'] as const;

const INSECURE_WEBHOOK_MESSAGE =
  'must use https: plain http is only allowed for a loopback host (127.0.0.0/8, ::1, localhost), because a webhook URL is a secret (whoever holds it can post to the channel) and it and every alert would otherwise travel unencrypted';

/** Like baseUrl: https, or plain http to a loopback receiver (a local relay, tests). */
const webhookUrl = endpointUrl('https://hooks.slack.com/services/...').superRefine((s, ctx) => {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    ctx.addIssue({ code: 'custom', message: INSECURE_WEBHOOK_MESSAGE });
});

const AlertsSchema = z.strictObject(
  {
    webhook: webhookUrl,
    on: z
      .array(z.enum(ALERT_EVENTS, { error: `expected one of ${ALERT_EVENTS.join(', ')}` }))
      .default(() => [...DEFAULT_ALERT_EVENTS]),
    staleAfterHours: positiveNumber.default(30),
  },
  { error: expected('a mapping with webhook, on and staleAfterHours') },
);

const SINKS_NEED_STORE =
  'configure fs or s3 (raw landing needs an object store), e.g. sinks: { fs: { dir: ./data } }';

const SinksSchema = z
  .strictObject(
    {
      // `fs:` with nothing under it means "fs with the default directory".
      fs: z.preprocess((v) => (v === null ? {} : v), FsSinkSchema).optional(),
      s3: S3SinkSchema.optional(),
      bigquery: BigQuerySinkSchema.optional(),
    },
    {
      error: (iss) =>
        iss.input == null ? `required: ${SINKS_NEED_STORE}` : `expected a mapping: ${SINKS_NEED_STORE}`,
    },
  )
  .superRefine(
    (s, ctx) => {
      if (!s.fs && !s.s3) ctx.addIssue({ code: 'custom', message: SINKS_NEED_STORE });
      if (s.fs && s.s3) {
        ctx.addIssue({ code: 'custom', message: 'choose one object store: configure fs or s3, not both' });
      }
    },
    // Also when a sink itself is invalid, so that every problem with `sinks` shows in one go.
    { when: (p) => p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value) },
  );

/**
 * The config file as written. `accounts` and `accountsFrom` are both optional here: the loader
 * (src/config/read-config.ts) merges them, and checks that there is at least one account and that names
 * are unique across both.
 */
export const ConfigFileSchema = z.strictObject(
  {
    accounts: z.array(AccountSchema, { error: expected('a list of accounts (at least one)') }).optional(),
    /** A directory of *.yaml / *.yml files, a .json or a .csv file of accounts (src/config/accounts-from.ts). */
    accountsFrom: nonEmptyString('a directory of YAML files, or a .json or .csv file').optional(),
    schedule: z.preprocess(nullAsUndefined, ScheduleSchema.prefault({})),
    extract: z.preprocess(nullAsUndefined, ExtractSchema.prefault({})),
    redis: z.preprocess(nullAsUndefined, RedisSchema.prefault({})),
    jobs: z.preprocess(nullAsUndefined, JobsSchema.prefault({})),
    load: z.preprocess(nullAsUndefined, LoadSchema.prefault({})),
    sinks: SinksSchema,
    shutdownGraceSeconds: positiveNumber.default(30),
    worker: z.preprocess(nullAsUndefined, WorkerSchema.prefault({})),
    alerts: AlertsSchema.optional(),
    /** Every account's report settings (white label, schedule, delivery); accounts override them. */
    reports: z.preprocess(nullAsUndefined, ReportsSchema.optional()),
    /** Every account's watch rules (docs/operations.md, "Brand watch"). */
    watch: z.preprocess(nullAsUndefined, WatchSchema.optional()),
  },
  { error: 'expected a YAML mapping with at least accounts and sinks' },
);

export type Config = Omit<z.output<typeof ConfigFileSchema>, 'accounts'> & {
  /** Every account: those under `accounts` first, then those of `accountsFrom` in file order. */
  accounts: AccountConfig[];
};
export type AccountConfig = z.output<typeof AccountSchema>;
export type NightlyScheduleConfig = z.output<typeof NightlyScheduleSchema>;
export type SinksConfig = z.output<typeof SinksSchema>;
export type FsSinkConfig = z.output<typeof FsSinkSchema>;
export type S3SinkConfig = z.output<typeof S3SinkSchema>;
export type AlertsConfig = z.output<typeof AlertsSchema>;
export type WatchConfig = z.output<typeof WatchSchema>;
export type DigestConfig = z.output<typeof DigestSchema>;
export type AccountWatchConfig = z.output<typeof AccountWatchSchema>;
export type BigQuerySinkConfig = z.output<typeof BigQuerySinkSchema>;
export type WorkspaceReportsConfig = z.output<typeof WorkspaceReportsSchema>;
export type ReportScheduleConfig = z.output<typeof ReportScheduleSchema>;
export type SmtpConfig = z.output<typeof SmtpSchema>;
export type ReportMailConfig = z.output<typeof ReportMailSchema>;
export type ReportSection = (typeof REPORT_SECTIONS)[number];
export type ReportFormat = (typeof REPORT_FORMATS)[number];
