// A zip's file times set to one instant, so the same files make the same bytes. The XLSX writer
// (exceljs, through JSZip) stamps every file of the workbook with the time it was written; a report
// is deterministic (same data, same bytes: docs/reports.md), so ./xlsx.ts stamps them with the
// period's last day instead. Only the two DOS time fields of each entry change (in its central
// directory record and its local header); the CRCs cover the contents, not the times.

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** `at` (UTC) as the DOS time and date a zip entry holds (two-second steps, years 1980-2107). */
function dosTime(at: Date): { time: number; date: number } {
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
    date: ((at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}

/** The zip `bytes` with every entry's time set to `at`; throws when `bytes` is not a zip it can read. */
export function withFileTimes(bytes: Uint8Array, at: Date): Buffer {
  const out = Buffer.from(bytes);
  // The end record: at least 22 bytes from the end (more with a comment, which JSZip writes none of).
  let end = -1;
  for (let i = out.length - 22; i >= 0 && i >= out.length - 22 - 0xffff; i--)
    if (out.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  if (end < 0) throw new Error('not a zip: no end of central directory');
  const entries = out.readUInt16LE(end + 10);
  const { time, date } = dosTime(at);
  let record = out.readUInt32LE(end + 16);
  for (let n = 0; n < entries; n++) {
    if (out.readUInt32LE(record) !== CENTRAL) throw new Error('not a zip: a bad central directory record');
    out.writeUInt16LE(time, record + 12);
    out.writeUInt16LE(date, record + 14);
    const local = out.readUInt32LE(record + 42);
    if (out.readUInt32LE(local) !== LOCAL) throw new Error('not a zip: a bad local header');
    out.writeUInt16LE(time, local + 10);
    out.writeUInt16LE(date, local + 12);
    record +=
      46 + out.readUInt16LE(record + 28) + out.readUInt16LE(record + 30) + out.readUInt16LE(record + 32);
  }
  return out;
}
