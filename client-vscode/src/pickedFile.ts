/**
 * A file the user picked in a dialog, read by the extension itself and sent to the server as
 * text: the server reads only files inside the workspace folders, since no flag a client sends
 * can prove a person chose a path outside them. Read as the server would read one: a regular
 * file (not a FIFO, a device or a folder; opened without blocking), at most
 * `MAX_IMPORT_BYTES`, a `.gz` file decompressed within the same bound.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

/** The server's bound on a sample file (codequorum.lsp.files.MAX_IMPORT_BYTES). */
export const MAX_IMPORT_BYTES = 16_777_216;

function megabytes(limit: number): string {
  return `${+(limit / 1_048_576).toFixed(1)} MB`;
}

function kind(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The text of the picked file, or an Error that names it and says why not. */
export async function readPickedFile(file: string, limit: number = MAX_IMPORT_BYTES): Promise<string> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  let data: Buffer;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new Error(`${file} is ${kind(stat)}, not a regular file`);
    }
    if (stat.size > limit) {
      throw new Error(`${file} is larger than ${megabytes(limit)}`);
    }
    const buffer = Buffer.alloc(limit + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > limit) {
        throw new Error(`${file} is larger than ${megabytes(limit)}`);
      }
    }
    data = buffer.subarray(0, size);
  } finally {
    await handle.close();
  }
  if (path.extname(file).toLowerCase() === '.gz') {
    try {
      data = zlib.gunzipSync(data, { maxOutputLength: limit });
    } catch (err) {
      const large = err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
      throw new Error(large ? `${file} holds more than ${megabytes(limit)}` : `${file}: broken gzip data`);
    }
  }
  return new TextDecoder('utf-8').decode(data);
}
