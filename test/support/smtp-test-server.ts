import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail the test server received, decoded enough for a test to read. */
export interface ReceivedMail {
  /** The message as it came over SMTP. */
  raw: string;
  /** The envelope sender. */
  from: string;
  /** The envelope recipients. */
  to: string[];
  /** Header fields by lower-case name (unfolded; the last one wins). */
  headers: Record<string, string>;
  subject: string;
  /** The text/plain part, decoded. */
  text: string;
  /** The text/html part, decoded. */
  html: string;
  /** Every http(s) link of the text part, in order. */
  links: string[];
}

/** An SMTP server on a random port of this machine that keeps what it receives. */
export interface SmtpTestServer {
  host: string;
  port: number;
  /** `smtp://127.0.0.1:<port>`, for nodemailer. */
  url: string;
  mails: ReceivedMail[];
  /** Resolves with the first mail (received or still to come) that `predicate` accepts. */
  waitForMail(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * Starts `smtp-server` without TLS or authentication, as a local relay would be, so tests send real
 * SMTP with nodemailer and read the result.
 *
 * @example
 * const smtp = await startSmtpTestServer();
 * const transport = nodemailer.createTransport(smtp.url);
 * const mail = await smtp.waitForMail((mail) => mail.to.includes('ana@example.com'));
 */
export async function startSmtpTestServer(): Promise<SmtpTestServer> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<{ predicate: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'), {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
        });
        mails.push(mail);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(mail)) {
            waiters.delete(waiter);
            waiter.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail(predicate, timeoutMs = 15_000) {
      const found = mails.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (mail: ReceivedMail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `No matching mail within ${timeoutMs} ms; received: ${mails.map((mail) => mail.subject).join(' | ')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface MimePart {
  headers: Record<string, string>;
  body: string;
}

function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const message = splitPart(raw);
  const leaves: MimePart[] = [];
  collectLeaves(message, leaves);
  const partOf = (type: string) =>
    leaves.find((part) => (part.headers['content-type'] ?? 'text/plain').toLowerCase().startsWith(type));
  const text = decodeBody(partOf('text/plain'));
  return {
    raw,
    ...envelope,
    headers: message.headers,
    subject: decodeEncodedWords(message.headers.subject ?? ''),
    text,
    html: decodeBody(partOf('text/html')),
    links: text.match(/https?:\/\/[^\s"'<>]+/g) ?? [],
  };
}

function splitPart(raw: string): MimePart {
  const normalised = raw.replace(/\r\n/g, '\n');
  const end = normalised.indexOf('\n\n');
  const head = end === -1 ? normalised : normalised.slice(0, end);
  const body = end === -1 ? '' : normalised.slice(end + 2);
  const headers: Record<string, string> = {};
  // Folded lines start with white space and continue the field above them.
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function collectLeaves(part: MimePart, leaves: MimePart[]): void {
  const type = part.headers['content-type'] ?? '';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary) {
    leaves.push(part);
    return;
  }
  const sections = part.body.split(`--${boundary}`).slice(1);
  for (const section of sections) {
    if (section.startsWith('--')) break;
    collectLeaves(splitPart(section.replace(/^\n/, '')), leaves);
  }
}

function decodeBody(part: MimePart | undefined): string {
  if (!part) return '';
  const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(part.body);
  return part.body.replace(/\n$/, '');
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const joined = text.replace(/=\n/g, '');
  for (let index = 0; index < joined.length; index += 1) {
    const hex = joined.slice(index + 1, index + 3);
    if (joined[index] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(joined[index] as string, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

// Subjects outside ASCII come as `=?UTF-8?B?…?=` or `=?UTF-8?Q?…?=` (RFC 2047).
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_match, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}
