// The log formats, apart from the logger itself: the CLI offers them as choices on every command
// without loading pino until a command logs.
export const LOG_FORMATS = ['pretty', 'json'] as const;
/** `json`: one JSON object per line, for files and log collectors; `pretty`: for people at a terminal. */
export type LogFormat = (typeof LOG_FORMATS)[number];
