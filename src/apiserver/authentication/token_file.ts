/**
 * The static token file authenticator, like upstream's
 * pkg/authentication/token/tokenfile (--token-auth-file): a CSV file of
 * `token,user,uid[,"group1,group2"]` read once at start-up. A record with
 * fewer than three columns is an error; an empty token is skipped; a later
 * duplicate wins, as upstream's map does.
 */
import { readFileSync } from 'node:fs';
import { AUTHENTICATED_GROUP, type UserInfo } from './user.js';
import type { TokenAuthenticator } from './request.js';

/** Parses a token file's text into token → user; throws on a malformed record. */
export function parseTokenFile(text: string, path = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  let n = 0;
  for (const record of parseCSV(text)) {
    if (record.length === 1 && record[0] === '') continue;
    n++;
    if (record.length < 3)
      throw new Error(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    const [token, username, uid] = record;
    if (token === '') continue;
    const groups = record.length >= 4 && record[3] !== '' ? record[3].split(',') : [];
    if (!groups.includes(AUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
    tokens.set(token, { username, ...(uid === '' ? {} : { uid }), groups });
  }
  if (n === 0 && text.trim() !== '') throw new Error(`token file '${path}' holds no records`);
  return tokens;
}

/** A TokenAuthenticator over `--token-auth-file`; throws when the file cannot be read or parsed. */
export function tokenFileAuthenticator(path: string): TokenAuthenticator {
  const tokens = parseTokenFile(readFileSync(path, 'utf8'), path);
  return (token) => Promise.resolve(tokens.get(token));
}

// RFC 4180 records, with Go's encoding/csv leniencies that upstream sets (leading spaces trimmed, any column count).
function parseCSV(text: string): string[][] {
  const out: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let atStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
      continue;
    }
    if (atStart && (c === ' ' || c === '\t')) continue;
    if (atStart && c === '"') {
      quoted = true;
      atStart = false;
      continue;
    }
    if (c === ',') {
      record.push(field);
      field = '';
      atStart = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      out.push(record);
      record = [];
      field = '';
      atStart = true;
    } else {
      field += c;
      atStart = false;
    }
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    out.push(record);
  }
  return out;
}
