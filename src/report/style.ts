// How a report looks: the agency's name, colours, logo and footer. Only the built-in defaults exist
// yet; the `reports` config block (docs/reports.md "Status") will fill this same shape per account
// and workspace. Up/down colours of deltas are fixed (README: a palette never turns a loss green).

export interface ReportStyle {
  /** Shown on the cover and in the footer. */
  agencyName: string;
  /** Headings, chart lines (CSS colour, `#rrggbb`). */
  primaryColour: string;
  /** Second series, highlights (`#rrggbb`). */
  accentColour: string;
  /** An embedded image (`data:image/png;base64,...`), never a remote URL; null: no logo. */
  logoDataUri: string | null;
  /** At most 200 characters; null: none. */
  footer: string | null;
  /** Overrides the client name read from the brands table; null: the brand's name. */
  clientName: string | null;
  /** Overrides the client's domain; null: the brand's domain. */
  clientDomain: string | null;
}

export const DEFAULT_STYLE: ReportStyle = {
  agencyName: 'visibility-sync',
  primaryColour: '#1f4e79',
  accentColour: '#c05f00',
  logoDataUri: null,
  footer: null,
  clientName: null,
  clientDomain: null,
};

/** Delta colours, fixed whatever the palette: better, worse, unchanged. */
export const DELTA_COLOURS = { up: '#1a7f37', down: '#b42318', flat: '#57606a' } as const;
