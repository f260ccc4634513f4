// Agency colours that text cannot use as they are (under WCAG AA's 4.5:1 on white): said once at load,
// naming the key, the colour and the shade the report's text takes instead (src/util/contrast.ts).
// Allowed all the same: fills and chart lines keep the agency's own colour.
import { AA_TEXT, ratioOnWhite, textColourOnWhite } from '../util/contrast.js';
import type { Config } from './schema.js';

type Colours = { primary?: string | undefined; accent?: string | undefined } | undefined;

/** Every `colors` block of the config with the key path it is written at. */
function colourBlocks(config: Config): [string, Colours][] {
  const blocks: [string, Colours][] = [['reports.colors', config.reports?.colors]];
  (config.accounts ?? []).forEach((a, i) => {
    blocks.push([`accounts.${i}.reports.colors`, a.reports?.colors]);
    for (const [ws, w] of Object.entries(a.reports?.workspaces ?? {}))
      blocks.push([`accounts.${i}.reports.workspaces.${ws}.colors`, w?.colors]);
  });
  return blocks;
}

/** One line per colour under AA: `reports.colors.accent #ffcc00 has 1.51:1 on white ...`. */
export function lowContrastColours(config: Config): string[] {
  const lines: string[] = [];
  for (const [path, colours] of colourBlocks(config))
    for (const key of ['primary', 'accent'] as const) {
      const colour = colours?.[key];
      if (colour === undefined) continue;
      const ratio = ratioOnWhite(colour);
      if (ratio >= AA_TEXT) continue;
      lines.push(
        `${path}.${key} ${colour} has a contrast of ${ratio.toFixed(2)}:1 on white, under the ${AA_TEXT}:1 WCAG AA asks of text: report text uses the darker ${textColourOnWhite(colour)} of the same hue instead; fills and chart lines keep ${colour}`,
      );
    }
  return lines;
}
