// Agency colours against WCAG AA (docs/reports-pdf.md, "Colours"): text needs 4.5:1 on the white
// page. A colour below that keeps its place in fills and lines, and text takes the lightest shade of
// the same hue and saturation that reaches 4.5:1, so a brand yellow reads as its own dark ochre.
import { hex as contrastRatio } from 'wcag-contrast';

/** WCAG 2 AA for normal text. */
export const AA_TEXT = 4.5;

/** The contrast of `colour` (`#rrggbb`) on white, e.g. 1.63 for #ffcc00. */
export function ratioOnWhite(colour: string): number {
  return contrastRatio(colour, '#ffffff');
}

type Hsl = [number, number, number];

function toHsl(colour: string): Hsl {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return [h / 6, s, l];
}

function toHex([h, s, l]: Hsl): string {
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    const v = u < 1 / 6 ? p + (q - p) * 6 * u : u < 1 / 2 ? q : u < 2 / 3 ? p + (q - p) * (2 / 3 - u) * 6 : p;
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(h + 1 / 3)}${channel(h)}${channel(h - 1 / 3)}`;
}

/**
 * The colour for text on white: `colour` itself when it reaches 4.5:1, else the lightest darker
 * shade of its hue that does (lightness lowered in steps of 0.5 %, so the same input always gives
 * the same output). Lower-case `#rrggbb`.
 */
export function textColourOnWhite(colour: string): string {
  const own = colour.toLowerCase();
  if (ratioOnWhite(own) >= AA_TEXT) return own;
  const [h, s, l] = toHsl(own);
  for (let step = Math.floor(l * 200); step >= 0; step--) {
    const shade = toHex([h, s, step / 200]);
    if (ratioOnWhite(shade) >= AA_TEXT) return shade;
  }
  return '#000000';
}
