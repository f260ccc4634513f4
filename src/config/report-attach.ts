// `reports.attach`: which of a report's files its e-mail carries (docs/reports.md, "Spreadsheets").
// Its own module so the reports schema (./schema.ts) takes it in one line. Unset: the one file sent
// before this key existed (the PDF, else the HTML page, else report.json). csv is not offered: it is
// a file per table, which a workbook carries better as one attachment.
import { z } from 'zod';

export const ATTACH_FORMATS = ['pdf', 'html', 'json', 'xlsx'] as const;
export type AttachFormat = (typeof ATTACH_FORMATS)[number];

const LIST = `expected a list of attachments: ${ATTACH_FORMATS.join(', ')}`;

export const reportAttachShape = {
  attach: z
    .array(z.enum(ATTACH_FORMATS, { error: `expected one of ${ATTACH_FORMATS.join(', ')}` }), {
      error: (iss) => (iss.input === undefined ? `required: ${LIST}` : LIST),
    })
    .min(1, { error: LIST })
    .superRefine((v, ctx) => {
      if (new Set(v).size !== v.length)
        ctx.addIssue({ code: 'custom', message: 'attachments must be unique' });
    })
    .optional(),
};
